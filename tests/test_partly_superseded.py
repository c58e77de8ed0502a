"""Issue #22 item 1: a memory whose claims are all superseded is closed; one that says something else as well stays
current for it (never cited for the superseded slot). Clauses that refer back to the old value (there, 那里) or name
it go with it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.facts.claims import remainder

T = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize("text, closed, values, left", [
    ("我住在成都武侯区，在一家银行做柜员。", ["我住在成都武侯区"], [], "在一家银行做柜员。"),
    ("I live in Lisbon. The light there is lovely.", ["I live in Lisbon."], [], None),
    ("我住在成都，那里的火锅很好吃。", ["我住在成都"], [], None),
    ("I live in Lisbon now.", ["I live in Lisbon"], [], None),  # filler is no content
    ("I quit Google and joined Meta.", ["joined Meta."], ["Google"], None),  # names the old value
    ("Hi, I am Sam. I live in Lisbon.", ["I live in Lisbon."], [], "Hi, I am Sam."),
])
def test_remainder(text, closed, values, left):
    assert remainder(text, closed, values=values) == left


def test_a_closed_claim_never_takes_the_words_of_a_claim_still_holding():
    """The employer's claim "I work as a pharmacist at Boots" closes while the occupation's "I work as a pharmacist"
    holds: the occupation's words stay (they once went with the employer's, leaving "Hi, quick intro")."""
    text = ("Hi, quick intro: I live in Leeds, I work as a pharmacist at Boots, my rent is 850 pounds a month, "
            "and I have two dogs.")
    closed = ["I live in Leeds", "I work as a pharmacist at Boots", "my rent is 850 pounds a month",
              "I have two dogs"]
    assert remainder(text, closed, ["I work as a pharmacist"], ["Leeds", "Boots", "850 pounds", "two"]) == \
        "Hi, quick intro: I work as a pharmacist."
    assert remainder("我住在杭州，在阿里做前端开发。", ["我住在杭州，在阿里做前端开发"], ["做前端开发"], ["杭州"]) == \
        "做前端开发。"


@pytest.fixture(scope="module")
def moved():
    m = Memory(":memory:", cache=False)
    first = m.add("我住在成都武侯区，在一家银行做柜员。", user_id="u", timestamp=T)
    m.add("我搬到重庆了。", user_id="u", timestamp=T + timedelta(days=30))
    yield m, first
    m.close()


def test_a_one_sentence_turn_saying_more_than_its_fact_keeps_its_utterance(moved):
    m, first = moved
    assert [(e.event, e.memory.kind, e.memory.text) for e in first] == [
        ("ADD", "utterance", "我住在成都武侯区，在一家银行做柜员。"), ("ADD", "fact", "我住在成都武侯区"),
        ("ADD", "fact", "在一家银行做柜员。"), ("ADD", "fact", "在一家银行")]  # (the job clause's title and employer
    # are facts of their own, as "I work at a bank as a teller" gives both: anchormem.facts.jobs)
    turn = m.get(first[0].memory.id)
    assert turn.valid_to is None  # the home moved; the job clause still holds
    assert [(c.value, c.valid_to is not None) for c in turn.claims] == [("成都武侯区", True), ("银行", False),
                                                                        ("柜员", False)]
    assert m.get(first[1].memory.id).valid_to == T + timedelta(days=30)


def test_the_rest_is_findable_and_never_cited_for_the_superseded_slot(moved):
    m, _ = moved
    ans = m.ask("我在银行做什么？", user_id="u")
    assert ans.text == "2024-01-01，你说过：“我…在一家银行做柜员。”"  # (the piece with its sentence's subject)
    home = m.ask("我住在哪里？", user_id="u")
    assert [c.text for c in home.citations] == ["我搬到重庆了。"]
    block = m.context(user_id="u", session_id="s", query="我住在哪里？", show_ids=False).text
    assert "在一家银行做柜员。" in block and "成都" not in block


def test_a_back_reference_goes_with_the_old_value_and_the_rest_stays():
    with Memory(":memory:", cache=False) as m:
        m.add("I live in Lisbon. The light there is lovely.", user_id="a", timestamp=T)
        m.add("I live in Porto and I teach yoga on weekends.", user_id="b", timestamp=T)
        for u in ("a", "b"):
            m.add("I moved to Berlin.", user_id=u, timestamp=T + timedelta(days=30))
        assert [x.text for x in m.get_all(user_id="a")] == ["I moved to Berlin."]
        assert m.ask("What do I do on weekends?", user_id="b").text == \
            'On 2024-01-01, you said: "I teach yoga on weekends."'


def test_a_change_that_names_the_old_value_keeps_no_extra_utterance():
    with Memory(":memory:", cache=False) as m:
        m.add("I work at Google.", user_id="u", timestamp=T)
        ev = m.add("I quit Google and joined Meta.", user_id="u", timestamp=T + timedelta(days=30))
        assert [e.memory.kind for e in ev if e.event == "ADD"] == ["fact"]
