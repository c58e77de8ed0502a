"""Grounded answers without an LLM: pick the memories that actually support the question and quote them,
or abstain with a plain "no record".

Evidence test (per hit): the memory shares at least one content word with the question (after light
stemming) and its dense cosine is at least ``min_dense``, or it shares at least ``min_overlap_strong`` content
words. These thresholds are calibrated per embedder; see ``anchormem eval``.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from .text.tokenize import content_words
from .types import Answer, Hit

__all__ = ["AnswerConfig", "extractive_answer", "NO_RECORD"]

NO_RECORD = "I have no record of that."
NO_RECORD_ZH = "我没有这方面的记录。"
_QWORDS = frozenset("""what when where who whom which why how did does do is are was were has have had ever
    user user's i me my you your 什么 什么时候 哪里 哪儿 谁 为什么 怎么 怎样 如何 多少 是否 有没有 吗""".split())


class AnswerConfig(BaseModel):
    """Thresholds for the extractive answer. ``max_citations``: how many memories to quote (1-3)."""

    min_dense: float = Field(0.80, ge=-1, le=1)
    min_overlap_strong: int = Field(2, ge=1)
    max_citations: int = Field(2, ge=1, le=5)


def _stem(w: str) -> str:
    w = w.lower()
    if not w.isascii():
        return w
    for suf in ("ingly", "edly", "ing", "ies", "ied", "ed", "es", "s", "ly"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            w = w[: -len(suf)]
            break
    # a silent final e goes too, so name/named/names/naming and hike/hiked/hiking meet on one stem
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


def _overlap(question: str, text: str) -> int:
    q = {_stem(w) for w in content_words(question) if w not in _QWORDS}
    t = {_stem(w) for w in content_words(text)}
    return len(q & t)


def supports(hit: Hit, question: str, cfg: AnswerConfig) -> bool:
    """The evidence test described in the module docstring."""
    ov = _overlap(question, hit.memory.text)
    dense = hit.explain.get("dense") or 0.0
    return (ov >= 1 and dense >= cfg.min_dense) or ov >= cfg.min_overlap_strong


def _quote(hit: Hit) -> str:
    m = hit.memory
    who = m.speaker or ("the assistant" if m.source == "assistant" else "you")
    when = m.created_at.date().isoformat()
    return f'On {when}, {who} said: "{m.text}"'


def extractive_answer(question: str, hits: list[Hit], cfg: AnswerConfig | None = None) -> Answer:
    """Answer from the supporting hits (best first), or abstain. Never writes words that are not quoted."""
    cfg = cfg or AnswerConfig()
    good = [h for h in hits if supports(h, question, cfg)]
    if not good:
        zh = bool(re.search(r"[\u4e00-\u9fff]", question))
        return Answer(text=NO_RECORD_ZH if zh else NO_RECORD, citations=[], abstained=True, evidence=hits)
    chosen = good[: cfg.max_citations]
    return Answer(text=" ".join(_quote(h) for h in chosen), citations=[h.memory for h in chosen],
                  abstained=False, evidence=hits)
