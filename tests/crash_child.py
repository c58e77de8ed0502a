"""The writer of tests/test_crash_durability.py. Run as a script it is a *zygote*: it warms up what a first
``add`` loads (the jieba dictionary, the offline labeller) once, then for each JSON line ``[path, ack_path,
round]`` on stdin forks a child running :func:`writer`, prints the child's pid, waits for it and prints its wait
status. So each child the test kills starts writing at once, with no interpreter start or warm-up."""

from __future__ import annotations

import json
import os
import random
import sys

from anchormem import Memory
from anchormem.testing import DeterministicEmbedder

WORDS = ("tea", "bicycle", "Lisbon", "garden", "piano", "Tuesday", "dentist", "train", "novel", "kayak", "奶茶",
         "上海", "周末")


def open_memory(path: str) -> Memory:
    where = {"url": path} if path.startswith("postgresql://") else {"path": path}
    return Memory(**where, embedder=DeterministicEmbedder(64), llm=None, cache=False)


def writer(path: str, ack_path: str, round_no: int) -> None:
    """Add memories forever to the store at ``path`` (a file, or a ``postgresql://`` URL), appending ``{"id",
    "text"}`` to ``ack_path`` after each acknowledged add."""
    rnd = random.Random(round_no)
    mem = open_memory(path)
    fd = os.open(ack_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    i = 0
    while True:
        text = f"Round {round_no} note {i}: I talked about {rnd.choice(WORDS)} and {rnd.choice(WORDS)}."
        events = mem.add(text, user_id=f"u{i % 3}", session_id=f"s{round_no}")
        for e in events:
            if e.event == "ADD":
                os.write(fd, (json.dumps({"id": e.memory.id, "text": e.memory.text}) + "\n").encode())
        i += 1


def _warm_up() -> None:
    with Memory(":memory:", embedder=DeterministicEmbedder(64), llm=None, cache=False) as mem:
        mem.add("I talked about tea and 上海 on Tuesday.", user_id="warm", session_id="s")


def zygote() -> None:
    _warm_up()
    print("ready", flush=True)
    for line in sys.stdin:
        path, ack_path, round_no = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                writer(path, ack_path, round_no)
            finally:
                os._exit(1)
        print(pid, flush=True)
        print(os.waitpid(pid, 0)[1], flush=True)


if __name__ == "__main__":
    zygote()
