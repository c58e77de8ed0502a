"""A chat model behind any OpenAI-compatible ``/chat/completions`` endpoint (OpenAI, Ollama, vLLM, DeepSeek,
Qwen/DashScope, llama.cpp server, LM Studio...), over plain httpx."""

from __future__ import annotations

import time
from typing import Any

from ..errors import ConfigError, LLMError
from ..tracing import record_llm_usage, staged

__all__ = ["OpenAICompatLLM"]

# response_format levels, best first; a server that rejects one (HTTP 400/422) is asked with the next
_FORMATS = ("json_schema", "json_object", "plain")


def _excerpt(text: str, limit: int = 300) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit] + "…"


class OpenAICompatLLM:
    """POSTs ``{"model", "messages", "temperature", ["max_tokens"], ["response_format"]}`` to
    ``{base_url}/chat/completions`` and returns ``choices[0].message.content``.

    Args:
        base_url: e.g. ``https://api.openai.com/v1``, ``http://localhost:11434/v1`` (Ollama).
        model: the model name the server knows.
        api_key: sent as ``Authorization: Bearer ...`` when given.
        timeout: seconds per request.
        transport: an httpx transport (tests: ``httpx.MockTransport``).
        max_retries: extra attempts after a connection error, HTTP 429 or 5xx (short backoff).

    With ``json_schema`` the request carries ``response_format={"type": "json_schema", ...}``. If the server
    rejects that with HTTP 400/422 the same request is sent with ``{"type": "json_object"}``, then with no
    ``response_format`` at all; the level that worked is remembered for later calls. Failures raise LLMError
    carrying ``status_code`` and a short excerpt of the response body. ``last_finish_reason`` is the last
    reply's ``finish_reason`` (``"length"`` means the reply was cut off at ``max_tokens``).
    """

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60,
                 transport: Any = None, *, max_retries: int = 1) -> None:
        if not base_url or not model:
            raise ConfigError("OpenAICompatLLM needs base_url and model")
        import httpx

        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout,
                                    transport=transport)
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"openai-compat:{model}"
        self.max_retries = max(0, int(max_retries))
        self.last_finish_reason: str | None = None
        self._format_level = 0

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAICompatLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OpenAICompatLLM(base_url={self.base_url!r}, model={self.model!r})"

    @staticmethod
    def _response_format(level: str, schema: dict) -> dict | None:
        if level == "json_schema":
            return {"type": "json_schema",
                    "json_schema": {"name": str(schema.get("title") or "reply"), "schema": schema}}
        if level == "json_object":
            return {"type": "json_object"}
        return None

    def _post(self, body: dict) -> Any:
        import httpx

        attempt = 0
        while True:
            try:
                resp = self._client.post("/chat/completions", json=body)
            except httpx.HTTPError as exc:
                if attempt < self.max_retries:
                    attempt += 1
                    time.sleep(0.2 * attempt)
                    continue
                err = LLMError(f"LLM endpoint {self.base_url} unreachable: {type(exc).__name__}: {exc}")
                err.status_code = None  # type: ignore[attr-defined]
                raise err from exc
            if (resp.status_code == 429 or resp.status_code >= 500) and attempt < self.max_retries:
                attempt += 1
                time.sleep(0.2 * attempt)
                continue
            return resp

    @staged("llm")
    def complete(self, messages: list[dict], *, json_schema: dict | None = None, temperature: float = 0.0,
                 max_tokens: int | None = None) -> str:
        """One chat completion; returns the reply text. Raises LLMError (HTTP failure, no content)."""
        if not messages:
            raise LLMError("complete() needs at least one message")
        base: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if max_tokens is not None:
            base["max_tokens"] = max_tokens
        level = self._format_level if json_schema is not None else len(_FORMATS) - 1
        while True:
            body = dict(base)
            fmt = self._response_format(_FORMATS[level], json_schema or {})
            if fmt is not None:
                body["response_format"] = fmt
            resp = self._post(body)
            if resp.status_code in (400, 422) and fmt is not None and level < len(_FORMATS) - 1:
                level += 1  # the server does not support this response_format: ask more plainly
                self._format_level = level
                continue
            break
        if resp.status_code >= 400:
            err = LLMError(f"LLM endpoint {self.base_url} returned HTTP {resp.status_code}: "
                           f"{_excerpt(resp.text)}")
            err.status_code = resp.status_code  # type: ignore[attr-defined]
            raise err
        try:
            data = resp.json()
            record_llm_usage(self.model, data)
            choice = data["choices"][0]
            content = choice["message"].get("content")
            self.last_finish_reason = choice.get("finish_reason")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            err = LLMError(f"LLM endpoint {self.base_url} sent an unexpected response: {_excerpt(resp.text)}")
            err.status_code = resp.status_code  # type: ignore[attr-defined]
            raise err from exc
        if not isinstance(content, str):
            refusal = choice.get("message", {}).get("refusal")
            err = LLMError(f"LLM returned no text content (refusal: {refusal!r})" if refusal
                           else "LLM returned no text content")
            err.status_code = resp.status_code  # type: ignore[attr-defined]
            raise err
        return content
