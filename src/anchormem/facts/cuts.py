"""What an ending closes: the words of the statement, or the item of a list, that it ends (never the sentence).

An ending ("钢琴课停了", "Axed Disney+", "烟终于戒了！") found by :mod:`.relative` closes one claim of an older
memory. When that memory says other things too, the claim made for it covers only the words it ends, so the memory
becomes partly superseded (its other facts stay current and citable, :func:`~anchormem.facts.claims.current_view`)
and a past read still returns it whole. The cut (:func:`ended_words`):

1. **Pieces**: the sentence cut at commas, semicolons, colons and the ``list_joiners`` of
   ``data/lang/<lang>/relative.json`` ("and", 、, 和).
2. **The piece ended**: the one holding the word the ending shares with it ("钢琴"; a word the segmenter glued to
   its neighbour, "酒我", by its content terms: "酒"), else the one piece holding a content term of the ending
   ("酒我戒了" -> "每天晚上都要喝两杯啤酒"), else the piece nearest the ending by meaning (one embedding call).
3. **An item of a list** (a piece after the first joined to a neighbour by a list joiner: "Spotify Premium, Disney+
   and the NYT app") is closed alone: one claim per item.
4. **Else the statement around it**: the pieces after it that continue it ("我在学钢琴，每周上一节课": no subject of
   their own, :func:`~anchormem.facts.claims.starts_statement`; not opening another thing, ``another_statement`` of
   relative.json: "顺便在准备考研"), up to a piece stating another current claim of the memory or a list item; and the
   pieces before it that it continues ("我在4S店卖车，丰田的" ended by "丰田那边不干了"); an ending never runs back into
   a statement of who the speaker is (``identity_statement`` of ``data/lang/<lang>/claims.json``: "我是…", "我叫…",
   "I'm a…"): that one is complete in itself, so in "我是开出租车的，每天晚上都要喝两杯啤酒" ended by "酒我戒了" the job stays
   current (the words stating a value do: "我是team lead，管五个人" for 五个 is one statement, :func:`statement_of`).

What is closed is decided here, once, when the ending is written: the open claim made for the old memory keeps
these words (:attr:`~anchormem.types.Claim.words`), and every read path takes them from the claim
(:func:`~anchormem.facts.claims.closing_words`), never cutting the text again.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import numpy as np

from ..text.tokenize import has_cjk, query_terms
from ..types import MemoryItem

__all__ = ["ended_words", "statement_of"]


def data(lang: str) -> dict[str, Any]:
    from .typed_values import data as relative_data

    return relative_data(lang)


def ended_words(sentence: str, clause: str, memory: MemoryItem | None, *, word: str = "", whole: bool = False,
                ending: str = "", embedder: Any = None) -> str:
    """The words of ``sentence`` (of ``memory``) an ending closes (module doc). ``clause``: the old clause the
    ending matched (returned when the sentence is one piece); ``word``: the word the two share ("" when none);
    ``whole``: the match was the sentence by meaning (the piece is then chosen by meaning against ``ending``, with
    ``embedder``). Returns a substring of ``sentence`` without its edge punctuation."""
    from .claims import closing_words, own_claims, starts_statement

    raw = [m.group() for m in _piece_rx().finditer(sentence)]
    starts = [sum(len(r) for r in raw[:i]) for i in range(len(raw))]
    keep = [i for i, r in enumerate(raw) if _bare(r)]
    if len(keep) < 2:
        return clause
    spans = [(starts[i], starts[i] + len(raw[i])) for i in keep]
    raw = [raw[i] for i in keep]
    texts = [_bare(r) for r in raw]
    hits = [i for i, t in enumerate(texts) if word and word.casefold() in t.casefold()]
    if not hits and (word or ending):  # the content terms of the word ("酒我": 酒, glued by the segmenter), else of
        terms = query_terms(word or ending)  # the ending ("酒我戒了": 酒, in 啤酒), when one piece holds them
        named = [i for i, t in enumerate(texts) if any(w in t.casefold() for w in terms)]
        hits = named if len(named) == 1 else []
    if hits and ending:  # the first piece sharing a word with the ending ("learning Japanese…, 200-day streak" ~
        hits = [min(hits + [i for i, t in enumerate(texts) if _shares(ending, t)])]  # "Dropped Japanese, the streak…")
    if not hits and not whole:
        hits = [i for i, t in enumerate(texts) if t and t in clause]
    if not hits and embedder is None:
        return clause
    if not hits:
        vecs = np.asarray(embedder.embed_documents(texts + [ending]), dtype=np.float32)
        hits = [int(np.argmax(vecs[:-1] @ vecs[-1]))]
    at = hits[0]
    others = [closing_words(c).strip(" .。!！") for c in own_claims(memory)
              if c.valid_to is None and c.span] if memory is not None else []

    def other(i: int) -> bool:
        return any(x and (x in texts[i] or texts[i] in x) for x in others)

    def item(i: int) -> bool:  # joined to a neighbour by a list joiner, not only a comma
        return bool(_trailing_joiner(raw[i])) or i > 0 and bool(_trailing_joiner(raw[i - 1]))

    if other(at) or (word and at > 0 and item(at)):
        return texts[at]  # a list item ("Disney+", 网易云黑胶: one claim per item)

    def own(i: int) -> bool:  # a statement of its own: a subject ("我…", "and I…"), another thing ("顺便…"), or
        return starts_statement(texts[i]) or _says_another(texts[i]) or \
            i > 0 and has_cjk(texts[i]) != has_cjk(texts[i - 1])  # said in the other language (a mixed turn)

    lo = hi = at  # (the items of a list are claims each: a statement never runs into one)
    while lo > 0 and not own(lo) and not other(lo - 1) and not item(lo) and not (ending and _identity(texts[lo - 1])):
        lo -= 1
    while hi + 1 < len(spans) and not own(hi + 1) and not other(hi + 1) and not item(hi + 1):
        hi += 1
    if lo == 0 and hi == len(spans) - 1:
        return sentence.strip()  # the whole sentence, as said
    return _bare(sentence[spans[lo][0]:spans[hi][1]])


def _identity(piece: str) -> bool:
    """``piece`` states who the speaker is (opens with an ``identity_statement`` of claims.json: "我是开出租车的",
    "I'm a nurse"): a statement complete in itself."""
    p = piece.lstrip(" ,，;；").casefold()
    p = re.sub(r"^(?:and|but|so)\s+", "", p)
    return any(p.startswith(w.casefold()) for w in _identity_words())


@lru_cache(maxsize=1)
def _identity_words() -> tuple[str, ...]:
    from .. import langdata

    return langdata.words("claims", "identity_statement")


def _shares(a: str, b: str) -> bool:
    """The two texts share a content word (:func:`~anchormem.facts.relative._shared`)."""
    from .relative import _shared, _topic_words

    return bool(_shared(_topic_words(a, []), _topic_words(b, []), a, b))


def statement_of(text: str, value: str) -> str:
    """The statement or list item of ``text`` holding ``value`` (:func:`ended_words` with ``value`` as the word and
    no other claims): "I work at Apple in Cupertino, love the campus, also coach a kids' soccer team." for
    ``Apple`` -> "I work at Apple in Cupertino, love the campus"; ``text`` itself when the value is in none of its
    pieces or in more than one."""
    v = (value or "").strip().casefold()
    pieces = [_bare(m.group()).casefold() for m in _piece_rx().finditer(text)]
    if not v or len(pieces) < 2 or sum(v in p for p in pieces) != 1:
        return text
    return ended_words(text, text, None, word=value)


@lru_cache(maxsize=1)
def _piece_rx() -> re.Pattern:
    """The pieces of a sentence: runs between commas, semicolons, colons and the ``list_joiners`` of relative.json
    of both languages (a sentence may mix them; Latin ones as whole words: "and", "or"; CJK ones anywhere: 、, 和),
    each piece with the separator after it."""
    words = [w for lang in ("en", "zh") for w in data(lang).get("list_joiners", [])]
    latin = [re.escape(w) for w in words if w.isascii()]
    cjk = [re.escape(w) for w in words if not w.isascii()]
    sep = r"[,，;；:：]" + "".join(f"|{w}" for w in cjk) + "".join(rf"|\s+{w}(?=\s)" for w in latin)
    return re.compile(rf"(?:(?!{sep}).)+(?:{sep})*", re.S)


def _trailing_joiner(piece: str) -> str:
    """The list joiner (``list_joiners`` of relative.json) ``piece`` ends with ("Disney+ and" -> "and", "腾讯视频、"
    -> "、"), or ""."""
    p = piece.rstrip(" ,，;；:：").casefold()
    for lang in ("en", "zh"):
        for w in data(lang).get("list_joiners", []):
            w = w.casefold()
            if p.endswith(w) and (not w.isascii() or re.search(rf"\s{re.escape(w)}$", p)):
                return w
    return ""


def _says_another(piece: str) -> bool:
    """``piece`` opens with a word saying it is about another thing (``another_statement`` of relative.json: "also",
    顺便, 另外)."""
    p = piece.lstrip(" ,，;；").casefold()
    for lang in ("en", "zh"):
        for w in data(lang).get("another_statement", []):
            w = w.casefold()
            if p.startswith(w) and (not w.isascii() or not p[len(w):len(w) + 1].isalnum()):
                return True
    return False


def _bare(piece: str) -> str:
    """``piece`` without its separators and trailing list joiner."""
    p = piece.strip(" ,，;；:：.。!！")
    j = _trailing_joiner(p)
    return p[:len(p) - len(j)].strip(" ,，、;；:：") if j else p
