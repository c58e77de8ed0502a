"""Does an assistant turn say anything of its own? The write path's one test for assistant turns.

A memory library stores what the user said and what the assistant *added*: an answer, a booking number, a
recommendation, a promise to act. An assistant turn that only acknowledges ("Got it, I'll remember that you moved to
Berlin!", "好的，已经帮你记下了～", "Sure, happy to help with that. Anything else?") or echoes the user's words back
holds nothing that the user's own turn does not hold better; stored, it would rank beside (often above) the user's
sentence and be cited as evidence. :func:`new_content` measures what is left of the assistant turn after taking
away

- the acknowledgement phrases and words of ``data/lang/<lang>/acknowledgements.json`` (courtesy, offers of help,
  "noted", reactions: language data, one place to add a phrase or a language),
- function words (:data:`anchormem.text.tokenize.STOPWORDS`),
- every word already said in the conversation's user turns (the user turns of the same ``add`` call and the session's
  stored turn just before it): an English word when its stem was said ("moved" ~ "move"), a Chinese one when each
  of its characters occurs in the user's words (jieba cuts a paraphrase differently: 搬家 after 我搬到了…).

:func:`adds_nothing` is True when nothing is left. ``anchormem.ingest.pipeline.draft_memories`` applies it to every
assistant turn (the one place, for every write path: add, add_many, the API, MCP); such a turn is kept in the
session's raw messages and reported by ``add`` as a ``NOOP`` event whose ``reason`` says why
(:data:`ECHO_REASON`), never dropped silently. A kept assistant turn stays ``source="assistant"`` (never a user fact).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .. import langdata
from ..text.tokenize import STOPWORDS, content_words, has_cjk, stem

__all__ = ["new_content", "adds_nothing", "acknowledges_at", "said_words", "SaidWords", "ECHO_REASON"]

#: the ``reason`` of the NOOP event ``add`` reports for an assistant turn with nothing of its own
ECHO_REASON = "assistant turn adds nothing of its own (an acknowledgement or the user's words echoed): not stored"


@lru_cache(maxsize=1)
def _phrases() -> re.Pattern[str]:
    """Every language's acknowledgement phrases as one case-insensitive pattern (Latin ones as whole words)."""
    got = langdata.words("acknowledgements", "phrases")
    alts = [re.escape(p) if has_cjk(p) or not p[:1].isalnum() else r"\b" + re.escape(p) + r"\b" for p in got]
    return re.compile("|".join(alts) or r"(?!x)x", re.I)


@lru_cache(maxsize=1)
def _words() -> frozenset[str]:
    return frozenset(w.casefold() for w in langdata.words("acknowledgements", "words"))


@dataclass(frozen=True)
class SaidWords:
    """The words of a conversation's user turns, as :func:`new_content` tests an assistant word against them:
    ``text`` (the turns joined by spaces, case-folded), ``chars`` (its characters) and ``stems`` (the stems of their
    non-CJK content words). Made once per ``add`` (:func:`said_words`) and shared by all its assistant turns."""

    text: str
    chars: frozenset[str]
    stems: frozenset[str]


def said_words(user_texts: list[str]) -> SaidWords:
    """:class:`SaidWords` of ``user_texts`` (the conversation's user turns)."""
    text = " ".join(user_texts).casefold()
    stems = frozenset(stem(w) for t in user_texts for w in content_words(t) if not has_cjk(w))
    return SaidWords(text, frozenset(text), stems)


def _said(word: str, said: SaidWords) -> bool:
    """Was ``word`` (of the assistant turn, case-folded) already said in the user turns?"""
    if has_cjk(word):  # every character said: 搬家 after 搬到…一家 (jieba cuts a paraphrase differently)
        return word in said.text or all(ch in said.chars for ch in word)
    return stem(word) in said.stems or word in said.text


def new_content(text: str, user_texts: "list[str] | SaidWords") -> list[str]:
    """The content words of assistant turn ``text`` that are neither acknowledgement nor function words nor already
    said in ``user_texts`` (the conversation's user turns, or their :func:`said_words` when one call tests several
    assistant turns against the same user turns), in order."""
    said = user_texts if isinstance(user_texts, SaidWords) else said_words(user_texts)
    rest = _phrases().sub(" ", text)
    ack = _words()
    out = []
    for w in sorted(content_words(rest), key=rest.casefold().find):
        low = w.casefold()
        if low in ack or low in STOPWORDS or (has_cjk(w) and all(ch in ack or ch in STOPWORDS for ch in w)):
            continue
        if not _said(low, said):
            out.append(w)
    return out


def acknowledges_at(text: str, start: int, end: int) -> bool:
    """An acknowledgement phrase of ``acknowledgements.json`` opens at ``start`` or right after ``end`` (spaces
    skipped) in ``text``: the promise ``text[start:end]`` is one to note or remember ("I'll remember your mom's
    birthday", 我会记住…), an acknowledgement, no action to follow up (:func:`anchormem.facts.commitments.is_commitment`)."""
    rx = _phrases()
    after = len(text[end:]) - len(text[end:].lstrip())
    return bool(rx.match(text, start) or rx.match(text, end + after))


def adds_nothing(text: str, user_texts: "list[str] | SaidWords") -> bool:
    """True when assistant turn ``text`` has no content word of its own (:func:`new_content` is empty);
    ``user_texts``: the user turns or their :func:`said_words`."""
    return not new_content(text, user_texts)
