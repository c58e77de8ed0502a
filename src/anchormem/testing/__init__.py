"""Test helpers for code that uses anchormem (and for anchormem's own tests).

- :class:`DeterministicEmbedder`: the feature-hashing embedder (no model, no I/O, same vector for the same text
  on every machine). Similarity is lexical, so use it where ranking quality does not matter.
- :func:`frozen_clock`: freeze the library clock (:func:`anchormem.timeutil.set_clock`) at one instant,
  optionally moving it forward by hand::

      with frozen_clock("2025-07-25T02:00:00Z") as clock:
          mem.add("Note: renew the parking permit.", user_id="a")   # created_at == 2025-07-25T02:00Z
          clock.advance(days=1)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from ..embedders.hashing import HashEmbedder
from ..timeutil import set_clock, to_utc

__all__ = ["DeterministicEmbedder", "HashEmbedder", "FrozenClock", "frozen_clock", "run_concurrently"]

DeterministicEmbedder = HashEmbedder


class FrozenClock:
    """A settable clock: calling it returns the current frozen instant (aware UTC)."""

    def __init__(self, start: datetime | str) -> None:
        self.now = to_utc(start, field="frozen clock")

    def __call__(self) -> datetime:
        return self.now

    def set(self, when: datetime | str) -> None:
        """Jump to ``when``."""
        self.now = to_utc(when, field="frozen clock")

    def advance(self, delta: timedelta | None = None, **kwargs: Any) -> datetime:
        """Move forward by ``delta`` (or ``timedelta(**kwargs)``); returns the new instant."""
        self.now = self.now + (delta if delta is not None else timedelta(**kwargs))
        return self.now


@contextmanager
def frozen_clock(start: datetime | str) -> Iterator[FrozenClock]:
    """Freeze the library clock at ``start`` for the ``with`` block; the real clock is restored afterwards."""
    clock = FrozenClock(start)
    set_clock(clock)
    try:
        yield clock
    finally:
        set_clock(None)
def run_concurrently(targets: list[Any]) -> list[Any]:
    """Run each zero-arg callable in its own thread, all released at once by a barrier; returns their results
    in order. Raises AssertionError listing the exceptions if any callable raised."""
    import threading

    barrier = threading.Barrier(len(targets))
    errors: list[BaseException] = []
    out: list[Any] = [None] * len(targets)

    def run(i: int, fn: Any) -> None:
        try:
            barrier.wait()
            out[i] = fn()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [], errors
    return out


from .fake_llm import FakeLLMServer, FakeReply  # noqa: E402  (scripted OpenAI-compatible LLM server)
__all__ += ["FakeLLMServer", "FakeReply"]
