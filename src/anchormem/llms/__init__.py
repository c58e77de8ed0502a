"""LLM adapters, reply parsing, and the one place where an LLM is configured.

- :class:`LLM`: the protocol (``name``, ``complete(messages, json_schema=..., temperature=..., max_tokens=...)``).
- :class:`OpenAICompatLLM`: any OpenAI-compatible ``/chat/completions`` endpoint, over httpx.
- :func:`parse_json_reply`: robust JSON extraction from model replies (prose, fences, truncation, bad escapes).
- :func:`make_llm`: build the configured LLM, or None when none is configured (anchormem works offline).
"""

from __future__ import annotations

import os

from ..errors import ConfigError
from .jsonparse import ParseResult, parse_json_reply
from .openai_compat import OpenAICompatLLM
from .protocol import LLM

__all__ = ["LLM", "OpenAICompatLLM", "ParseResult", "parse_json_reply", "make_llm"]


def make_llm(base_url: str | None = None, model: str | None = None, api_key: str | None = None,
             **options) -> LLM | None:
    """The configured LLM, or None when no LLM is configured.

    Arguments not given are read from ``ANCHORMEM_LLM_BASE_URL``, ``ANCHORMEM_LLM_MODEL`` and
    ``ANCHORMEM_LLM_API_KEY``; ``timeout`` (seconds per request, default 60) and ``max_tokens`` (a ceiling on
    every reply, default none) from ``ANCHORMEM_LLM_TIMEOUT`` and ``ANCHORMEM_LLM_MAX_TOKENS`` when not given
    (a small local model on a CPU needs a longer timeout, or a lower ceiling: docs/llm.md). No base URL means no
    LLM (returns None). A base URL without a model, or a timeout / ceiling that is not a positive number, raises
    ConfigError. ``options`` go to :class:`OpenAICompatLLM` (``timeout``, ``transport``, ``max_retries``,
    ``max_tokens``).
    """
    base_url = base_url or os.environ.get("ANCHORMEM_LLM_BASE_URL") or None
    if not base_url:
        return None
    model = model or os.environ.get("ANCHORMEM_LLM_MODEL") or None
    if not model:
        raise ConfigError("an LLM base URL is set but no model: pass model= or set ANCHORMEM_LLM_MODEL")
    api_key = api_key or os.environ.get("ANCHORMEM_LLM_API_KEY") or None
    for key, env, kind in (("timeout", "ANCHORMEM_LLM_TIMEOUT", float),
                           ("max_tokens", "ANCHORMEM_LLM_MAX_TOKENS", int)):
        raw = os.environ.get(env)
        if key in options or not raw:
            continue
        try:
            options[key] = kind(raw)
        except ValueError:
            what = "number" if kind is float else "whole number"
            raise ConfigError(f"{env} must be a {what}, got {raw!r}") from None
        if options[key] <= 0:
            raise ConfigError(f"{env} must be positive, got {raw!r}")
    return OpenAICompatLLM(base_url, model, api_key=api_key, **options)
