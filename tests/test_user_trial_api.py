"""What a new user hit on a clean clone (brief "api"): dated questions in other forms, rank-defining scores, empty
queries, values that stop at a time phrase, slot-aware currency order, the facade's split, expiry that reopens, and
retrieval keys kept by update and import."""

from __future__ import annotations

import inspect
from datetime import datetime, timedelta, timezone

import pytest

from anchormem import InvalidInputError, Memory
from anchormem.answering.evidence import DATE_TERM, analyze_question
from anchormem.answering.question_dates import question_date
from anchormem.facts.rules import extract_from_text, time_cut
from anchormem.memory_lifecycle import LifecycleMixin

T = datetime(2025, 1, 3, 10, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def dated():
    m = Memory(":memory:", cache=False, llm=None)
    m.add("I bought a red bicycle for my commute.", user_id="u", timestamp="2025-01-10T10:00:00Z")
    m.add("I started learning to play the cello.", user_id="u", timestamp="2025-02-14T10:00:00Z")
    m.add("My sister visited me and we went hiking.", user_id="u", timestamp="2025-03-03T10:00:00Z")
    yield m
    m.close()


@pytest.mark.parametrize("q, date", [
    ("What did I say on 2025-01-10?", (2025, 1, 10)),
    ("What did I say on 10 January 2025?", (2025, 1, 10)),
    ("What did I tell you on January 10th?", (None, 1, 10)),
    ("1月10号我说了什么", (None, 1, 10)),
    ("2025年1月10日我提到了什么？", (2025, 1, 10)),
    ("2025年1月10日我做了什么？", (2025, 1, 10)),
])
def test_a_date_in_any_form_is_the_questions_one_key_term(dated, q, date):
    assert question_date(q)[0] == date
    assert [t for t, _ in analyze_question(q).terms] == [DATE_TERM]  # "say", "说", "提到" ask, they name nothing
    ans = dated.ask(q, user_id="u")
    assert not ans.abstained and [c.text for c in ans.citations] == ["I bought a red bicycle for my commute."]


def test_a_month_question_and_a_day_with_nothing_said_then(dated):
    ans = dated.ask("What happened in February?", user_id="u")
    assert [c.text for c in ans.citations] == ["I started learning to play the cello."]
    assert dated.ask("What did I say on 2025-05-05?", user_id="u").abstained  # nothing said that day
    # a dated question that names something keeps it: the date alone does not answer it
    assert [t for t, _ in analyze_question("What did I buy on 2025-01-10?").terms] == ["buy", DATE_TERM]


def test_empty_or_blank_queries_raise_everywhere(dated):
    for q in ("", "   ", "\n\t"):
        with pytest.raises(InvalidInputError, match="query: empty text"):
            dated.ask(q, user_id="u")
        with pytest.raises(InvalidInputError, match="query: empty text"):
            dated.search(q, user_id="u")
        with pytest.raises(InvalidInputError, match="query: empty text"):
            dated.context(user_id="u", session_id="s", query=q)
    assert dated.ask("???", user_id="u").abstained  # a question without a word still abstains


@pytest.mark.parametrize("text, value", [
    ("I finally moved to 上海 last month", "上海"),
    ("I moved to Berlin 上个月", "Berlin"),
    ("我上个月终于搬到了Berlin", "Berlin"),
    ("I moved to 深圳 in March 2024", "深圳"),
    ("I moved to Lisbon 3 weeks ago", "Lisbon"),
    ("I work at 腾讯 since last year", "腾讯"),
    ("I live in New York", "New York"),
    ("I moved to 上海, it is great", "上海"),  # a clause boundary, whatever the script of the value
    ("I moved to 上海 because of work", "上海"),
    ("I moved to 上海。 It is nice", "上海"),
    ("我搬到了Berlin, and I love it", "Berlin"),
])
def test_a_value_stops_at_a_time_phrase_in_either_script(text, value):
    assert [f.value for f in extract_from_text(text)] == [value]


def test_time_cut_keeps_a_value_that_starts_with_time_words():
    assert time_cut("上海最近") == "上海" and time_cut("现在的公司") == "现在的公司"


def _moves(m: Memory, user: str) -> None:
    m.add("I live in Lisbon and I'm a nurse", user_id=user, timestamp=T)
    m.add("I moved to Berlin", user_id=user, timestamp=T + timedelta(days=60))


def test_scores_are_rank_defining_and_the_asked_slot_decides_the_currency_order():
    with Memory(":memory:", cache=False, llm=None) as m:
        _moves(m, "w")
        home = m.search("Where do I live?", user_id="w")
        assert [h.memory.text for h in home] == ["I moved to Berlin", "I live in Lisbon and I'm a nurse"]
        assert [h.score for h in home] == sorted((h.score for h in home), reverse=True)
        assert home[0].score == home[1].score and home[0].explain["own_score"] < home[1].score
        # the job is not the superseded slot: the nurse memory ranks on its own merit, no successor put first
        job = m.search("What is my job?", user_id="w")
        assert job[0].memory.text == "I live in Lisbon and I'm a nurse" and "successor_of" not in job[1].explain
        assert [h.score for h in job] == sorted((h.score for h in job), reverse=True)


def test_a_chain_of_moves_puts_the_value_holding_now_first():
    with Memory(":memory:", cache=False, llm=None) as m:
        _moves(m, "c")
        m.add("I moved to Paris", user_id="c", timestamp=T + timedelta(days=120))
        hits = m.search("Where do I live?", user_id="c")
        assert hits[0].memory.text == "I moved to Paris"
        lisbon = next(i for i, h in enumerate(hits) if h.memory.text.startswith("I live in Lisbon"))
        assert lisbon > 0
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_a_partly_superseded_memory_without_its_successor_in_scope_goes_last_for_its_slot():
    with Memory(":memory:", cache=False, llm=None) as m:
        m.add("I live in Lisbon and I'm a nurse", user_id="s", session_id="a", timestamp=T)
        m.add("I drink green tea every morning and I live well", user_id="s", session_id="a",
              timestamp=T + timedelta(days=1))
        m.add("I moved to Berlin", user_id="s", session_id="b", timestamp=T + timedelta(days=60))
        hits = m.search("Where do I live?", user_id="s", session_id="a")
        assert hits[-1].memory.text == "I live in Lisbon and I'm a nurse" and len(hits) == 2


def test_the_facade_is_split_and_keeps_every_public_signature():
    for name in ("due", "complete", "review_queue", "approve", "reject", "expired", "gc", "archive", "restore",
                 "consolidate", "user_summary"):
        assert getattr(Memory, name) is getattr(LifecycleMixin, name)
        assert name not in vars(Memory)
    assert list(inspect.signature(Memory.gc).parameters) == ["self", "user_id", "now", "dry_run", "purge",
                                                             "progress"]


def test_an_expired_successor_reopens_what_it_closed():
    with Memory(":memory:", embedder="hash", cache=False, llm=None) as m:
        first = m.add("I live in Lisbon", user_id="e", timestamp=T)
        m.add("I moved to Berlin", user_id="e", timestamp=T + timedelta(days=10),
              metadata={"expires_at": (T + timedelta(days=20)).isoformat()})
        lisbon = first[0].memory.id
        assert m.get(lisbon).valid_to is not None
        counts = m.gc(user_id="e", now=T + timedelta(days=30))
        assert counts["memories"] >= 1
        assert m.get(lisbon).valid_to is None and m.get(lisbon).superseded_by is None
        assert [h.event for h in m.history(lisbon)][-1] == "REOPEN"
        assert [h.memory.text for h in m.search("Where do I live?", user_id="e")][:1] == ["I live in Lisbon"]


def _body(m: Memory, mid: str) -> str:
    return m.store._read("SELECT body FROM memories_fts f JOIN memories x ON x.rowid = f.rowid WHERE x.id = ?",
                         (mid,))[0][0]


def test_retrieval_keys_survive_update_and_portable_import():
    with Memory(":memory:", embedder="hash", cache=False, llm=None) as m:
        ev = m.add([{"role": "assistant", "content": "What instrument are you learning?", "name": "Bot"},
                    {"role": "user", "content": "Since last Saturday, it is so fun!", "name": "Ann"}],
                   user_id="u", session_id="s", timestamp="2023-05-08T10:00:00Z")
        mid = next(e.memory.id for e in ev if e.memory.role == "user")
        written = _body(m, mid)
        assert "instrument" in written and "6 may 2023 saturday" in written  # reply and date keys
        m.update(mid, "Since last Saturday, it is so much fun!")
        assert _body(m, mid) == written.replace("so fun", "so much fun")
        assert mid in [h.memory.id for h in m.search("instrument learning", user_id="u", recipe="hybrid_rrf")]
        doc = m.export(user_id="u")
        with Memory(":memory:", embedder="hash", cache=False, llm=None) as m2:
            m2.import_memories(doc)
            assert _body(m2, mid) == _body(m, mid)
