"""The LLM interface: chat messages in, text out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["LLM"]


@runtime_checkable
class LLM(Protocol):
    """A chat model.

    ``name``: identifier for logs and provenance (e.g. ``"openai-compat:qwen2.5:7b"``).

    ``complete(messages, json_schema=None, temperature=0.0, max_tokens=None) -> str``: ``messages`` are OpenAI
    chat dicts (``{"role": "system"|"user"|"assistant", "content": str}``). With ``json_schema`` the model is
    asked for JSON matching it (servers that cannot enforce a schema still get the request as plain text, so
    always parse the reply with :func:`anchormem.llms.jsonparse.parse_json_reply`). Raises LLMError.
    """

    name: str

    def complete(self, messages: list[dict], *, json_schema: dict | None = None, temperature: float = 0.0,
                 max_tokens: int | None = None) -> str:
        ...
