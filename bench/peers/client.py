"""The driver side of the benchmark protocol: start a worker process per system and talk to it, and run one
private PostgreSQL 16 + pgvector server (the ``pgserver`` wheel) for the systems that need one.

Only the driver imports this (project venv). See :mod:`protocol` for the messages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

__all__ = ["Worker", "WorkerError", "PgServer", "PEER_SYSTEMS", "ANCHORMEM_SYSTEMS", "python_for"]

HERE = Path(__file__).resolve().parent
ANCHORMEM_SYSTEMS = ("anchormem-sqlite", "anchormem-pg")
PEER_SYSTEMS = ("mem0", "chroma", "pgvector")
NEEDS_PG = ("anchormem-pg", "pgvector")


class WorkerError(RuntimeError):
    """A worker answered an error (``.remote_traceback`` holds its traceback) or died."""

    def __init__(self, msg: str, tb: str = "") -> None:
        super().__init__(msg)
        self.remote_traceback = tb


def python_for(system: str) -> str:
    if system in ANCHORMEM_SYSTEMS:
        return sys.executable
    from peer_env import ensure_peer_venv

    return str(ensure_peer_venv())


class Worker:
    """One system in its own process. ``call(op, **args)`` returns the reply dict (without ``ok``)."""

    def __init__(self, system: str, *, log_dir: Path, env: dict[str, str] | None = None) -> None:
        self.system = system
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"{system}-{uuid.uuid4().hex[:6]}.log"
        self._log = open(self.log_path, "w")  # noqa: SIM115 - closed in close()
        e = dict(os.environ)
        e.update({"PYTHONUNBUFFERED": "1", "TOKENIZERS_PARALLELISM": "false", "ANONYMIZED_TELEMETRY": "False",
                  "MEM0_TELEMETRY": "False"})
        e.update(env or {})
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen([python_for(system), str(HERE / "worker.py"), system], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._log, text=True, bufsize=1, env=e,
                                     cwd=str(HERE))

    def call(self, op: str, **args: Any) -> dict[str, Any]:
        if self.proc.poll() is not None:
            raise WorkerError(f"{self.system} worker exited with {self.proc.returncode}; log: {self.log_path}")
        self.proc.stdin.write(json.dumps({"op": op, **args}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=10)
            raise WorkerError(f"{self.system} worker died during {op} (exit {self.proc.returncode}); "
                              f"log: {self.log_path}: {self.tail()}")
        res = json.loads(line)
        if not res.pop("ok"):
            raise WorkerError(f"{self.system} {op}: {res['error']}", res.get("traceback", ""))
        return res

    def tail(self, n: int = 1500) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.call("close")
                self.proc.wait(timeout=60)
        except (WorkerError, OSError, subprocess.TimeoutExpired, ValueError):
            if self.proc.poll() is None:
                self.proc.kill()  # our own child, by handle
                self.proc.wait(timeout=10)
        finally:
            self._log.close()

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PgServer:
    """A private PostgreSQL (pgserver wheel, unix socket only) in ``data_dir``; ``database()`` makes a fresh
    database and returns its URL. Settings are the server's defaults (shared_buffers 128 MB, fsync on)."""

    def __init__(self, data_dir: Path) -> None:
        import pgserver
        import psycopg

        t0 = time.perf_counter()
        data_dir.mkdir(parents=True, exist_ok=True)
        self.server = pgserver.get_server(data_dir, cleanup_mode="stop")
        with psycopg.connect(self.server.get_uri(), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            self.version = conn.execute("SELECT version()").fetchone()[0].split(" on ")[0]
            self.pgvector = conn.execute("SELECT extversion FROM pg_extension WHERE extname='vector'").fetchone()[0]
        self.startup_seconds = time.perf_counter() - t0

    def database(self, prefix: str = "b") -> str:
        import psycopg

        name = f"{prefix}_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(self.server.get_uri(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
            conn.execute(f"ALTER DATABASE {name} SET search_path = public")
        with psycopg.connect(self.server.get_uri(database=name), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        return self.server.get_uri(database=name)

    def drop(self, url: str) -> None:
        import psycopg

        name = url.split("/")[-1].split("?")[0]
        with psycopg.connect(self.server.get_uri(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def close(self) -> None:
        self.server.cleanup()
