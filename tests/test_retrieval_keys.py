"""Write-time retrieval keys (anchormem.ingest.keys) and the multi-hop second round (anchormem.retrieval.hops)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem import ConfigError, Memory
from anchormem.ingest.keys import DEFAULT_KEY_KINDS, KEY_KINDS, KeyTurn, date_keys, parse_key_kinds, retrieval_keys
from anchormem.retrieval.config import RECIPES, SearchConfig
from anchormem.retrieval.hops import hop_terms
from anchormem.text.dates import resolve_dates

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)  # a Monday


def _turns(*pairs: tuple[str, str]) -> list[KeyTurn]:
    return [KeyTurn(text, who, [resolve_dates(text, SAID)]) for who, text in pairs]


def test_parse_key_kinds():
    assert parse_key_kinds("all") == frozenset(KEY_KINDS)
    assert parse_key_kinds("default") == frozenset(DEFAULT_KEY_KINDS) == {"reply", "names", "dates"}
    assert parse_key_kinds("off") == frozenset() == parse_key_kinds("")
    assert parse_key_kinds("reply, dates") == {"reply", "dates"}
    with pytest.raises(ConfigError, match="unknown index key kind"):
        parse_key_kinds("reply,meaning")


def test_reply_names_dates():
    turns = _turns(("Melanie", "Hey Caroline! Did you go to the LGBTQ support group?"),
                   ("Caroline", "Yes, last Saturday, I went and it was so powerful!"))
    keys = retrieval_keys(turns, frozenset({"reply", "names", "dates"}))
    # the question it answers (speakers' names left out of the reply words), herself ("I"), the resolved date
    assert keys[1][0] == "hey go lgbtq support group Caroline 6 May 2023 Saturday 2023年5月6日"
    # Melanie's turn addresses Caroline ("you"); it answers nothing (first turn)
    assert keys[0][0] == "Caroline"


def test_self_names_the_speaker_only():
    turns = _turns(("Melanie", "Hey Caroline! Did you go to the LGBTQ support group?"),
                   ("Caroline", "Yes, last Saturday, I went and you would have loved it!"))
    keys = retrieval_keys(turns, frozenset({"self"}))
    # a turn speaking to Caroline is not indexed under her name; a turn saying "I" is under its speaker's
    assert keys[0][0] == ""
    assert keys[1][0] == "Caroline"
    assert retrieval_keys(turns, frozenset({"names"}))[1][0] == "Caroline Melanie"


def test_reply_keys_exact_words():
    turns = _turns(("A", "Where did you buy the ceramic bowl?"), ("B", "At the market downtown."),
                   ("A", "Nice market."))
    assert retrieval_keys(turns, frozenset({"reply"})) == [[""], ["buy ceramic bowl"], [""]]  # B asked nothing
    assert retrieval_keys(turns, frozenset({"context"}))[2] == ["downtown"]  # any previous turn's new words


def test_chinese_addressee_and_topic():
    turns = _turns(("小王", "你周末去爬山了吗？"), ("小李", "去了，我们爬了香山，香山的红叶很美。"),
                   ("小王", "香山的红叶我也想去看"), ("小李", "下次一起去香山"))
    keys = retrieval_keys(turns, frozenset({"names", "topic"}))
    assert keys[0][0].split()[0] == "小李"  # 你 → the other speaker
    assert "小李" in keys[1][0].split()  # 我 → the speaker
    assert "香山" in keys[3][0].split()  # shared by three turns: the session's topic


def test_date_keys_skip_ranges():
    assert date_keys(resolve_dates("last week", SAID)) == []
    assert date_keys(resolve_dates("yesterday", SAID)) == ["7 May 2023 Sunday 2023年5月7日"]


def _mem(keys: str) -> Memory:
    mem = Memory(":memory:", embedder="hash", index_keys=keys)
    mem.add([{"role": "user", "name": "Melanie", "content": "Did you end up going to the pottery workshop?"},
             {"role": "user", "name": "Caroline", "content": "Yes! It was so relaxing, I made a bowl."},
             {"role": "user", "name": "Melanie", "content": "Nice, my kids love dinosaurs lately."}],
            user_id="u", timestamp=SAID)
    return mem


def test_reply_found_by_the_question_it_answers():
    answer = "Yes! It was so relaxing, I made a bowl."
    with _mem("all") as mem:
        assert answer in [h.memory.text for h in mem.search("How was the pottery workshop?", user_id="u",
                                                             recipe="bm25")]
    with _mem("off") as mem:  # without keys only the question's own turn names the workshop
        texts = [h.memory.text for h in mem.search("How was the pottery workshop?", user_id="u", recipe="bm25")]
        assert texts == ["Did you end up going to the pottery workshop?"]


def test_hop_terms_order():
    texts = ["Melanie loves pottery and painting", "painting class on Tuesday", "pottery kiln"]
    assert hop_terms(texts, {"melanie"}, 3) == ["pottery", "painting", "loves"]


def test_second_round_reaches_evidence_without_query_words():
    mem = Memory(":memory:", embedder="hash", index_keys="off")
    for text in ("Melanie loves painting sunsets by the lake.", "The painting class meets every Tuesday evening.",
                 "The car needs new tyres."):
        mem.add(text, user_id="u", timestamp=SAID)
    q = "What does Melanie love?"
    base = RECIPES["bm25"]
    one = [h.memory.text for h in mem.search(q, user_id="u", recipe=base)]
    assert one == ["Melanie loves painting sunsets by the lake."]
    two = [h.memory.text for h in mem.search(q, user_id="u", recipe=SearchConfig(**{**base.model_dump(),
                                                                                    "hops": 1}))]
    assert two == ["Melanie loves painting sunsets by the lake.", "The painting class meets every Tuesday evening."]
    mem.close()


def test_no_second_round_for_a_question_about_the_past():
    mem = Memory(":memory:", embedder="hash", llm=None)
    mem.add("Hi, I'm Sam. I live in Lisbon and I work as a nurse at Santa Maria hospital.", user_id="u",
            timestamp="2024-01-10T10:00:00Z")
    mem.add("I moved to Berlin last month.", user_id="u", timestamp="2024-03-10T10:00:00Z")
    hops = SearchConfig(**{**RECIPES["anchored"].model_dump(), "hops": 1})
    hits = mem.search("Did I ever live in Lisbon?", user_id="u", recipe=hops)
    assert hits[0].memory.text == "I live in Lisbon" and hits[0].explain["past"] == "until 2024-03"
    mem.close()


def test_reply_keys_when_an_agent_adds_one_turn_per_call():
    """The question a reply answers was stored by the call before: the reply still gets its words."""
    answer = "Yes! It was so relaxing, I made a bowl."
    turns = [("Melanie", "Did you end up going to the pottery workshop?"), ("Caroline", answer)]
    for session in ("s1", None):
        with Memory(":memory:", embedder="hash", index_keys="default") as mem:
            for name, text in turns:
                mem.add([{"role": "user", "name": name, "content": text}], user_id="u", session_id=session,
                        timestamp=SAID)
            texts = [h.memory.text for h in mem.search("How was the pottery workshop?", user_id="u",
                                                       recipe="bm25")]
            # in a session the stored question precedes the reply; without one there is no order to rely on
            assert (answer in texts) is (session is not None), (session, texts)


def test_no_reply_keys_from_a_later_stored_turn():
    """An older turn imported after a newer one is not keyed by it."""
    from datetime import timedelta

    with Memory(":memory:", embedder="hash", index_keys="default") as mem:
        mem.add([{"role": "user", "name": "Melanie", "content": "Did you go to the pottery workshop?"}],
                user_id="u", session_id="s1", timestamp=SAID)
        mem.add([{"role": "user", "name": "Caroline", "content": "Yes! I made a bowl."}], user_id="u",
                session_id="s1", timestamp=SAID - timedelta(hours=1))
        texts = [h.memory.text for h in mem.search("pottery workshop", user_id="u", recipe="bm25")]
        assert texts == ["Did you go to the pottery workshop?"]


def test_no_reply_keys_between_two_turns_of_one_unnamed_user():
    """A user's own question is not what their next turn answers: "Should I quit my job?" then "My sister's rent
    went up." keeps "job" out of the rent turn's keys (so "What is my job?" does not find it by that word), while an
    assistant's question still keys the user's reply, and named speakers still count as two parties."""
    user = [KeyTurn("Should I quit my job?", None, role="user"),
            KeyTurn("My sister's rent went up to 1200 pounds.", None, role="user")]
    assert retrieval_keys(user, frozenset({"reply"})) == [[""], [""]]
    asked = [KeyTurn("Which job did you take?", None, role="assistant"),
             KeyTurn("The one at the pharmacy.", None, role="user")]
    assert retrieval_keys(asked, frozenset({"reply"}))[1] == ["job take"]
    named = [KeyTurn("Did you go to the pottery workshop?", "Melanie", role="user"),
             KeyTurn("Yes! I made a bowl.", "Caroline", role="user")]
    assert retrieval_keys(named, frozenset({"reply"}))[1] == ["go pottery workshop"]
    with Memory(":memory:", embedder="hash", index_keys="default") as mem:
        for text in ("Should I quit my job?", "My sister's rent went up to 1200 pounds."):
            mem.add(text, user_id="u", session_id="s1", timestamp=SAID)
        texts = [h.memory.text for h in mem.search("What is my job?", user_id="u", recipe="bm25")]
        assert texts == ["Should I quit my job?"]
