"""numpy's BLAS on one thread while anchormem embeds and searches.

OpenBLAS (numpy's BLAS) keeps its worker threads spinning for a while after a multi-threaded product, and the
embedding engine's OpenMP threads then wait for the cores: on 2 cores a query embedding right after the dense
search's matrix-vector product took ~100 ms instead of ~20 (``python bench/profile_search.py``,
bench/results/search_profile_sqlite.txt), so a search with a new question cost ~4x what its parts do
(``fresh`` in bench/results/polysemy.json). Inside :func:`one_blas_thread` products run on the calling thread, no
BLAS worker wakes up, and the engine has the cores. The limit is process-wide while a call runs (numpy work of
the application's other threads in that window runs on one thread too); the thread count it had is restored when
the last overlapping call leaves (calls from several threads share one count). Uses threadpoolctl; without a BLAS it can
find (or threadpoolctl), nothing changes. Measured limit: numpy's bundled OpenBLAS (0.3.31) ignored a thread count
set from a thread other than the main one, so a block entered first from a worker thread (a server's threadpool)
may still run products on every core. A server therefore calls :func:`server_default` at startup, on its main
thread: OpenBLAS on one thread for the whole process and its worker processes, unless the user chose a count.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["one_blas_thread", "with_one_blas_thread", "server_default"]

F = TypeVar("F", bound=Callable[..., Any])

_lock = threading.Lock()
_state: dict[str, Any] = {"libs": None, "depth": 0, "saved": []}


def _libs() -> list[Any]:
    """threadpoolctl's controllers of the loaded BLAS libraries (looked up once, on first use)."""
    if _state["libs"] is None:
        try:
            from threadpoolctl import ThreadpoolController

            _state["libs"] = list(ThreadpoolController().select(user_api="blas").lib_controllers)
        except Exception:  # noqa: BLE001 - no threadpoolctl or an unknown BLAS: leave threads alone
            _state["libs"] = []
    return _state["libs"]


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS limited to one thread inside the block (re-entrant, shared by concurrent callers)."""
    with _lock:
        libs = _libs()
        if _state["depth"] == 0:
            _state["saved"] = [lib.get_num_threads() for lib in libs]
            for lib in libs:
                lib.set_num_threads(1)
        _state["depth"] += 1
    try:
        yield
    finally:
        with _lock:
            _state["depth"] -= 1
            if _state["depth"] == 0:
                for lib, n in zip(libs, _state["saved"]):
                    lib.set_num_threads(n)


def with_one_blas_thread(fn: F) -> F:
    """Decorator: ``fn`` runs inside :func:`one_blas_thread`."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with one_blas_thread():
            return fn(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


def server_default() -> bool:
    """The REST server's BLAS default: ``OPENBLAS_NUM_THREADS=1`` unless it is already set (the user's value wins;
    returns False and changes nothing then). The variable reaches processes started afterwards (uvicorn's
    ``--workers``, which load numpy after it is set); this process has loaded numpy already (``import anchormem``
    does), so its OpenBLAS is also set to one thread through threadpoolctl, which OpenBLAS honours from the main
    thread only (see the module docstring): call it from the main thread. ``OMP_NUM_THREADS`` is left alone: the
    embedding engine's OpenMP threads do the server's real work. Returns True when the default was applied."""
    if os.environ.get("OPENBLAS_NUM_THREADS") is not None:
        return False
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    if threading.current_thread() is threading.main_thread():
        with _lock:
            for lib in _libs():
                if lib.internal_api == "openblas":
                    lib.set_num_threads(1)
    return True
