"""Language knowledge as data: word lists and phrase patterns per language, one file per concern.

Files: ``anchormem/data/lang/<lang>/<concern>.json`` (``lang`` "en" or "zh"; concerns: ``cues`` (hedges,
hypotheticals, modality, reported speech, endings and negations, adverbs, past-question words), ``slots`` (attribute
synonyms, numeric slots, counted nouns, job activities, number words, units), ``changes`` (change-verb lists and the
change patterns of :mod:`anchormem.facts.changes`), ``rules`` (the clause rules of :mod:`anchormem.facts.rules`,
compiled by :mod:`anchormem.facts.rulebook`), ``commitments``, ``names`` (the one list of words that are no names),
``kin`` (the relation words: groups, narrower Chinese words, person words, modifiers; zh: the
one-character ones), ``jobs`` (the job reader's lexicon and the job nouns of a job statement), ``plans`` (maybes and the words that say a plan came true)). Adding a paraphrase or a language is editing or adding such a
file; nothing is read until first used (no import-time I/O), then it is cached.

    load("cues", "en")["hedge"]             # -> list[str]
    words("cues", "ending")                 # -> tuple of every language's entries, longest first
    alternation(words("cues", "modal"))     # -> regex alternation (escaped, longest first, no group)

A missing file or key is an empty list / dict (a language need not have every concern); a malformed file raises
:class:`anchormem.errors.ConfigError` naming the file.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from .errors import ConfigError

__all__ = ["LANGUAGES", "load", "words", "mapping", "alternation"]

LANGUAGES = ("en", "zh")


@lru_cache(maxsize=64)
def load(concern: str, lang: str) -> dict[str, Any]:
    """The parsed ``data/lang/<lang>/<concern>.json`` ({} when there is none). Raises ConfigError on bad JSON."""
    ref = resources.files("anchormem") / "data" / "lang" / lang / f"{concern}.json"
    try:
        text = ref.read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"language data file data/lang/{lang}/{concern}.json is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"language data file data/lang/{lang}/{concern}.json must hold a JSON object")
    return data


@lru_cache(maxsize=256)
def words(concern: str, key: str, langs: tuple[str, ...] = LANGUAGES) -> tuple[str, ...]:
    """Every entry of list ``key`` in ``concern`` over ``langs``, deduplicated, longest first."""
    out: set[str] = set()
    for lang in langs:
        got = load(concern, lang).get(key, [])
        out.update(got if isinstance(got, list) else got.keys())
    return tuple(sorted(out, key=lambda w: (-len(w), w)))


@lru_cache(maxsize=64)
def mapping(concern: str, key: str, langs: tuple[str, ...] = LANGUAGES) -> dict[str, Any]:
    """The merged dict ``key`` of ``concern`` over ``langs`` (a later language wins on a clash)."""
    out: dict[str, Any] = {}
    for lang in langs:
        got = load(concern, lang).get(key, {})
        if isinstance(got, dict):
            out.update(got)
    return out


@lru_cache(maxsize=64)
def word_groups(concern: str, key: str, casefold: bool = False) -> dict[str, str]:
    """The groups of ``key`` in ``concern`` (``{group: [words]}`` per language) inverted over every language:
    {word (lower-cased, or case-folded with ``casefold``): its group}; a word listed in two groups keeps the first."""
    out: dict[str, str] = {}
    for lang in LANGUAGES:
        for group, ws in (load(concern, lang).get(key) or {}).items():
            for w in ws:
                out.setdefault(w.casefold() if casefold else w.lower(), group)
    return out


def alternation(entries: tuple[str, ...] | list[str], *, raw: bool = False) -> str:
    """A regex alternation of ``entries`` (no group), longest first; escaped unless ``raw`` (the entries are regex
    fragments); spaces match any whitespace. ``(?!)`` (never matches) when empty. Cached by entries (some rules
    build theirs per clause: ~2% of a bulk load's CPU before)."""
    return _alternation(tuple(entries), raw)


@lru_cache(maxsize=512)
def _alternation(entries: tuple[str, ...], raw: bool) -> str:
    if not entries:
        return "(?!)"
    parts = sorted(entries, key=lambda w: (-len(w), w))
    if not raw:
        parts = [re.escape(p).replace(r"\ ", r"\s+") for p in parts]
    return "|".join(parts)
