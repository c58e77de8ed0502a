"""A scripted OpenAI-compatible chat server on loopback, for tests of code that calls an LLM over HTTP.

    with FakeLLMServer(['{"facts": []}', "second reply"]) as srv:
        llm = OpenAICompatLLM(srv.base_url, "fake")
        llm.complete([{"role": "user", "content": "hi"}])     # -> '{"facts": []}'
        srv.requests[0]["messages"]                            # what the client sent

Each script entry is one reply, used in order:

- ``str``: a 200 chat-completion whose message content is that string;
- :class:`FakeReply`: full control (HTTP status, raw body, ``finish_reason``);
- a callable ``f(request_json) -> str | FakeReply``: computed from the request.

Instead of a list, ``script`` may be one callable, used for every request. When the script runs out the server
answers HTTP 500 (``"fake LLM: no scripted reply left"``), so a test never hangs on an unexpected call.
``reject_json_schema=True`` makes it answer 400 to ``response_format: json_schema`` like servers that only
support ``json_object``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

__all__ = ["FakeLLMServer", "FakeReply"]


@dataclass
class FakeReply:
    """One scripted HTTP answer. ``content`` becomes ``choices[0].message.content``; ``body`` (if given) is
    sent verbatim instead; ``status`` is the HTTP status."""

    content: str | None = None
    status: int = 200
    body: str | None = None
    finish_reason: str = "stop"


Script = Union[str, FakeReply, Callable[[dict], Union[str, FakeReply]]]


class FakeLLMServer:
    """A real HTTP server on ``127.0.0.1`` (random port, daemon thread). Use as a context manager.

    Attributes: ``base_url`` (``http://127.0.0.1:PORT/v1``), ``requests`` (parsed JSON bodies of every
    chat request, in order), ``headers`` (their HTTP headers), ``model`` (model name echoed in replies).
    """

    def __init__(self, script: Sequence[Script] | Callable[[dict], str | FakeReply] = (), *,
                 reject_json_schema: bool = False, model: str = "fake") -> None:
        self._fn = script if callable(script) else None
        self._script = [] if callable(script) else list(script)
        self.reject_json_schema = reject_json_schema
        self.model = model
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------------------------
    def start(self) -> FakeLLMServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _send(self, status: int, body: str) -> None:
                data = body.encode("utf-8", "surrogatepass")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, json.dumps({"object": "list", "data": [{"id": server.model,
                                                                             "object": "model"}]}))
                else:
                    self._send(404, json.dumps({"error": {"message": "not found"}}))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
                    return
                try:
                    req = json.loads(raw)
                except ValueError:
                    self._send(400, json.dumps({"error": {"message": "body is not JSON"}}))
                    return
                status, body = server._answer(req, dict(self.headers))
                self._send(status, body)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="FakeLLMServer", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("FakeLLMServer is not running: use it as a context manager or call start()")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    # -- replies -------------------------------------------------------------------------------------------
    def add(self, *replies: Script) -> None:
        """Append more scripted replies."""
        with self._lock:
            self._script.extend(replies)

    @property
    def remaining(self) -> int:
        """Scripted replies not used yet."""
        return len(self._script)

    def _answer(self, req: dict, headers: dict[str, str]) -> tuple[int, str]:
        with self._lock:
            self.requests.append(req)
            self.headers.append(headers)
            rf = req.get("response_format") or {}
            if self.reject_json_schema and rf.get("type") == "json_schema":
                return 400, json.dumps({"error": {"message": "response_format json_schema is not supported",
                                                  "type": "invalid_request_error"}})
            if self._fn is not None:
                item: Any = self._fn
            elif self._script:
                item = self._script.pop(0)
            else:
                return 500, json.dumps({"error": {"message": "fake LLM: no scripted reply left"}})
        if callable(item) and not isinstance(item, FakeReply):
            item = item(req)
        reply = item if isinstance(item, FakeReply) else FakeReply(content=str(item))
        if reply.body is not None:
            return reply.status, reply.body
        if reply.status >= 400:
            return reply.status, json.dumps({"error": {"message": reply.content or "scripted error"}})
        n = len(self.requests)
        return reply.status, json.dumps({
            "id": f"chatcmpl-fake-{n}", "object": "chat.completion", "created": 0,
            "model": req.get("model", self.model),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content},
                         "finish_reason": reply.finish_reason}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }, ensure_ascii=False)
