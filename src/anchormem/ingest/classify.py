"""Turn classification: chit-chat (store nothing), questions, and content hashing for exact-duplicate checks."""

from __future__ import annotations

import hashlib
from typing import Any
import re
import unicodedata

from functools import lru_cache

from ..text.segment import split_sentences
from ..text.tokenize import _tokens

__all__ = ["is_chitchat", "is_question", "asks_only", "stated_part", "content_hash", "memory_hash"]

_CHITCHAT = frozenset(
    """ok okay k kk fine sure yes yeah yep yup no nope nah thanks thank thx ty you so much very lot lots a bye
    goodbye cya see ya later soon hi hello hey morning good night evening afternoon cool great nice awesome
    perfect wow lol haha hahaha hmm um uh oh ah alright right got it np problem welcome cheers gotcha noted
    understood sounds take care have day too same here bb ttyl please pls again and all worries worry funny that
    that's thats it it's its is was s really for your the help helpful appreciate appreciated amazing exactly
    indeed true totally absolutely agreed agree course definitely will do talk catch u ya omg ha hehe xd glad
    to hear of me i'm im am good happy just
    好 好的 好吧 好哒 行 可以 嗯 嗯嗯 哦 噢 喔 啊 呀 哈 哈哈 哈哈哈 谢谢 谢 多谢 感谢 谢啦 拜拜 再见 回头见 晚安 早安 早上好
    你好 您好 嗨 没问题 不客气 收到 明白 了解 知道 了 的 啦 呢 吧 吗 好嘞 辛苦 辛苦了 你 您 谢谢你 你的 帮助 帮忙
    哈哈哈哈 嘿嘿 呵呵 好滴 太好了 太棒了 不错 真棒 棒 对 对的 是的 没错 当然 下次 聊 再 见 啊啊 哇 真的 真 好玩 有趣""".split()
)
_Q_START = re.compile(
    r"^(what|when|where|who|whom|which|why|how|is|are|was|were|do|does|did|can|could|would|will|should|shall|"
    r"may|might|have|has|had)\b", re.I)
_NAMEISH = re.compile(r"^[A-Z][a-z]+$")
_ALNUM = re.compile(r"[^\W_]")  # a character str.isalnum() accepts (re's \w is exactly that plus "_")


def is_chitchat(text: str) -> bool:
    """True for pure social filler ("ok thanks, bye!", "好的谢谢，拜拜", "Thanks, Mel!") with nothing to remember.

    A turn is chit-chat when every word is in the filler lexicon, allowing one capitalised name (a vocative).
    """
    words = [w for w in _tokens(text, for_index=False) if _ALNUM.search(w)]
    if not words or len(words) > 12:
        return not words and not any(ch.isalnum() for ch in text)
    raw = re.findall(r"[A-Za-z]+", text)
    names = {w.lower() for w in raw if _NAMEISH.match(w) and w.lower() not in _CHITCHAT}
    unknown = [w for w in words if w not in _CHITCHAT]
    return len(unknown) == 0 or (len(unknown) == 1 and unknown[0] in names)


def is_question(text: str) -> bool:
    """True when the whole turn asks something (ends with ?/？ or starts like an English question)."""
    t = text.strip()
    if t.endswith(("?", "？")) or t.endswith(("吗", "吗。", "呢")):
        return True
    return bool(_Q_START.match(t)) and len(t) < 200 and "." not in t.rstrip(".")


_PART = re.compile(r"(?<=[,，;；])(?!\d{3}(?!\d))\s*")  # after a comma or semicolon, not a thousands comma


def stated_part(sentence: str) -> str:
    """The statement a question sentence opens with, before its first clause that asks ("My monthly salary is 32000
    yuan, can I apply for the premium card?" -> "My monthly salary is 32000 yuan"; 我月薪三万二，可以申请白金卡吗？ ->
    我月薪三万二); "" when it asks from its first clause ("Should I move, given my rent?") or is one clause. The
    fact extractor reads only this part of a question (:func:`anchormem.facts.rules.extract_from_text`)."""
    parts = _PART.split(sentence.strip())
    out: list[str] = []
    for p in parts[:-1]:
        if is_question(p.strip().rstrip(",，;；").rstrip()):
            break
        out.append(p)
    return "".join(out).rstrip(",，;； ")


@lru_cache(maxsize=4096)
def asks_only(text: str) -> bool:
    """True when a turn only asks: at least one sentence (:func:`anchormem.text.segment.split_sentences`) is a
    question (it ends with ?/？ or 吗/呢: a sentence's first word alone, as :func:`is_question` also reads it, takes
    "Have a great day." or "Is a mole zoanthrope and ..." for questions) and every other one is social filler
    (:func:`is_chitchat`): "Wow! What got you into running?", "Thanks! Do you have any tips?", "好啊！你周末去哪儿
    了？". Such a turn states nothing about anyone; "I walked 8,000 steps today! Can you believe it?" states
    something and is not asks-only. Kept for the last 4,096 texts (searches test the same candidates again)."""
    sents = split_sentences(text)
    asks = [s.rstrip().endswith(_ASKS_END) for s in sents]
    return any(asks) and all(a or is_chitchat(s) for a, s in zip(asks, sents))


_ASKS_END = ("?", "？", "吗", "吗。", "呢")


_PUNCT_END = re.compile(r"[\s.!?。！？,，;；:：~…]+$")


def content_hash(text: str, *, kind: str, source: str, speaker: str | None) -> str:
    """sha256 of the normalised text (NFKC, case-folded, whitespace collapsed, trailing punctuation dropped)
    plus kind/source/speaker: two memories with the same hash are exact duplicates."""
    norm = unicodedata.normalize("NFKC", text).casefold()
    norm = _PUNCT_END.sub("", " ".join(norm.split()))
    key = f"{kind}\x1f{source}\x1f{(speaker or '').casefold()}\x1f{norm}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def memory_hash(item: Any) -> str:
    """The dedupe hash every write path gives a memory: :func:`content_hash` of its text, with a fact's slot
    (``entity|attribute``) added so two facts stated by one sentence stay two memories."""
    text = f"{item.text}\x00{item.fact.slot}" if getattr(item, "fact", None) else item.text
    return content_hash(text, kind=item.kind, source=item.source, speaker=item.speaker)
