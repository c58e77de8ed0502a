"""Synthetic chat memories for the scale benchmarks: the same texts and vectors for every system.

Texts are short first-person chat turns made from word lists (80% English, 20% Chinese), a pure function of
the index (``random.Random(i)``), so every process regenerates them without a file. Vectors are not from a
model: ``make_vectors`` draws L2-normalised 384-d float32 vectors around 512 random cluster centres (real
sentence embeddings are clustered; uniform random vectors would be an unrealistically hard case for HNSW).
Queries are a stored vector plus noise, so each has a true nearest neighbour, and their text takes words of
that memory, so BM25 finds it too. Only numpy and the standard library: this module runs in both venvs.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np

__all__ = ["text", "user_of", "make_vectors", "make_queries", "DIM"]

DIM = 384

_SUBJ = ["I", "We", "My sister", "My manager", "Our team", "My doctor", "My landlord", "My son", "My wife", "Tom"]
_VERB = ["booked", "cancelled", "moved", "bought", "sold", "visited", "planned", "finished", "started", "paid for",
         "forgot", "loved", "hated", "fixed", "ordered", "renewed", "painted", "borrowed", "returned", "reviewed"]
_OBJ = ["the apartment in Lisbon", "a flight to Tokyo", "the quarterly report", "a new bicycle", "the dentist visit",
        "concert tickets", "the garden fence", "a birthday cake", "the car insurance", "a yoga class",
        "the kitchen sink", "a used piano", "the tax return", "a hiking trip", "the wedding venue",
        "a laptop charger", "the gym membership", "a pasta recipe", "the parking permit", "a violin lesson",
        "the museum pass", "a vegan cookbook", "the phone contract", "a camping tent", "the school project"]
_WHEN = ["yesterday", "last week", "on Monday", "this morning", "in March", "two days ago", "last summer",
         "on the weekend", "before Christmas", "after work", "tonight", "next Friday"]
_TAIL = ["and it cost 450 euros", "with Anna", "because the old one broke", "for the kids", "on a budget",
         "after a long delay", "and I am still annoyed", "which was a great idea", "near the station",
         "at the new mall", "for our anniversary", "and the price was fair", "", "", ""]
_ZH_SUBJ = ["我", "我们", "我妈妈", "老板", "我朋友", "同事", "房东", "我儿子"]
_ZH_VERB = ["预订了", "取消了", "买了", "卖掉了", "参观了", "计划了", "完成了", "修好了", "续订了", "借了"]
_ZH_OBJ = ["杭州的公寓", "去北京的机票", "季度报告", "一辆新自行车", "牙医预约", "音乐会门票", "花园的篱笆",
           "生日蛋糕", "汽车保险", "瑜伽课", "二手钢琴", "健身卡", "手机套餐", "露营帐篷", "学校项目"]
_ZH_WHEN = ["昨天", "上周", "周一", "今天早上", "三月份", "两天前", "去年夏天", "周末", "下班后", "今晚"]
_ZH_TAIL = ["，花了4500元", "，和小李一起", "，因为旧的坏了", "，给孩子们", "，感觉很值", "", ""]


def text(i: int) -> str:
    """The synthetic chat turn number ``i`` (deterministic)."""
    r = random.Random(i * 7919 + 17)
    if r.random() < 0.2:
        return f"{r.choice(_ZH_WHEN)}{r.choice(_ZH_SUBJ)}{r.choice(_ZH_VERB)}{r.choice(_ZH_OBJ)}{r.choice(_ZH_TAIL)}。" \
               f"（第{i}条）"
    tail = r.choice(_TAIL)
    return f"{r.choice(_SUBJ)} {r.choice(_VERB)} {r.choice(_OBJ)} {r.choice(_WHEN)}{' ' + tail if tail else ''}" \
           f" (note {i})."


def user_of(i: int, users: int) -> str:
    """The user that memory ``i`` belongs to when ``users`` users share the data (round robin)."""
    return "u0" if users <= 1 else f"u{i % users}"


def make_vectors(n: int, *, dim: int = DIM, seed: int = 7, clusters: int = 512, spread: float = 0.8,
                 path: Path | None = None, chunk: int = 65536) -> np.ndarray:
    """(n, dim) float32 unit vectors around ``clusters`` centres; written to ``path`` (.npy) when given, in
    chunks (1M vectors = 1.5 GB), and returned memory-mapped from there."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    if path is not None:
        out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, dim))
    else:
        out = np.empty((n, dim), dtype=np.float32)
    for s in range(0, n, chunk):
        e = min(n, s + chunk)
        c = rng.integers(0, clusters, e - s)
        v = centres[c] + spread * rng.standard_normal((e - s, dim)).astype(np.float32) / np.sqrt(dim)
        out[s:e] = v / np.linalg.norm(v, axis=1, keepdims=True)
    if path is not None:
        out.flush()
        del out
        return np.load(path, mmap_mode="r")
    return out


def make_queries(vectors: np.ndarray, n_docs: int, n_queries: int, *, users: int = 1, seed: int = 11,
                 noise: float = 0.5) -> tuple[list[dict], np.ndarray]:
    """Queries aimed at random stored memories among the first ``n_docs``: ``[{"text", "user", "target"}]`` and
    their (n_queries, dim) vectors (target vector + noise, normalised). The text is 3 words of the target."""
    rng = np.random.default_rng(seed)
    targets = rng.choice(n_docs, size=n_queries, replace=n_queries > n_docs)
    dim = vectors.shape[1]
    qv = np.asarray(vectors[np.sort(targets)], dtype=np.float32)[np.argsort(np.argsort(targets))]
    qv = qv + noise * rng.standard_normal(qv.shape).astype(np.float32) / np.sqrt(dim)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    qs = []
    for t in targets:
        body = re.sub(r"[（(](note \d+|第\d+条)[)）]", " ", text(int(t)))
        words = [w for w in body.replace("。", " ").replace("，", " ").replace(".", " ").split() if len(w) > 2]
        r = random.Random(int(t))
        pick = r.sample(words, min(3, len(words))) if words else [text(int(t))[:4]]
        qs.append({"text": " ".join(pick), "user": user_of(int(t), users), "target": int(t)})
    return qs, qv.astype(np.float32)
