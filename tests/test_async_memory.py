"""AsyncMemory wraps the one sync core: same signatures, results and errors; bounded worker threads."""

from __future__ import annotations

import asyncio
import inspect
import threading

import pytest

from anchormem import AsyncMemory, ConfigError, InvalidInputError, Memory, NotFoundError
from anchormem.aio import ASYNC_METHODS
from anchormem.testing import HashEmbedder


def test_every_public_memory_method_has_an_async_twin_with_the_same_signature():
    public = {n for cls in Memory.__mro__[:-1] for n, v in vars(cls).items()  # its mixins' methods too
              if callable(v) and not n.startswith("_") and n not in ("close",)}
    assert public == set(ASYNC_METHODS)
    for name in ASYNC_METHODS:
        fn = getattr(AsyncMemory, name)
        assert inspect.iscoroutinefunction(fn), name
        assert inspect.signature(fn) == inspect.signature(getattr(Memory, name)), name
        assert fn.__doc__ == getattr(Memory, name).__doc__


def test_add_search_ask_and_errors_match_the_sync_core(tmp_path):
    async def main():
        async with AsyncMemory(str(tmp_path / "m.db"), embedder=HashEmbedder()) as mem:
            events = await mem.add("I live in Lisbon.", user_id="ana", timestamp="2024-01-05T10:00:00Z")
            assert [e.event for e in events] == ["ADD"]
            events = await mem.add("I moved to Munich last month.", user_id="ana",
                                   timestamp="2024-06-01T10:00:00Z")
            assert "SUPERSEDE" in [e.event for e in events]
            hits = await mem.search("where do I live", user_id="ana")
            assert "Munich" in hits[0].memory.text
            ans = await mem.ask("Where do I live?", user_id="ana")
            assert not ans.abstained and "Munich" in ans.citations[0].text
            got = await mem.get(hits[0].memory.id)
            assert got.id == hits[0].memory.id
            with pytest.raises(NotFoundError):
                await mem.get("no-such-id")
            with pytest.raises(InvalidInputError):
                await mem.search("", user_id="ana")
            return [m.text for m in await mem.get_all(user_id="ana")]
    texts = asyncio.run(main())
    with Memory(str(tmp_path / "m.db"), embedder=HashEmbedder()) as sync:  # the same file, read by the sync core
        assert [m.text for m in sync.get_all(user_id="ana")] == texts


def test_calls_run_in_at_most_max_workers_threads_and_never_on_the_loop():
    seen: set[str] = set()
    active = 0
    peak = 0
    lock = threading.Lock()
    release = threading.Event()

    class Probe(Memory):
        def search(self, query, **kw):  # type: ignore[override]
            nonlocal active, peak
            with lock:
                active += 1
                peak = max(peak, active)
                seen.add(threading.current_thread().name)
            release.wait(5)
            with lock:
                active -= 1
            return []

    async def main():
        mem = AsyncMemory(memory=Probe(":memory:", embedder=HashEmbedder()), max_workers=2)
        tasks = [asyncio.create_task(mem.search("q", user_id="u")) for _ in range(6)]
        await asyncio.sleep(0.2)
        loop_alive = True  # the loop still runs while the workers block
        release.set()
        out = await asyncio.gather(*tasks)
        await mem.aclose()
        return loop_alive, out

    loop_alive, out = asyncio.run(main())
    assert loop_alive and out == [[]] * 6
    assert peak == 2
    assert all(n.startswith("anchormem") for n in seen)


def test_closed_and_bad_arguments_are_config_errors():
    with pytest.raises(ConfigError):
        AsyncMemory(":memory:", max_workers=0)
    mem = Memory(":memory:", embedder=HashEmbedder())
    with pytest.raises(ConfigError):
        AsyncMemory(":memory:", memory=mem)

    async def main():
        amem = await AsyncMemory.open(":memory:", embedder=HashEmbedder())
        await amem.aclose()
        await amem.aclose()  # idempotent
        with pytest.raises(ConfigError):
            await amem.search("x", user_id="u")
    asyncio.run(main())
    mem.close()


def test_context_variables_reach_the_worker_thread():
    import contextvars

    var: contextvars.ContextVar[str] = contextvars.ContextVar("probe", default="unset")
    got: list[str] = []

    class Probe(Memory):
        def get(self, memory_id):  # type: ignore[override]
            got.append(var.get())
            raise NotFoundError("x")

    async def main():
        async with AsyncMemory(memory=Probe(":memory:", embedder=HashEmbedder())) as mem:
            var.set("from-the-task")
            with pytest.raises(NotFoundError):
                await mem.get("x")
    asyncio.run(main())
    assert got == ["from-the-task"]
