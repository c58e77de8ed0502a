"""Tokenization for keyword search, mixed Chinese/English.

Chinese runs are segmented with jieba (``cut_for_search`` for indexed text so sub-words match, plain ``cut``
for queries); other runs split on Unicode word characters and are lower-cased. FTS5's ``porter`` tokenizer
then stems the English tokens on both sides. jieba loads its dictionary lazily on first use (~1 s).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import NamedTuple

__all__ = ["pos_tags", "Tagged", "index_text", "segment_once", "query_terms", "content_words", "has_cjk", "words", "stem", "term_coverage",
           "STOPWORDS", "ZH_STOPWORDS"]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]+")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_jieba_lock = threading.Lock()
_jieba = None

EN_STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before being below
    between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few
    for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him
    himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my
    myself no nor not of off on once only or other ought our ours ourselves out over own same shan't she she'd
    she'll she's should shouldn't so some such than that that's the their theirs them themselves then there there's
    these they they'd they'll they're they've this those through to too under until up very was wasn't we we'd
    we'll we're we've were weren't what what's when when's where where's which while who who's whom why why's with
    won't would wouldn't you you'd you'll you're you've your yours yourself yourselves s t also just will get got
    did does do kind like really yeah oh ok okay""".split()
)
ZH_STOPWORDS = frozenset(
    """的 了 是 在 我 你 他 她 它 我们 你们 他们 吗 呢 吧 啊 呀 和 与 就 都 也 还 很 又 这 那 这个 那个 有 没有 什么 怎么
    哪 哪里 哪个 谁 多少 几 一个 一下 可以 会 要 把 被 给 让 对 从 到 说 过 着 得 地 之 为 而 及 或 但 如果 因为 所以
    跟 同 向 于 以 等 啦 嘛 哦 么 您 咱们 自己 这些 那些 这样 那样""".split()
)
STOPWORDS = EN_STOPWORDS | ZH_STOPWORDS


def _get_jieba():
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba = jieba
    return _jieba


class Tagged(NamedTuple):
    """A word of :func:`pos_tags` and its jieba part-of-speech flag ("ns" a place, "v" a verb...)."""

    word: str
    flag: str


@lru_cache(maxsize=8192)
def pos_tags(text: str) -> tuple[Tagged, ...]:
    """jieba's part-of-speech tagging of ``text`` (``jieba.posseg.cut``, HMM on), cached by text: the fact rules
    read a clause's tags in several places (names, subjects, a subject-less clause), and a bulk load meets the same
    clause again as an old neighbour of new turns; tagging costs ~1 ms per clause.

    jieba tags each block of the text on its own (a run of CJK characters, letters, digits and ``+#&._``, split by
    its ``re_han_internal``; the text between blocks is tagged character by character), so the text is cut into those
    blocks here and each block's tags are cached (:func:`_block_tags`): a sentence, its clauses and the runs of
    clauses the fact readers tag share their blocks, which are tagged once. The result is ``jieba.posseg.cut(text)``'s
    exactly."""
    _get_jieba()  # the one place jieba is set up (its log level, the dictionary loaded once under a lock)
    import jieba.posseg  # lazy: its dictionary loads on first use

    return tuple(t for piece in jieba.posseg.re_han_internal.split(text) if piece for t in _block_tags(piece))


@lru_cache(maxsize=16384)
def _block_tags(piece: str) -> tuple[Tagged, ...]:
    """``jieba.posseg.cut`` of one block of :func:`pos_tags` (or of the text between two blocks)."""
    import jieba.posseg

    return tuple(Tagged(t.word, t.flag) for t in jieba.posseg.cut(piece))


def has_cjk(text: str) -> bool:
    """True if the text contains any CJK ideograph."""
    return not text.isascii() and _CJK.search(text) is not None  # (isascii: a flag of the string, no scan)


_SEGMENTS: ContextVar[dict[str, tuple[tuple[str, bool], ...]] | None] = ContextVar("anchormem_segments",
                                                                                   default=None)


@contextmanager
def segment_once() -> Iterator[None]:
    """Within this block (one ``add``: its keyword index, chit-chat test, facts and dates), each distinct text is
    segmented once and the words reused; the segmentations are dropped when the block ends (no text outlives the
    call). Nested blocks share the outer one's."""
    token = _SEGMENTS.set({}) if _SEGMENTS.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _SEGMENTS.reset(token)


def _segments(text: str) -> tuple[tuple[str, bool], ...]:
    """The text's words in order (jieba's precise ``cut`` for Chinese runs, Latin words lower-cased), each with
    whether jieba made it; from the :func:`segment_once` cache when one is open."""
    cache = _SEGMENTS.get()
    if cache is not None:
        got = cache.get(text)
        if got is not None:
            return got
    out: list[tuple[str, bool]] = []
    pos = 0
    for m in _CJK.finditer(text):
        out.extend((w.lower(), False) for w in _WORD.findall(text[pos : m.start()]))
        out.extend((w, True) for w in _get_jieba().cut(m.group()) if w.strip())
        pos = m.end()
    out.extend((w.lower(), False) for w in _WORD.findall(text[pos:]))
    res = tuple(out)
    if cache is not None:
        cache[text] = res
    return res


