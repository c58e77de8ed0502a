"""The clause rules of the offline fact reader, read from language data (``data/lang/<lang>/rules.json``).

A rules file holds (the format is described in its ``about``):

- ``pieces``: named regex fragments; a list is the alternation of its entries in file order (``"|"``-joined, as
  written: entries are regex fragments), a string is a template of its own;
- ``rules``: ``[{pattern, slot | builder, polarity, ignore_case}]``, tried in order by :mod:`anchormem.facts.rules`;
- ``patterns``: ``{name: {pattern, ignore_case}}``, the reader's other patterns (clause openers, negations, subjects);
- plain word lists and tables (``pronouns``, ``question_endings``, ``third_person_verbs``...).

Another reader's data may take the same format (``pieces`` and ``patterns``: ``commitments.json``; :func:`pattern`
with its ``concern``). A template's ``{NAME}`` is a piece of the same file or one filled in code from another module's data
(:func:`code_pieces`: ``{PERSON}``, ``{JOB}``, ``{OCCUPATION}``, ``{THIRD}``, ``{CLAUSE_VERBS}``,
``{CONTINUATION}``); regex quantifiers such as ``{1,20}`` are no placeholder. Nothing is read before first use; every
result is cached. A template naming an unknown placeholder or a pattern that does not compile raises
:class:`~anchormem.errors.ConfigError` naming the file.

    rules("en")                      # -> tuple of Rule, in file order
    pattern("lead", ("en",))         # -> compiled pattern (several languages: their patterns joined by "|")
    entries("pronouns")              # -> frozenset of every language's entries
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import langdata
from ..errors import ConfigError

__all__ = ["Rule", "rules", "pattern", "entries", "table", "text", "code_pieces", "expand", "BUILDERS"]

# how a rule's attribute is made from its match (the mechanism of each lives in anchormem.facts.rules)
BUILDERS = ("named", "person_is", "person_home", "person_employer", "changed", "likes", "does", "allergy", "count")

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z_0-9]*)\}")


@dataclass(frozen=True)
class Rule:
    """One clause rule: ``regex`` (compiled, with the group ``v`` for the value), ``builder`` (one of
    :data:`BUILDERS`, or "" when ``slot`` names the attribute: a slot key, ``{a}`` / ``{n}`` filled from the
    groups), ``polarity`` (+1 / -1)."""

    regex: re.Pattern
    builder: str
    slot: str
    polarity: int


@lru_cache(maxsize=4)
def code_pieces(lang: str) -> dict[str, str]:
    """The placeholders filled from other modules' data: ``PERSON`` (a relative: :func:`~anchormem.facts.keys.
    person_words`, in English after :func:`~anchormem.facts.keys.person_modifiers`, plural allowed), ``JOB`` (an
    English job noun after at most two modifiers, as group ``v``), ``OCCUPATION`` (a Chinese job noun), ``THIRD``
    (``third_person_subjects`` of cues.json), ``SLOT_NOUN`` (:func:`slot_nouns`), ``CLAUSE_VERBS`` (verbs after
    "and" that start a clause: ``clause_verbs`` of changes.json and the frames' verbs but copulas and moves),
    ``CONTINUATION`` (``continuation`` of changes.json) and, in either language, ``PERSON_EN`` / ``PERSON_ZH`` (a relative in the other script too: a
    mixed clause names the speaker's people in either, "我 boyfriend 换工作了", "my 男朋友 moved to …")."""
    from .keys import not_job_words, occupation_en, occupation_zh, person_modifiers, person_words, relation_pattern

    third = langdata.alternation(langdata.words("cues", "third_person_subjects", (lang,)))
    either = {"SLOT_NOUN": slot_nouns(lang),
              "PERSON_ZH": r"(?:" + relation_pattern(True, person_words()) + r")",
              "PERSON_EN": r"(?:(?:" + person_modifiers() + r"\s+)*(?:" + relation_pattern(False, person_words()) +
                           r")(?:e?s)?(?![\w'’]))"}
    if lang == "zh":
        return {**either, "PERSON": either["PERSON_ZH"], "OCCUPATION": occupation_zh(),
                "THIRD": third,
                "CONTINUATION": langdata.alternation(langdata.words("changes", "continuation", ("zh",)))}
    skip = set(langdata.load("rules", lang).get("not_clause_verbs", []))
    frame_verbs = [v for name, spec in langdata.load("frames", lang).get("classes", {}).items() for v in spec["verbs"]
                   if v[:1].isalpha() and v not in skip and name != "move"]  # "… and now work at X" (not a move:
    # "I left Lisbon and moved to Berlin" is one statement about the home)
    return {**either, "PERSON": r"(?:" + person_modifiers() + r"\s+)*(?:" + relation_pattern(False, person_words()) +
                      r")(?:e?s)?(?![\w'])",  # "my sisters"
            "JOB": r"(?P<v>(?:(?!" + not_job_words() + r"\b)[\w-]+\s+){0,2}?" + occupation_en() + r")(?!['’]s\b)",
            "THIRD": third,
            "CLAUSE_VERBS": langdata.alternation(tuple(langdata.words("changes", "clause_verbs", (lang,))) +
                                                 tuple(frame_verbs))}


def slot_nouns(lang: str) -> str:
    """A regex of the slot nouns ``lang``'s data knows, as said (longest first): the words of ``attribute_synonyms``
    (``phone_number`` said "phone number", 手机号, 收货地址) and the slot keys they name but the numeric slots (which
    their own change reader reads: :mod:`.changes`), the ``slot_nouns`` of frames.json (``phone number``, 新手机号),
    and a noun ending in an ``address_slot_words`` word of addresses.json ("shipping address", 快递地址; the word
    before it no ``subject_determiners`` word of frames.json: "her address" is hers). Read by the
    rules that take a change of a slot said without "my" / 我的 ("Shipping address changed to …", 收货地址改成…): the
    speaker's own slot, a person's being said with that person's words."""
    numeric = set(langdata.mapping("slots", "numeric_slots"))
    words: set[str] = set()
    for said, key in langdata.load("slots", lang).get("attribute_synonyms", {}).items():
        if key not in numeric:
            words.update({said.replace("_", " "), key.replace("_", " ")} if lang == "en" else {said})
    for ws in langdata.load("frames", lang).get("slot_nouns", {}).values():
        words.update(ws)
    heads = langdata.load("addresses", lang).get("address_slot_words", [])
    alt = langdata.alternation(tuple(sorted(w for w in words if w.strip())))
    if not heads:
        return alt
    head = "|".join(re.escape(h) for h in sorted(heads, key=len, reverse=True))
    dets = langdata.alternation(tuple(langdata.load("frames", lang).get("subject_determiners", [])))  # (his, her)
    address = (r"(?:[\u4e00-\u9fff]{0,4}?(?:" + head + "))") if lang == "zh" else \
        (r"(?:(?!(?:" + dets + r")\b)[a-z]+\s+)?(?:" + head + r")\b")
    return r"(?:" + address + "|" + alt + ")"


def expand(template: str, lang: str, concern: str = "rules") -> str:
    """``template`` with every ``{NAME}`` of the pieces of ``concern``'s file for ``lang`` (recursively) filled in,
    and for the rules also :func:`code_pieces`. Raises ConfigError for an unknown name."""
    pieces: dict[str, Any] = langdata.load(concern, lang).get("pieces", {})
    code = code_pieces(lang) if concern == "rules" else {}

    def fill(m: re.Match, depth: int) -> str:
        name = m.group(1)
        if name in code:
            return code[name]
        if name not in pieces:
            raise ConfigError(f"data/lang/{lang}/{concern}.json: unknown placeholder {{{name}}}")
        if depth > 8:
            raise ConfigError(f"data/lang/{lang}/{concern}.json: piece {{{name}}} refers to itself")
        got = pieces[name]
        got = "|".join(got) if isinstance(got, list) else str(got)
        return _PLACEHOLDER.sub(lambda n: fill(n, depth + 1), got)

    return _PLACEHOLDER.sub(lambda m: fill(m, 0), template)


def _compile(spec: dict[str, Any] | str, lang: str, where: str, concern: str = "rules") -> re.Pattern:
    spec = {"pattern": spec} if isinstance(spec, str) else spec
    try:
        return re.compile(expand(spec["pattern"], lang, concern), re.I if spec.get("ignore_case") else 0)
    except (re.error, KeyError, TypeError) as exc:
        raise ConfigError(f"data/lang/{lang}/{concern}.json: {where} is no valid pattern: {exc}") from exc


@lru_cache(maxsize=4)
def rules(lang: str) -> tuple[Rule, ...]:
    """``lang``'s clause rules, compiled, in file order (the order they are tried in). ConfigError on a rule with
    neither ``slot`` nor a known ``builder``."""
    out = []
    for i, spec in enumerate(langdata.load("rules", lang).get("rules", [])):
        builder, slot = spec.get("builder", ""), spec.get("slot", "")
        if (builder and builder not in BUILDERS) or not (builder or slot):
            raise ConfigError(f"data/lang/{lang}/rules.json: rule {i} needs a slot or one of the builders {BUILDERS}")
        out.append(Rule(_compile(spec, lang, f"rule {i}"), builder, slot, int(spec.get("polarity", 1))))
    return tuple(out)


@lru_cache(maxsize=128)
def pattern(name: str, langs: tuple[str, ...] = langdata.LANGUAGES, concern: str = "rules") -> re.Pattern:
    """The pattern ``name`` of ``patterns`` in the ``concern`` files (the rules, or another reader's file in the same
    format: ``commitments``) of ``langs``: one language's as written, several languages' joined by ``"|"`` in the
    order given (case-insensitive when any of them is). ``(?!)`` (never matches) when no language has it."""
    parts, flags = [], 0
    for lang in langs:
        spec = langdata.load(concern, lang).get("patterns", {}).get(name)
        if spec is None:
            continue
        rx = _compile(spec, lang, f"pattern {name!r}", concern)
        parts.append(rx.pattern)
        flags |= rx.flags & re.I
    return re.compile("|".join(parts) or "(?!)", flags)


@lru_cache(maxsize=64)
def entries(key: str, langs: tuple[str, ...] = langdata.LANGUAGES) -> frozenset[str]:
    """Every entry of the list ``key`` of the rules of ``langs``."""
    return frozenset(w for lang in langs for w in langdata.load("rules", lang).get(key, []))


@lru_cache(maxsize=64)
def table(key: str) -> dict[str, Any]:
    """The dict ``key`` of the rules, merged over the languages."""
    return langdata.mapping("rules", key)


def text(key: str, lang: str) -> str:
    """The string ``key`` of ``lang``'s rules ("" when it has none): the speaker as a clause starts it ("I ", 我)."""
    got = langdata.load("rules", lang).get(key, "")
    return got if isinstance(got, str) else ""
