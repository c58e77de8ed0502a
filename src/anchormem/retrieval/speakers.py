"""Speakers as a retrieval property: a question about a person is answered by what that person said.

"What do Melanie's kids like?" is answered by Melanie's own turns ("My kids love the beach"), while the turns of the
other speaker that name her ("How are your kids, Melanie?") share the question's words, name and all, and
outrank them. Who said a memory is stored with it (``MemoryItem.speaker``); :func:`speaker_factor` reads which of
the candidates' speakers the query names (:func:`named_speakers`) and weighs each candidate by its speaker:

    final ·= 1                      the memory was said by a person the query names, or has no speaker
    final ·= 1 - speaker_weight     it was said by another speaker

The rule applies only when the query names some but not all of the candidates' speakers (a question naming both
people of a conversation, or none of them, leaves the order alone), and a memory without a speaker is never
weighed down. Names are matched as whole words (CJK names as substrings); a capitalised name matches only as
written unless the whole query is lower case ("will" is not "Will"). No store read, no embedding: the candidates'
speakers are already loaded.

Measured on LoCoMo (dev conversations 0-5): when a question names one of the two speakers, 97% of its evidence
turns are that speaker's own (multi-hop 419 of 433, temporal 190/195, open-domain 89/89, single-hop 415/436); the
adversarial category asks about the other person by design (68 of 276).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from ..text.tokenize import has_cjk

__all__ = ["named_speakers", "speaker_factor"]


@lru_cache(maxsize=4096)
def _name_pattern(name: str, fold: bool) -> re.Pattern[str]:
    if has_cjk(name):
        return re.compile(re.escape(name))
    return re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)", re.IGNORECASE if fold else 0)


def named_speakers(query: str, speakers: Iterable[str]) -> set[str]:
    """The ``speakers`` (names as stored) that ``query`` names: whole-word matches (a CJK name: a substring); a name
    with capitals matches case-insensitively only when ``query`` has no capital letter. Empty names are ignored."""
    fold = query == query.lower()
    out: set[str] = set()
    for name in speakers:
        name = name.strip() if name else ""
        if name and _name_pattern(name, fold or name == name.lower()).search(query):
            out.add(name)
    return out


def speaker_factor(query: str, speakers: Iterable[str | None], weight: float) -> dict[str, float]:
    """The factor per speaker for a search of ``query`` over candidates said by ``speakers`` (None: no speaker):
    ``{speaker: 1 - weight}`` for each speaker the query does not name, when it names at least one of them and not
    all; ``{}`` (no change) otherwise, or when ``weight`` is 0. Speakers missing from the result weigh 1."""
    if weight <= 0:
        return {}
    known = {s.strip() for s in speakers if s and s.strip()}
    if len(known) < 2:
        return {}
    named = named_speakers(query, known)
    if not named or named == known:
        return {}
    return {s: 1.0 - weight for s in known - named}
