"""Crash test: a child process adds memories and writes each acknowledged memory id to an ack file after ``add``
returns; the parent kills it with SIGKILL at a random moment (seeded), reopens the store, and checks that every
id ever acknowledged is there with its text, and (SQLite) that the database passes ``PRAGMA integrity_check``.
24 kills on SQLite, 20 on PostgreSQL (the client killed mid-transaction), each run bounded by a deadline (about
20 s here).

Children are forked by a zygote process (tests/crash_child.py) that imported anchormem and warmed it up once, so
a kill costs no interpreter start. A kill -9 shows that an acknowledged commit is in the WAL; a power cut also
needs it on stable storage, which is the ``durability="full"`` default (``synchronous=FULL``:
stores/durability.py), not testable by a kill."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import crash_child
from anchormem import Memory
from pg_fixtures import pg_server  # noqa: F401

KILLS = 24
PG_KILLS = 20
SEED = 20251206
DEADLINE_S = 600.0  # a bound against a hang, not a speed target (a loaded 2-core machine is slow)


def acknowledged(ack_path: Path) -> list[dict]:
    """Every complete ack line (a line cut by the kill was never acknowledged)."""
    if not ack_path.exists():
        return []
    return [json.loads(line) for line in ack_path.read_text(encoding="utf-8").split("\n")[:-1]]


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_every_acknowledged_add_survives_kill_9(tmp_path, backend, request):
    sqlite = backend == "sqlite"
    path = str(tmp_path / "crash.db") if sqlite else request.getfixturevalue("pg_server").new_database()
    ack = tmp_path / "acks.jsonl"
    kills = KILLS if sqlite else PG_KILLS
    zygote = subprocess.Popen([sys.executable, str(Path(__file__).with_name("crash_child.py"))], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert zygote.stdout.readline().strip() == "ready"
        rnd = random.Random(SEED)
        t0 = time.monotonic()
        mid_write = 0
        for kill in range(kills):
            assert time.monotonic() - t0 < DEADLINE_S, f"only {kill} kills in {DEADLINE_S} s"
            before = len(acknowledged(ack))
            zygote.stdin.write(json.dumps([path, str(ack), kill]) + "\n")
            zygote.stdin.flush()
            pid = int(zygote.stdout.readline())
            wait_start = time.monotonic()  # until it writes (or while it opens the store: also fair game) ...
            # (a few acknowledged adds per kill whatever the machine's load, so the run checks enough writes)
            while len(acknowledged(ack)) < before + 4 and time.monotonic() - wait_start < 60:
                time.sleep(0.005)
            time.sleep(rnd.uniform(0.0, 0.25))  # ... then a random while longer
            os.kill(pid, signal.SIGKILL)
            status = int(zygote.stdout.readline())
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            acks = acknowledged(ack)
            mid_write += len(acks) > before
            with crash_child.open_memory(path) as mem:
                missing = [a for a in acks if _text(mem, a["id"]) != a["text"]]
            assert missing == [], f"after kill {kill + 1}: {len(missing)} of {len(acks)} acknowledged adds lost"
    finally:
        zygote.stdin.close()
        zygote.wait(30)
    if sqlite:
        conn = sqlite3.connect(path)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            conn.close()
    assert mid_write == kills  # every kill landed while the child was writing
    assert len(acknowledged(ack)) > 3 * kills


def _text(mem: Memory, memory_id: str) -> str | None:
    from anchormem.errors import NotFoundError

    try:
        return mem.get(memory_id).text
    except NotFoundError:
        return None
