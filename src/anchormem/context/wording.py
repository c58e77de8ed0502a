"""Which memory the query's own words single out: telling-word coverage of the candidates and the rival tests
used by :meth:`anchormem.context.anchor.ContextAnchor.singled_out`.

A *telling* query word is one at most half of the keyword candidates hold, and no recall-framing word ("what did I
*tell* you about…", "我之前*说过*…") or answer-type word ("how much did the apple *cost*?", "苹果多少*钱*？": both
senses can cost something): "What did I say about the pound?" holds no telling word at all, since every candidate
holds "pound". Rivals are candidates of other sessions (memories of one session are no rivals of each
other: the query singles out the conversation they were said in).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..text.tokenize import STOPWORDS, has_cjk, query_terms, term_coverage
from ..types import Hit

__all__ = ["RECALL_WORDS", "ANSWER_WORDS", "coverage", "coverage_and_holders", "holder_terms", "leads_rivals",
           "subject_terms"]


# words that frame a request to recall ("what did I tell you about…", "anything new about…", "我之前说的…怎么样了")
# and say nothing of what it is about: they never single a memory out
RECALL_WORDS = frozenset("""say said says tell told telling remind remember recall mention mentioned talk talked
    talking discuss discussed anything something new again earlier before previously last time thing things stuff
    update news 之前 以前 上次 说过 提过 提到 聊过 讲过 告诉 记得 关于 事 事情 后来 怎么样 情况 什么样""".split())

# words that name the kind of answer wanted (an amount, a price, a time, a place: "how much did the apple *cost*?",
# "苹果多少*钱*？") and not which sense the question is about: both senses of a word can cost something, so a memory
# that happens to hold "cost" or 钱 is not what the query's words single out
ANSWER_WORDS = frozenset("""cost costs costed price prices priced pay paid spend spent much many money expensive
    cheap worth amount total when date where 钱 多少钱 花钱 价格 价钱 价位 多少 贵 便宜 几 多久 什么时候 时候 日期 哪里
    哪儿""".split())


def subject_terms(query: str) -> list[str]:
    """The query's content words (:func:`anchormem.text.tokenize.query_terms`) less the recall-framing and answer-type
    ones: what it is about. "What did I tell you about my bank?" → ["bank"]; "苹果怎么样了？" → ["苹果"]; "When did
    Caroline have a picnic?" → ["caroline", "picnic"]."""
    return [t for t in query_terms(query) if t not in _FRAME_WORDS]


def coverage(query: str, hits: Sequence[Hit]) -> dict[str, tuple[float, frozenset[str]]]:
    """Which *telling* query words each hit holds, and their weight: {memory id: (Σ idf, the terms)} over the
    distinct query terms it contains (:func:`anchormem.text.tokenize.term_coverage`), with idf = ln(1 + (N - df +
    0.5) / (df + 0.5)) over the N ``hits`` (BM25's idf, over the keyword candidates), counting only terms that
    at most half of them hold, or only one (the ambiguous word itself, which every candidate holds, tells nothing;
    a word one memory alone holds names it), and no recall-framing word (:data:`RECALL_WORDS`) or answer-type word
    (:data:`ANSWER_WORDS`). {} without query terms."""
    return coverage_and_holders(query, hits)[0]


def holder_terms(query: str) -> list[str]:
    """The query's subject words that make a memory a *holder* (:func:`coverage_and_holders`): function characters
    stripped, recall/answer frame words and stopwords left out, in query order, once each."""
    return list(dict.fromkeys(t for t in map(_strip_function_chars, subject_terms(query))
                              if t and t not in _FRAME_WORDS and t not in STOPWORDS))


def coverage_and_holders(query: str, hits: Sequence[Hit]) -> tuple[dict[str, tuple[float, frozenset[str]]],
                                                                   set[str]]:
    """(:func:`coverage`, the ids of the ``hits`` that hold any of the query's subject words, telling or not: the
    memories about what the query names, "apple" in "Apple 怎么样？" whichever sense), one term pass."""
    terms = holder_terms(query)
    if not terms or not hits:
        return {}, set()
    found = term_coverage(terms, [h.memory.text for h in hits])
    holders = {h.memory.id for h, f in zip(hits, found) if f}
    n = len(hits)
    df = [0] * len(terms)
    for f in found:
        for i in f:
            df[i] += 1
    idf = [math.log1p((n - d + 0.5) / (d + 0.5)) for d in df]
    telling = {i for i, d in enumerate(df) if d <= n / 2 or d == 1}
    out = {}
    for h, f in zip(hits, found):
        tell = f & telling
        out[h.memory.id] = (float(sum(idf[i] for i in tell)), frozenset(terms[i] for i in tell)) if tell \
            else _NOTHING
    return out, holders


_NOTHING = (0.0, frozenset())  # a hit holding no telling word


_FRAME_WORDS = RECALL_WORDS | ANSWER_WORDS
_LEADING = frozenset("我你他她它咱您")  # pronouns jieba glues to a verb: 我用, 你说
_TRAILING = frozenset("的了着")  # particles it glues to a word: 买的


def _strip_function_chars(term: str) -> str:
    """A Chinese term without the pronoun or particle jieba left on its ends (我用 → 用, 你说的 → 说); words of
    their own (之前, 关于) are kept whole."""
    if not has_cjk(term) or len(term) < 2:
        return term
    while len(term) > 1 and term[0] in _LEADING:
        term = term[1:]
    while len(term) > 1 and term[-1] in _TRAILING:
        term = term[:-1]
    return term


def leads_rivals(hit: Hit, hits: Sequence[Hit], cov: dict[str, tuple[float, frozenset[str]]], *,
                  superset: bool) -> bool:
    """Whether ``hit`` holds telling words (:func:`coverage`) and no memory of another session holds more of
    them: by weight (on a tie, the rival must not be closer by embedding), or with ``superset`` by words (it holds
    every telling word such a memory holds: "是山西产的黄小米" holds 产 of "我买的芒果是哪里产的？", a rarer word than
    the 芒果 of its rivals, but not 芒果)."""
    weight, own = cov.get(hit.memory.id, (0.0, frozenset()))
    sid = hit.memory.session_id
    dense = hit.explain.get("dense") or 0.0
    for h in hits:
        if h.memory.id not in cov or h is hit or (sid is not None and h.memory.session_id == sid):
            continue
        w, words = cov[h.memory.id]
        if not (words <= own if superset else w < weight - 1e-9 or
                (w <= weight + 1e-9 and (h.explain.get("dense") or 0.0) <= dense)):
            return False
    return weight > 0