def _tokens(text: str, *, for_index: bool) -> list[str]:
    """Words of ``text``; ``for_index``: jieba's ``cut_for_search`` for Chinese words (the word plus its 2- and
    3-character sub-words in the dictionary), derived from the precise cut as jieba derives it, so a text is
    segmented once for both."""
    seg = _segments(text)
    if not for_index or not any(cjk for _, cjk in seg):
        return [w.replace("’", "'") for w, _ in seg]
    out: list[str] = []
    freq = None
    for w, cjk in seg:
        n = len(w)
        if cjk and n > 2:
            freq = freq if freq is not None else _get_jieba().dt.FREQ
            out.extend(g for g in (w[i:i + 2] for i in range(n - 1)) if freq.get(g))
            if n > 3:
                out.extend(g for g in (w[i:i + 3] for i in range(n - 2)) if freq.get(g))
        out.append(w.replace("’", "'"))
    return out


def words(text: str) -> list[str]:
    """The text's words in order: Chinese segmented by jieba (precise mode), Latin words lower-cased."""
    return _tokens(text, for_index=False)


def index_text(text: str, *more: str) -> str:
    """Space-joined tokens to store in the FTS5 column (Chinese segmented for search, English lower-cased).
    ``index_text(a, b)`` == ``index_text(f"{a} {b}")``, each part segmented on its own (and cached, in a
    :func:`segment_once` block)."""
    return " ".join(t for part in (text, *more) for t in _tokens(part, for_index=True))


@lru_cache(maxsize=4096)
def _query_terms_cached(text: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for t in _tokens(text, for_index=False):
        if t in STOPWORDS or (len(t) == 1 and not has_cjk(t) and not t.isdigit()) or _function_compound(t):
            continue
        seen.setdefault(t, None)
    return tuple(seen)


def _function_compound(token: str) -> bool:
    """A Chinese token jieba joined from function characters only (还有 = 还 + 有, 都是, 就是): a function word as
    much as its parts (:data:`ZH_STOPWORDS`), not a term a memory must hold."""
    return len(token) > 1 and has_cjk(token) and all(ch in ZH_STOPWORDS for ch in token)


def query_terms(text: str) -> list[str]:
    """Distinct content tokens of a query (stopwords dropped), in order of appearance."""
    return list(_query_terms_cached(text))


def content_words(text: str) -> set[str]:
    """Set of content tokens, for overlap checks (ask's evidence test, dedupe)."""
    return set(_query_terms_cached(text))


def stem(w: str) -> str:
    """Light English stemmer (name/named/names/naming meet; hike/hiked/hiking meet). CJK unchanged."""
    w = w.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if not w.isascii():
        return w
    for suf in ("ingly", "edly", "ing", "ies", "ied", "ed", "es", "s", "ly"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            w = w[: -len(suf)]
            break
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


@lru_cache(maxsize=8192)
def noun_lemma(word: str) -> str:
    """The dictionary form of an English noun, lower-cased ("pets" -> "pet", "children" -> "child", "care" ->
    "care", "cars" -> "car"); a word that is not ASCII letters is returned lower-cased and unchanged. Unlike
    :func:`stem` it never merges two nouns ("care" and "car" stay apart). Tables from ``lemminflect``, loaded on
    first use."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if not (w.isascii() and w.replace("-", "").isalpha()):
        return w
    from lemminflect import getLemma  # lazy: its tables load on first use (no import-time I/O)

    got = getLemma(w, upos="NOUN")
    return got[0].lower() if got else w


def term_coverage(terms: list[str], texts: list[str]) -> list[set[int]]:
    """Which of ``terms`` (query terms, :func:`query_terms`) each text contains: per text, the indexes of the terms
    found. A Chinese term is found as a substring (黄小米 holds 小米; jieba may segment either way), a Latin one as
    a word starting with its :func:`stem` (pound ~ pounds, hike ~ hiking). Per text and term a substring test,
    and a word-start check only where the stem occurs; no jieba call."""
    cjk = [(i, t) for i, t in enumerate(terms) if has_cjk(t)]
    latin = [(i, s, re.compile(r"\b" + re.escape(s))) for i, s in ((i, stem(t)) for i, t in enumerate(terms)
                                                              if not has_cjk(t))]
    lows = [text.lower() for text in texts]
    out: list[set[int]] = [set() for _ in lows]
    for i, t in cjk:  # term by term: one comprehension over the texts each (the texts outnumber the terms)
        for j in [j for j, low in enumerate(lows) if t in low]:
            out[j].add(i)
    for i, s, rx in latin:
        for j in [j for j, low in enumerate(lows) if s in low and rx.search(low)]:
            out[j].add(i)
    return out
