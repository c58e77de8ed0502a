"""The made-up word "zorb" in two senses (a pet fish, a frying oil), one session each, among unrelated sessions: a
word no lexicon knows, for the anchoring tests that read the conversation against the sessions holding it."""

from __future__ import annotations

from anchormem import Memory

_OTHERS = [("We repainted the kitchen a pale green.", "The landlord agreed to pay for the paint."),
           ("My sister starts her new job in Leeds on Monday.", "She is nervous about the commute."),
           ("I renewed my passport at the post office.", "The photo booth was broken so I went twice."),
           ("Our team lost the quiz night by two points.", "The last round was about eighties films."),
           ("I have a dentist appointment on Thursday.", "The filling on the left side came loose."),
           ("The train to Manchester was cancelled again.", "I got a refund for the ticket."),
           ("I started learning the guitar online.", "My fingertips hurt after twenty minutes.")]


def turns(*texts: str) -> list[dict]:
    return [{"role": "user", "content": t} for t in texts]


def zorb_store(others: int = len(_OTHERS)) -> Memory:
    """An in-memory store of user "u": session "fish", session "oil" and the first ``others`` unrelated sessions."""
    m = Memory(":memory:", cache=False)
    m.add(turns("My zorb in the big tank has stopped eating this week.",
                "The pet shop said I change the water too often.",
                "I added a heater and some plants to the aquarium."), user_id="u", session_id="fish")
    m.add(turns("The supermarket had zorb on sale, the five litre bottles.", "I bought two of them for frying.",
                "It smokes less than the oil we used before."), user_id="u", session_id="oil")
    for i, t in enumerate(_OTHERS[:others]):
        m.add(turns(*t), user_id="u", session_id=f"other{i}")
    return m
