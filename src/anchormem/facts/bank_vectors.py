"""Precomputed vectors of fixed text banks, so the first ``add`` and the first ``ask`` pay no bank embedding.

:mod:`.meaning` classifies a clause against ``data/lang/<lang>/slot_exemplars.json`` (a few hundred sentences).
Embedding a bank costs several CPU-seconds with the bundled model (16.6 CPU-s for both languages, measured under
load by ``bench/meaning_cost.py``), once per process, paid by the first ``add`` that reaches the fallback. For the
bundled embedder the vectors ship in the package instead:
``data/models/exemplar_banks/<embedder name>.<lang>.npz`` holding ``vectors`` (float32 (n, dim), L2-normalised, as
the embedder returned them) and ``digest`` (SHA-256 of the bank's texts in order, first 16 hex digits). The other
banks (:data:`BANKS`: ``ask``'s calibration sentences and term-bar words, ``data/lang/<lang>/calibration.json``,
passage vectors) ship as ``<embedder name>.<bank>.<lang>.npz`` in the same folder and the same form.

:func:`load` returns them only when the embedder's name and dimension match the file's and the digest matches the
bank's current texts; an edited bank (a new exemplar) or another embedder falls back to embedding at first use, so
a stale file can never change a decision, only cost time. After editing a bank, rebuild the files with

    python -m anchormem.facts.bank_vectors

(writes the files for the bundled embedder into the package's data folder; no network). Nothing is read at import.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

import numpy as np

__all__ = ["digest", "load", "build", "BANKS"]

_DIR = ("data", "models", "exemplar_banks")
#: the fixed banks besides the exemplar banks: name -> (langdata file, key), embedded as passages
BANKS = {"calibration": ("calibration", "sentences"), "bar-words": ("calibration", "bar_words")}


def digest(texts: Sequence[str]) -> str:
    """SHA-256 (first 16 hex digits) of ``texts`` joined by newlines: the identity of a bank's content and order."""
    return hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:16]


def _file(name: str, lang: str, bank: str) -> str:
    return f"{name}.{lang}.npz" if not bank else f"{name}.{bank}.{lang}.npz"


def _ref(name: str, lang: str, bank: str = "") -> Any:
    ref = resources.files("anchormem")
    for part in _DIR:
        ref = ref / part
    return ref / _file(name, lang, bank)


def bank_texts(bank: str, lang: str) -> list[str]:
    """The texts of the fixed bank ``bank`` (a key of :data:`BANKS`) of ``lang``, in file order."""
    from .. import langdata

    file, key = BANKS[bank]
    return [str(t) for t in langdata.load(file, lang).get(key, [])]


def load(name: str, dim: int, lang: str, texts: Sequence[str], bank: str = "") -> np.ndarray | None:
    """The shipped vectors of the bank ``texts`` of ``lang`` for the embedder ``name`` of dimension ``dim``:
    float32 (len(texts), dim), or None when no file matches (another embedder, an edited bank, a damaged file).
    ``bank``: "" for the exemplar bank, else a key of :data:`BANKS`."""
    ref = _ref(name, lang, bank)
    try:
        if not ref.is_file():
            return None
        with ref.open("rb") as fh, np.load(fh, allow_pickle=False) as z:
            vecs = np.asarray(z["vectors"], dtype=np.float32)
            stored = str(z["digest"])
    except (OSError, ValueError, KeyError):
        return None
    if stored != digest(texts) or vecs.shape != (len(texts), dim) or not np.isfinite(vecs).all():
        return None
    return vecs


def build(embedder: Any = None, out_dir: str | Path | None = None, langs: Sequence[str] = ("en", "zh")) -> list[Path]:
    """Embed the banks of ``langs`` (the exemplar bank and each of :data:`BANKS`) with ``embedder`` (default: the
    bundled model) and write one ``.npz`` per bank and language into ``out_dir`` (default: the package's
    ``data/models/exemplar_banks``). Returns the paths written."""
    from ..embedders import make_embedder
    from .meaning import bank_texts as exemplar_texts

    emb = embedder or make_embedder("auto")
    folder = Path(out_dir) if out_dir else Path(str(resources.files("anchormem"))).joinpath(*_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for lang in langs:
        for bank in ("", *BANKS):
            texts = exemplar_texts(lang)[0] if not bank else bank_texts(bank, lang)
            vecs = np.asarray(emb.embed_documents(texts), dtype=np.float32)
            path = folder / _file(emb.name, lang, bank)
            np.savez_compressed(path, vectors=vecs, digest=np.array(digest(texts)))
            written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - maintenance command
    for p in build():
        print(p)
