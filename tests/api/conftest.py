"""A real anchormem API server on 127.0.0.1 (uvicorn in a subprocess) for the API tests."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import sys
import time
from dataclasses import dataclass, field

import httpx
import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")

from anchormem.server.keys import KeyStore  # noqa: E402
from pg_fixtures import pg_server  # noqa: E402,F401 - PostgreSQL for the stateless-workers test

TENANTS = ("acme", "globex", "initech")


class LiveServer:
    """``uvicorn anchormem.server.app:create_app_from_env`` in a subprocess, on a loopback socket bound here
    (passed by file descriptor, so there is no race for the port), until ``stop()``. Its stdout and stderr go to a
    temporary file (``log()`` reads it): an unread pipe would block the server once 64 KiB of log lines fill it."""

    def __init__(self, env: dict[str, str], *, access_log: bool = False) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("ANCHORMEM_")}
        full_env.update(env)
        fd = self.sock.fileno()
        self._log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "anchormem.server.app:create_app_from_env", "--factory",
             "--fd", str(fd), "--log-level", "info" if access_log else "warning",
             "--access-log" if access_log else "--no-access-log", "--h11-max-incomplete-event-size", "65536"],
            env=full_env, pass_fds=(fd,), stderr=self._log,
            stdout=self._log)  # uvicorn writes its access log to stdout
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError("the API server died: " + self.log())
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the API server did not start")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:  # pragma: no cover
                self.proc.kill()
                self.proc.wait()
        self.sock.close()

    def log(self) -> str:
        """What the server has written to stdout and stderr so far."""
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode(errors="replace")


@dataclass
class Api:
    """The served API: its URL, the key store and one key per (tenant, role)."""

    url: str
    keys: KeyStore
    key: dict[tuple[str, str], str] = field(default_factory=dict)
    server: LiveServer | None = None

    def client(self, tenant: str | None = "acme", role: str = "admin", **kw) -> httpx.Client:
        headers = {} if tenant is None else {"Authorization": f"Bearer {self.key[(tenant, role)]}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30.0, **kw)


def _serve(tmp_path_factory, name: str, **env: str) -> Api:
    d = tmp_path_factory.mktemp(name)
    db = str(d / "api.db")
    keys = KeyStore(db + ".keys.db")
    api = Api("", keys)
    for t in TENANTS:
        for role in ("reader", "writer", "admin"):
            api.key[(t, role)] = keys.create(t, role, name=f"{t}-{role}")[1]
    server = LiveServer({"ANCHORMEM_PATH": db, "ANCHORMEM_KEYS_PATH": keys.path, "ANCHORMEM_EMBEDDER": "hash",
                         **env})
    api.url, api.server = server.url, server
    return api


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed API test's report ends with the tail of its server's log (with the main server's debug logging,
    the error's type and message: a 5xx says which backend failed and why)."""
    outcome = yield
    rep = outcome.get_result()
    if rep.when != "call" or not rep.failed:
        return
    for name in ("api", "limited_api"):
        server = getattr(item.funcargs.get(name), "server", None)
        if server is not None:
            rep.sections.append((f"{name} server log (tail)", server.log()[-6000:]))


@pytest.fixture(scope="session")
def api(tmp_path_factory):
    """The main server: three tenants, keys of every role, no rate limit; debug logs, so that a failure's
    report shows the server's error messages."""
    a = _serve(tmp_path_factory, "api", ANCHORMEM_RATE_LIMIT="off", ANCHORMEM_DEBUG_LOGS="true")
    yield a
    a.server.stop()
    a.keys.close()


@pytest.fixture(scope="session")
def limited_api(tmp_path_factory):
    """A second server with a tight rate limit (2 requests/s, burst 3) and a small body limit."""
    a = _serve(tmp_path_factory, "limited", ANCHORMEM_RATE_LIMIT="2/s", ANCHORMEM_RATE_BURST="3",
               ANCHORMEM_MAX_BODY_BYTES=str(64 * 1024))
    yield a
    a.server.stop()
    a.keys.close()
