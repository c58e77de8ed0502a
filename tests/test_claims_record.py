"""Issue #22: the claim record carries currency to every read path. What closing a claim takes out of its memory is
decided once, when the claim is written (``claims.words``), and read paths use it; an edit of a fact closes its old
words on the turn that carried them; an assistant turn is no evidence of the user's own facts; a past question
keeps the turn that said the old value."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

from anchormem import Memory
from anchormem.facts.claims import closing_words, current_view, decided_words
from anchormem.stores.migrations import LATEST
from anchormem.types import Claim, MemoryItem

T1 = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)
T2 = T1 + timedelta(days=60)


def _turn(text: str, claims: list[Claim]) -> MemoryItem:
    return MemoryItem(id="u1", text=text, user_id="u", created_at=T1, valid_from=T1, claims=claims)


def test_read_paths_take_the_words_decided_at_write_time():
    text = "Hi, I'm Sam. I live in Lisbon and I'm a dental hygienist."
    span = "I live in Lisbon and I'm a dental hygienist."
    assert decided_words(span, "Lisbon") == "I live in Lisbon"  # the statement holding the value
    assert decided_words("每天晚上都要喝两杯啤酒", "啤酒", "relative") == "每天晚上都要喝两杯啤酒"  # as the ending decided
    closed = dict(slot="user|home_city", value="Lisbon", said_at=T1, valid_from=T1, valid_to=T2, span=span)
    decided = Claim(fact_id="f1", words="I live in Lisbon and I'm a dental hygienist.", **closed)
    legacy = Claim(fact_id="f1", **closed)  # stored before words were kept: cut by its value at read time
    assert closing_words(decided) == "I live in Lisbon and I'm a dental hygienist." and \
        closing_words(legacy) == "I live in Lisbon"
    assert current_view(_turn(text, [decided])).text == "Hi, I'm Sam."
    assert current_view(_turn(text, [legacy])).text == "Hi, I'm Sam. I'm a dental hygienist."


def test_an_older_store_gets_the_words_column_and_reads_its_rows_as_before(tmp_path):
    path = str(tmp_path / "old.db")
    m = Memory(path, embedder="hash")
    ev = m.add("Hi, I'm Sam. I live in Lisbon and I work as a nurse.", user_id="sam", timestamp=T1)
    turn = next(e.memory for e in ev if e.memory.kind == "utterance")
    assert sorted(c.words for c in m.get(turn.id).claims) == ["I live in Lisbon", "I work as a nurse."]
    m.close()
    db = sqlite3.connect(path)  # the file as v7 wrote it: no words column
    db.execute("ALTER TABLE claims DROP COLUMN words")
    db.execute("DROP TABLE enrich_queue")  # (v9)
    db.execute("PRAGMA user_version = 7")
    db.commit()
    db.close()
    m = Memory(path, embedder="hash")
    assert m.store._read("PRAGMA user_version", [])[0][0] == LATEST  # migrated to the newest schema
    assert [c.words for c in m.get(turn.id).claims] == ["", ""]
    m.add("I moved to Berlin.", user_id="sam", timestamp=T2)
    assert current_view(m.get(turn.id)).text == "Hi, I'm Sam. I work as a nurse."  # cut at read time, as before
    m.close()


def test_editing_a_fact_closes_its_old_words_on_the_turn_that_carried_them(mem_det):
    ev = mem_det.add("Hi, I'm Sam. I live in Lisbon and I work as a nurse.", user_id="sam", timestamp=T1)
    turn = next(e.memory for e in ev if e.memory.kind == "utterance")
    home = next(e.memory for e in ev if e.memory.fact and e.memory.fact.attribute == "home_city")
    mem_det.update(home.id, "I live in Porto.")
    now = mem_det.get(turn.id)
    assert now.current and sorted((c.value, c.valid_to is not None, c.superseded_by) for c in now.claims) == \
        [("Lisbon", True, home.id), ("nurse", False, None)]
    assert current_view(now).text == "Hi, I'm Sam. I work as a nurse."
    assert [c.words for c in mem_det.get(home.id).claims] == ["I live in Porto."]
    block = mem_det.context(user_id="sam", session_id="probe", query="Where do I live?")
    assert "Lisbon" not in block.sections[0].text and "I live in Porto." in block.sections[0].text


def test_an_assistant_turn_is_no_evidence_of_the_users_own_fact(mem_e5):
    mem_e5.add([{"role": "user", "content": "I live in Lisbon and work as a nurse."},
                {"role": "assistant", "content": "Nice! So you live in Lisbon and you're a nurse. Lisbon is lovely."}],
               user_id="u", session_id="s1", timestamp=T1)
    mem_e5.add([{"role": "user", "content": "I moved to Berlin last month."},
                {"role": "assistant", "content": "Got it, you now live in Berlin."}],
               user_id="u", session_id="s2", timestamp=T2)
    for q in ("Do I live in Lisbon?", "Where do I live?"):
        assert [c.text for c in mem_e5.ask(q, user_id="u").citations] == ["I moved to Berlin last month."]


def test_a_past_question_naming_other_words_of_the_old_turn_is_answered_from_it(mem_e5):
    mem_e5.add("我住北京回龙观，天天挤13号线，人都挤扁了。", user_id="u", timestamp=T1)
    mem_e5.add("终于逃离回龙观了！现在在望京租了个一居，骑车十分钟到公司。", user_id="u", timestamp=T2)
    ans = mem_e5.ask("之前天天挤13号线那会儿住哪？", user_id="u")
    assert [c.text for c in ans.citations] == ["我住北京回龙观，天天挤13号线，人都挤扁了。"]


def test_an_ending_keeps_the_job_said_before_it(mem_e5):
    mem_e5.add("我是开出租车的，每天晚上都要喝两杯啤酒。", user_id="u", timestamp=T1)
    mem_e5.add("酒我戒了，快半年没碰了。", user_id="u", timestamp=T2)
    turn = next(m for m in mem_e5.get_all(user_id="u") if m.kind == "utterance")
    assert turn.current and [c.words for c in turn.claims] == ["每天晚上都要喝两杯啤酒"]
    assert current_view(turn).text == "我是开出租车的。"


def test_a_count_change_keeps_the_names_said_in_the_same_sentence(mem_e5):
    mem_e5.add("I have two hamsters, 叫 Peanut 和 Mochi。", user_id="u", timestamp=T1)
    ev = mem_e5.add("又买了一只, so three hamsters now.", user_id="u", timestamp=T2)
    assert [(e.event, e.memory.text) for e in ev] == [  # (the count is read by the quantity reader: its clause)
        ("ADD", "又买了一只, so three hamsters now."), ("ADD", "又买了一只, so three hamsters now."),  # turn, fact
        ("SUPERSEDE", "I have two hamsters")]  # (the count's own fact: its clause ends at ", 叫", set17)
    turn = next(m for m in mem_e5.get_all(user_id="u") if m.kind == "utterance" and "Peanut" in m.text)
    # the names stay current, the old count does not; the piece keeps its sentence's subject so it reads alone
    assert current_view(turn).text == "I … 叫 Peanut 和 Mochi。"
    cited = [c.text for c in mem_e5.ask("What are my hamsters called?", user_id="u").citations]
    assert "I … 叫 Peanut 和 Mochi。" in cited
