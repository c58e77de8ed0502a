"""Speakers as a retrieval property: a question about a person is answered by what that person said.

"What do Melanie's kids like?" is answered by Melanie's own turns ("My kids love the beach"), while the turns of the
other speaker that name her ("How are your kids, Melanie?") share the question's words, name and all, and
outrank them. Who said a memory is stored with it (``MemoryItem.speaker``); :func:`speaker_factor` reads which of
the candidates' speakers the query names (:func:`named_speakers`) and weighs each candidate by its speaker:

    final ·= 1                      the memory was said by a person the query names, or has no speaker
    final ·= 1 - speaker_weight     it was said by another speaker (with ``mentions``: and it names a person the
                                    query names, or addresses someone: "you", "your" (data/lang/*/keys.json))

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
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import lru_cache
from typing import Any

from ..filters import And, Cond, FilterNode
from ..ingest.keys import pronoun_pattern
from ..langdata import words
from ..text.tokenize import has_cjk

__all__ = ["SpeakerRule", "named_speakers", "speaker_rule", "own_lists", "unnamed_query", "unnamed_lists"]


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


class SpeakerRule:
    """The weight of each candidate by who said it, for one query: ``named`` (the speakers the query names),
    ``factor`` (1 - speaker_weight) and ``mentions`` (only another speaker's memories that mention a named person or
    address someone are weighed)."""

    __slots__ = ("named", "factor", "mentions", "_names")

    def __init__(self, named: set[str], factor: float, mentions: bool) -> None:
        self.named = named
        self.factor = factor
        self.mentions = mentions
        self._names = [_name_pattern(n, n == n.lower()) for n in sorted(named)]

    def weight(self, speaker: str | None, text: str) -> float:
        """The factor of a memory said by ``speaker`` (None: unknown) with ``text``: in (0, 1]."""
        if not speaker or speaker.strip() in self.named:
            return 1.0
        if self.mentions and not (any(p.search(text) for p in self._names)
                                  or pronoun_pattern("second_person").search(text)):
            return 1.0
        return self.factor


def speaker_rule(query: str, speakers: Iterable[str | None], weight: float, *, mentions: bool = False
                 ) -> SpeakerRule | None:
    """The :class:`SpeakerRule` for a search of ``query`` over candidates said by ``speakers`` (None: no speaker)
    when ``weight`` > 0, at least two speakers are known and the query names at least one of them and not all;
    None (no change) otherwise."""
    if weight <= 0:
        return None
    known = {s.strip() for s in speakers if s and s.strip()}
    if len(known) < 2:
        return None
    named = named_speakers(query, known)
    if not named or named == known:
        return None
    return SpeakerRule(named, 1.0 - weight, mentions)


Ranked = list[tuple[str, float]]


def _named_among(store: Any, scope: Any, peek: list[str], query: str) -> tuple[dict[str, Any], set[str]]:
    """(the rows of ``peek``, the speakers among them that ``query`` names), the second empty unless the rows hold two
    speakers or more and the query names some but not all of them."""
    rows = store.get_many(scope.tenant, peek, entities=False)
    known = {it.speaker.strip() for it in rows.values() if it.speaker and it.speaker.strip()}
    if len(known) < 2:
        return rows, set()
    named = named_speakers(query, known)
    return rows, (set() if not named or named == known else set(named))


def own_lists(query: str, *, store, scope, where: FilterNode | None, as_of: datetime | None, n: int,
              peek: list[str], terms: list[str], query_vector: Callable[[], object] | None, dense: bool,
              lexical: bool, mentions: dict[str, Ranked] | None = None) -> tuple[set[str], dict[str, Ranked]]:
    """The person's own memories as candidate lists of their own, when ``query`` names some but not all of the
    speakers of the ``peek`` candidates (memory ids; their speakers are read, text only). A question about a person
    ("What activities does Melanie partake in?") is answered by turns of that person spread over many sessions, which
    the other speaker's turns naming or addressing the person ("That's great, Mel!") outrank in the search over
    everyone; without those turns the person's own stand out.

    - ``mentions`` given (the first round's lists, ``{"dense": [(id, score)], "bm25": [...]}``): each list less the
      memories another speaker says to or about a named person (:class:`SpeakerRule` with ``mentions``: naming
      them, or "you"); another speaker's statements about themself stay (a question may name the wrong person).
      Cost: one row read of ``peek`` and one of the lists' other ids (text only), no search.
    - else: the dense search (the query vector ``query_vector()``, when ``dense``) and the keyword search
      (``terms``, when ``lexical``) again, over the named speakers' memories only (``where``, ``as_of`` kept).
      Cost: one row read of ``peek``, one dense and one keyword search with a speaker filter; no embedding.

    Returns ``(named speakers, {"dense_own": [(id, score)], "bm25_own": [...]})`` (scores as in the lists searched
    or given, best first); ``(set(), {})`` when the rule does not apply."""
    if not peek or not (dense or lexical):
        return set(), {}
    rows, named = _named_among(store, scope, peek, query)
    if not named:
        return set(), {}
    if mentions is not None:
        ids = list(dict.fromkeys(d for ls in mentions.values() for d, _ in ls))
        rest = [d for d in ids if d not in rows]
        if rest:
            rows = {**rows, **store.get_many(scope.tenant, rest, entities=False)}
        rule = SpeakerRule(named, 0.0, True)
        keep = {d for d in ids if d in rows and rule.weight(rows[d].speaker, rows[d].text) == 1.0}
        return named, {f"{k}_own": [(d, v) for d, v in ls if d in keep] for k, ls in mentions.items()
                       if (dense if k.startswith("dense") else lexical)}
    own: FilterNode = Cond("speaker", "in", tuple(sorted(named)))
    if where is not None:
        own = And((where, own))
    out: dict[str, Ranked] = {}
    if dense and query_vector is not None:
        out["dense_own"] = store.dense_search(scope, query_vector(), n, own, as_of)
    if lexical and terms:
        out["bm25_own"] = store.keyword_search(scope, terms, n, own, as_of)
    return named, out


@lru_cache(maxsize=1)
def _possessives() -> tuple[str, ...]:
    """The possessive endings after a name (``possessives`` of data/lang/*/names.json), longest first."""
    return tuple(sorted(words("names", "possessives"), key=len, reverse=True))


def unnamed_query(query: str, named: Iterable[str]) -> str:
    """``query`` without the names ``named`` (matched as :func:`named_speakers` matches them) and the possessive
    ending right after each ("Melanie's", 小美的), spaces collapsed: "What do Melanie's kids like?" -> "What do kids
    like?". The speaker filter says whose memories are meant; the rest of the question says what is asked.
    ``query`` unchanged when it names none of them."""
    fold = query == query.lower()
    ends = "|".join(re.escape(p) for p in _possessives())
    out = query
    for name in sorted({n.strip() for n in named if n and n.strip()}, key=len, reverse=True):
        pat = _name_pattern(name, fold or name == name.lower())
        out = re.sub(pat.pattern + (f"(?:{ends})?" if ends else ""), "", out, flags=pat.flags)
    return re.sub(r"\s+", " ", out).strip() if out != query else query


def unnamed_lists(query: str, *, store, scope, where: FilterNode | None, as_of: datetime | None, n: int,
                  peek: list[str], terms: Callable[[str], list[str]], embed: Callable[[str], object], dense: bool,
                  lexical: bool, every: bool, own: bool) -> tuple[set[str], dict[str, Ranked]]:
    """Candidate lists of the question read without the person it names, when ``query`` names some but not all of
    the speakers of the ``peek`` candidates (memory ids; their speakers are read, text only). A speaker's own turns
    rarely carry their own name ("I just signed up for a pottery class"), while the other speaker's turns do ("Wow,
    Melanie!"): the name in the question pulls the dense and keyword searches towards the turns addressing the
    person. Here the question less the name (:func:`unnamed_query`) is searched again (dense: ``embed(text)``, one
    new query embedding; keyword: ``terms(text)``): over every memory of ``where`` when ``every``
    (``dense_unnamed``, ``bm25_unnamed``), over the named speakers' memories only when ``own``
    (``dense_unnamed_own``, ``bm25_unnamed_own``).

    Returns ``(named speakers, {list name: [(id, score)], ...})`` best first (only the kinds asked by ``dense`` /
    ``lexical``); ``(set(), {})`` when the rule does not apply or the question less the name has no keyword term
    (``terms`` empty: "Tell me about Melanie"). Cost: one row read
    of ``peek``, one query embedding, one dense and one keyword search per scope asked (``every``, ``own``)."""
    if not peek or not (dense or lexical) or not (every or own):
        return set(), {}
    rows, named = _named_among(store, scope, peek, query)
    if not named:
        return set(), {}
    text = unnamed_query(query, named)
    ts = terms(text) if text != query else []
    if not ts:  # nothing asked beyond the person ("Tell me about Melanie"): no list of anything
        return set(), {}
    qv = embed(text) if dense else None
    ts = ts if lexical else []
    filters: list[tuple[str, FilterNode | None]] = [("", where)] if every else []
    if own:
        mine: FilterNode = Cond("speaker", "in", tuple(sorted(named)))
        filters.append(("_own", mine if where is None else And((where, mine))))
    out: dict[str, Ranked] = {}
    for suffix, filt in filters:
        if qv is not None:
            out["dense_unnamed" + suffix] = store.dense_search(scope, qv, n, filt, as_of)
        if ts:
            out["bm25_unnamed" + suffix] = store.keyword_search(scope, ts, n, filt, as_of)
    return named, out
