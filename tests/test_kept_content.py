"""Issue #22 (kept13): the other content of a turn stays answerable after one of its facts changes, and is never
cited for the changed slot.

- a clause that refers back to the old value ("here", "it") takes only its own sub-clause with it: a sub-clause of
  its own about a person, a pet or a name stays (:func:`anchormem.facts.claims.remainder`);
- a partly superseded memory's current view is judged by the cosine of its own remaining words, not left without
  one (:func:`anchormem.retrieval.currency.evidence_hits`);
- ", affectionately." ends a sentence: a lowercase word addresses no one (:func:`anchormem.answering.persons.
  stated_text`).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.answering.persons import stated_text
from anchormem.facts.claims import remainder
from anchormem.retrieval.currency import evidence_hits
from anchormem.types import Claim, Hit, MemoryItem

T = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize("text, closed, left", [
    # the back reference's sub-clause goes; the partner and the dog are said of their own
    ("I'm in Austin, been here about five years with my partner and our dog Pickles.", ["I'm in Austin"],
     "my partner and our dog Pickles."),
    # "so she sleeps thru it" refers back; "Mei works nights at the hospital" does not
    ("We live in Leeds. Mei works nights at the hospital so she sleeps thru it somehow.", ["We live in Leeds."],
     "Mei works nights at the hospital."),
    # nothing of its own beside the back reference: wholly superseded, as before
    ("I live in Lisbon. The light there is lovely.", ["I live in Lisbon."], None),
    ("I live in Rome. It is hot and lovely.", ["I live in Rome."], None),
    ("我住在成都，那里的火锅很好吃。", ["我住在成都"], None),
])
def test_a_back_reference_takes_only_its_own_sub_clause(text, closed, left):
    assert remainder(text, closed) == left


def test_a_lowercase_word_after_a_comma_addresses_no_one():
    assert stated_text("Miso and Tofu. Tofu is the dumb one, affectionately.", about_speaker=True) == \
        "Miso and Tofu. Tofu is the dumb one, affectionately."
    assert stated_text("That sounds great, Mel!", about_speaker=True) == ""  # a name addressed: not the speaker's


def _partly(text: str, closed_span: str, value: str) -> Hit:
    c = Claim(fact_id="f1", slot="user|home_city", value=value, span=closed_span, said_at=T, valid_from=T,
              valid_to=T + timedelta(days=9),
              superseded_by="f2")
    item = MemoryItem(id="m1", text=text, user_id="u", kind="utterance", created_at=T, valid_from=T,
                      claims=[c])
    return Hit(memory=item, score=1.0, explain={"dense": 0.9})


def test_a_current_view_is_judged_by_its_own_cosine():
    hit = _partly("I live in Lisbon and I teach yoga on weekends.", "I live in Lisbon", "Lisbon")
    seen: list[str] = []

    def cosines(items):
        seen.extend(m.text for m in items)
        return [0.42 for _ in items]

    _, out = evidence_hits("What do I teach?", [hit], cosines=cosines)
    assert seen == ["I teach yoga on weekends."]
    assert [(h.memory.text, h.explain["dense"], h.explain["view"]) for h in out] == \
        [("I teach yoga on weekends.", 0.42, "current")]
    _, bare = evidence_hits("What do I teach?", [hit])  # without an embedder: judged by its words only
    assert bare[0].explain["dense"] is None


def test_the_other_content_stays_answerable_and_never_answers_the_changed_slot():
    with Memory(":memory:", cache=False) as m:
        m.add("I'm in Austin, been here about five years with my partner and our dog Pickles.", user_id="u",
              timestamp=T)
        m.add("we're Denver people now lol, the altitude is killing me", user_id="u", timestamp=T + timedelta(days=60))
        first = [x for x in m.get_all(user_id="u", include_superseded=True) if "Pickles" in x.text]
        assert [x.valid_to for x in first if x.kind == "utterance"] == [None]  # still current for the dog
        dog = m.ask("What's my dog's name?", user_id="u")
        assert [c.text for c in dog.citations] == ["my partner and our dog Pickles."]
        home = m.ask("Where do I live?", user_id="u")
        assert "Austin" not in home.text
        assert "Austin" not in m.context(user_id="u", session_id="s", query="Where do I live?", show_ids=False).text
