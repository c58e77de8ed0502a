"""Cue words of the PII detectors, read from ``anchormem/data/pii_cues_<lang>.json`` (one file per language).

Each file holds lists of words by concern (``card_reference``, ``card``, ``name_fields``, ``name_intro``); this
module compiles them, once and lazily (no I/O at import), into one regular expression per concern that matches
any cue of any language: English cues as whole words, case-insensitive, a space standing for any run of
whitespace; Chinese cues as substrings. Longer cues are tried first, so "order number" wins over "order".
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

__all__ = ["CUE_LANGUAGES", "cue_words", "cue_pattern"]

#: languages with a cue file
CUE_LANGUAGES: tuple[str, ...] = ("en", "zh")


@lru_cache(maxsize=None)
def _load(lang: str) -> dict[str, list[str]]:
    text = resources.files("anchormem").joinpath("data", f"pii_cues_{lang}.json").read_text(encoding="utf-8")
    return {k: v for k, v in json.loads(text).items() if not k.startswith("_")}


def cue_words(concern: str) -> tuple[str, ...]:
    """Every cue of ``concern`` over all languages, longest first, then alphabetically (a stable order)."""
    words = {w.strip() for lang in CUE_LANGUAGES for w in _load(lang).get(concern, ()) if w.strip()}
    return tuple(sorted(words, key=lambda w: (-len(w), w)))


def _alternative(word: str) -> str:
    if word.isascii():
        body = r"\s+".join(re.escape(p) for p in word.split())
        return rf"(?<![A-Za-z]){body}(?![A-Za-z])"
    return re.escape(word)


@lru_cache(maxsize=None)
def cue_pattern(concern: str) -> re.Pattern[str]:
    """One compiled pattern matching any cue of ``concern`` (case-insensitive)."""
    return re.compile("(?i:" + "|".join(_alternative(w) for w in cue_words(concern)) + ")")
