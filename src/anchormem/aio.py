"""``AsyncMemory``: the same API as :class:`~anchormem.Memory` for asyncio code (FastAPI handlers, agent loops).

    from anchormem import AsyncMemory

    async with AsyncMemory("memories.db") as mem:
        await mem.add("I moved to Lisbon last month.", user_id="alice")
        hits = await mem.search("Where do I live?", user_id="alice")

There is one synchronous core: every method runs the ``Memory`` method of the same name, with the same
arguments, return value and exceptions (all :class:`~anchormem.AnchormemError`), in a bounded pool of worker
threads (``max_workers``, default 4), so the event loop is never blocked by embedding or SQLite. Calls beyond
``max_workers`` wait their turn in the pool's queue. Context variables (an OpenTelemetry span, for example) are
carried into the worker thread. Cancelling the awaiting task does not stop a call already running in a thread
(the write or search completes and its result is dropped); a call not yet started is not run.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .arguments import checked_arguments
from .errors import ConfigError
from .memory import Memory

__all__ = ["AsyncMemory", "ASYNC_METHODS"]

# every public Memory method that does I/O or model work; tests check this covers Memory's public methods
ASYNC_METHODS = (
    "add", "add_many", "search", "ask", "context", "get", "get_all", "update", "delete", "delete_all", "history", "export",
    "import_memories", "summarize", "user_summary", "due", "complete", "review_queue", "approve", "reject",
    "expired", "gc", "archive", "restore", "consolidate", "relabel", "reveal", "enrich", "pending",
)


@checked_arguments
class AsyncMemory:
    """Async facade over one :class:`~anchormem.Memory`.

    Args:
        *args, **kwargs: passed to ``Memory(...)`` (path, url, embedder, tenant, llm, settings...). Opening the store
            happens here, synchronously (a file open or a PostgreSQL connection); use
            ``await AsyncMemory.open(...)`` to do that in a worker thread too.
        memory: an existing ``Memory`` to wrap instead (then no other arguments; :meth:`aclose` closes it).
        max_workers: worker threads for calls (>= 1, default 4).

    Every method of ``ASYNC_METHODS`` is a coroutine function with the signature and docstring of the ``Memory``
    method of that name. ``mem.sync`` is the wrapped ``Memory``. Raises ConfigError (``max_workers`` < 1, or
    ``memory`` together with other arguments) and whatever ``Memory(...)`` raises.
    """

    def __init__(self, *args: Any, memory: Memory | None = None, max_workers: int = 4, **kwargs: Any) -> None:
        if not isinstance(max_workers, int) or isinstance(max_workers, bool) or max_workers < 1:
            raise ConfigError("max_workers must be an integer >= 1")
        if memory is not None and (args or kwargs):
            raise ConfigError("give either memory= or Memory arguments, not both")
        self.sync: Memory = memory if memory is not None else Memory(*args, **kwargs)
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="anchormem")
        self._closed = False

    @classmethod
    async def open(cls, *args: Any, max_workers: int = 4, **kwargs: Any) -> "AsyncMemory":
        """Open the store in a worker thread (``Memory(*args, **kwargs)``) and wrap it."""
        mem = await asyncio.to_thread(Memory, *args, **kwargs)
        return cls(memory=mem, max_workers=max_workers)

    async def _run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if self._closed:
            raise ConfigError("this AsyncMemory is closed")
        ctx = contextvars.copy_context()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(ctx.run, fn, *args, **kwargs))

    async def aclose(self) -> None:
        """Wait for running calls, then close the store and the worker threads. Idempotent."""
        if self._closed:
            return
        self._closed = True
        await asyncio.to_thread(self._pool.shutdown, wait=True)
        self.sync.close()

    async def __aenter__(self) -> "AsyncMemory":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AsyncMemory({self.sync.path!r}, tenant={self.sync.tenant!r})"


def _make(name: str) -> Any:
    target = getattr(Memory, name)

    async def method(self: AsyncMemory, *args: Any, **kwargs: Any) -> Any:
        return await self._run(getattr(self.sync, name), *args, **kwargs)

    functools.update_wrapper(method, target)
    method.__signature__ = inspect.signature(target)  # type: ignore[attr-defined]
    del method.__wrapped__  # inspect.iscoroutinefunction must see the coroutine, not Memory's method
    return method


for _name in ASYNC_METHODS:
    setattr(AsyncMemory, _name, _make(_name))
del _name
