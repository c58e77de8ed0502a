"""Sentence splitting and chunking for mixed Chinese/English text."""

from __future__ import annotations

import re

__all__ = ["split_sentences", "chunk_text", "CLAUSE_PIECE"]

# A sentence ends at . ! ? (followed by space/end) or at Chinese 。！？； (no space needed), or a newline.
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'“‘(\[]?[A-Z0-9\u4e00-\u9fff])|(?<=[。！？；!?])(?=\S)|\n+")


# A clause: the text up to a comma, semicolon or sentence end (Latin or CJK), with its closing marks; a comma or
# point between digits ("1,850", "3.5") is inside a number, not a boundary. ``CLAUSE_PIECE.findall(sentence)``.
CLAUSE_PIECE = re.compile(r"(?:[^,，;；.。!！?？]|(?<=\d)[,.](?=\d))+[,，;；.。!！?？]*")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences; keeps each sentence's own punctuation; drops empty pieces."""
    return [s.strip() for s in _SPLIT.split(text) if s and s.strip()]


def chunk_text(text: str, max_chars: int = 600) -> list[str]:
    """Group consecutive sentences into chunks of at most ``max_chars`` characters (a longer single sentence
    becomes its own chunk, split at ``max_chars`` as a last resort). Short texts come back whole."""
    text = text.strip()
    if len(text) <= max_chars:
        return [text] if text else []
    chunks: list[str] = []
    cur = ""
    for sent in split_sentences(text):
        while len(sent) > max_chars:
            if cur:
                chunks.append(cur)
                cur = ""
            chunks.append(sent[:max_chars])
            sent = sent[max_chars:].lstrip()
        if not sent:
            continue
        joined = f"{cur} {sent}" if cur else sent
        if len(joined) <= max_chars:
            cur = joined
        else:
            chunks.append(cur)
            cur = sent
    if cur:
        chunks.append(cur)
    return chunks
