"""Issue #22: what ``ask`` may cite. A question the user asked states nothing and is never the evidence of an
answer (a search still finds it); one text is one citation (a fact and its turn in the same words: the turn)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from anchormem.answering.extractive import asks_question, cited_once, quote
from anchormem.types import Answer, FactSlot, MemoryItem

T1 = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


def _m(id_: str, text: str, kind: str = "utterance", **kw) -> MemoryItem:
    return MemoryItem(**{"id": id_, "text": text, "user_id": "u", "kind": kind, "created_at": T1, "valid_from": T1,
                         **kw})


def test_a_question_that_only_asks_is_no_evidence():
    asked = [_m("q1", "Should I move to Berlin?", "question"), _m("q2", "How does the customer prefer to be "
                                                                 "contacted?", "question"),
             _m("q3", "我应该搬到上海吗？", "question"), _m("q4", "Wow! What got you into running?", "question")]
    stating = [_m("s1", "I got a job offer in Munich. Should I take it?", "question"),
               _m("s2", "I live in Lisbon.", "fact")]
    assert [asks_question(m) for m in asked + stating] == [True, True, True, True, False, False]
    ans = Answer(text=" ".join(quote(m) for m in [asked[0], stating[1]]), citations=[asked[0], stating[1]])
    kept = cited_once(ans, "Where do I live?")  # whatever path put the question there, it goes with its quote
    assert [m.id for m in kept.citations] == ["s2"] and kept.text == 'On 2024-01-01, you said: "I live in Lisbon."'
    alone = cited_once(Answer(text=quote(asked[2], zh=True), citations=[asked[2]]), "我应该搬到上海吗？")
    assert alone.abstained and alone.citations == [] and alone.text == "我没有这方面的记录。"


def test_ask_never_cites_the_users_question_though_search_finds_it(mem_det):
    for i, t in enumerate(["Should I move to Berlin?", "How does the customer prefer to be contacted?",
                           "I live in Lisbon and I work as a nurse.", "我应该搬到上海吗？"]):
        mem_det.add(t, user_id="u", timestamp=T1 + timedelta(days=i))
    for q in ["Should I move to Berlin?", "How does the customer prefer to be contacted?", "Where do I live?",
              "我应该搬到上海吗？", "Berlin"]:
        assert all(c.kind != "question" for c in mem_det.ask(q, user_id="u").citations), q
    assert "Should I move to Berlin?" in [h.memory.text for h in mem_det.search("move to Berlin", user_id="u")]


def test_a_fact_and_its_turn_in_the_same_words_are_one_citation_the_turn():
    turn = _m("t1", "I work at a hospital as a nurse.", source_message_ids=["msg1"])
    job = _m("f1", "I work at a hospital as a nurse.", "fact", source_message_ids=["msg1"],
             fact=FactSlot(entity="user", attribute="occupation", value="nurse"))
    other = _m("f2", "I live in Lisbon.", "fact")
    ans = Answer(text=" ".join(quote(m) for m in (job, other, turn)), citations=[job, other, turn])
    one = cited_once(ans, "What do I do?")
    assert [m.id for m in one.citations] == ["t1", "f2"]
    assert one.text == 'On 2024-01-01, you said: "I work at a hospital as a nurse." On 2024-01-01, you said: ' \
                       '"I live in Lisbon."'
    again = _m("t2", "I work at a hospital as a nurse.", created_at=T1 + timedelta(days=9))  # said again later
    ans = Answer(text=quote(turn) + " " + quote(again), citations=[turn, again])
    assert cited_once(ans, "What do I do?") == ans


def test_a_question_about_what_the_user_asked_cites_the_users_question():
    """A question the user asked is no evidence, except for a question about what they asked (asking_words of
    data/lang/<lang>/answers.json): a support agent's "What did I ask about returns?"."""
    from anchormem import Memory

    m = Memory(":memory:")
    m.add("Can I return an opened kettle?", user_id="c", timestamp="2026-10-01T10:00:00Z")
    m.add("My order number is A1234 and it arrived damaged.", user_id="c", timestamp="2026-10-01T10:01:00Z")
    ans = m.ask("What did I ask about returns?", user_id="c")
    assert [c.text for c in ans.citations] == ["Can I return an opened kettle?"]
    assert m.ask("Can I return the kettle?", user_id="c").abstained  # a question is still no answer to itself
    m.close()
