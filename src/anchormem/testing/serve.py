"""``anchormem serve`` in a subprocess on a free loopback port, for tests and benchmarks that need real HTTP.

>>> srv = ServeProcess("sqlite:///tmp/m.db", env=os.environ.copy(), log=Path("/tmp/serve.log"))  # doctest: +SKIP
>>> httpx.get(srv.base + "/v1/health").status_code  # doctest: +SKIP
200
>>> srv.stop()  # doctest: +SKIP
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["ServeProcess", "free_port"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServeProcess:
    """``python -m anchormem serve --url URL [--workers N]`` on a free loopback port until :meth:`stop`; its output
    goes to ``log``. Waits (up to ``timeout`` seconds) until ``wait_path`` answers 200. Raises RuntimeError (with the
    log's tail) when the server exits or does not come up in time. ``base``: ``http://127.0.0.1:<port>``."""

    def __init__(self, url: str, *, env: dict[str, str], log: Path, workers: int = 1, wait_path: str = "/v1/health",
                 timeout: float = 90.0) -> None:
        import httpx

        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._fh = open(log, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "anchormem", "serve", "--host", "127.0.0.1", "--port", str(self.port), "--url", url,
             "--workers", str(workers), "--log-level", "warning"], env=env, stdout=self._fh, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(self.base + wait_path, timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"anchormem serve did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)

    def stop(self) -> None:
        """Terminate the server (kill after 30 s) and close its log."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:  # pragma: no cover
                self.proc.kill()
                self.proc.wait()
        self._fh.close()
