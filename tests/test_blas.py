"""numpy's BLAS runs on one thread inside anchormem's add/search/ask (anchormem.blas), and the caller's thread count
comes back afterwards, also when calls nest, overlap from threads or raise."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController

from anchormem import Memory
from anchormem.blas import one_blas_thread
from anchormem.testing import DeterministicEmbedder

BLAS = ThreadpoolController().select(user_api="blas")
pytestmark = pytest.mark.skipif(not BLAS.lib_controllers, reason="numpy was built without a BLAS threadpoolctl sees")


def _threads() -> int:
    return BLAS.lib_controllers[0].get_num_threads()


@pytest.fixture
def two_threads():
    before = _threads()
    BLAS.lib_controllers[0].set_num_threads(2)
    yield
    BLAS.lib_controllers[0].set_num_threads(before)


def test_one_thread_inside_restored_after_nesting_and_errors(two_threads):
    with one_blas_thread():
        assert _threads() == 1
        with one_blas_thread():
            assert _threads() == 1
        assert _threads() == 1  # the outer block still holds it
    assert _threads() == 2
    with pytest.raises(ZeroDivisionError), one_blas_thread():
        1 / 0
    assert _threads() == 2


def test_a_thread_leaving_does_not_restore_while_another_is_inside(two_threads):
    def worker():
        with one_blas_thread():
            pass

    with one_blas_thread():
        t = threading.Thread(target=worker)
        t.start()
        t.join(5)
        assert _threads() == 1  # the worker left first: the main thread is still inside
    assert _threads() == 2


def test_memory_calls_run_their_products_on_one_thread(two_threads):
    mem = Memory(":memory:", embedder=DeterministicEmbedder(dim=32))
    seen = []
    real = mem._searcher.embed_query

    def spy(text):
        seen.append(_threads())
        return real(text)

    mem._searcher.embed_query = spy
    mem.add([{"role": "user", "content": "I opened a savings account at the bank."}], user_id="u")
    hits = mem.search("Where is my savings account?", user_id="u")
    ans = mem.ask("Where is my savings account?", user_id="u")
    assert hits and hits[0].memory.text == "I opened a savings account at the bank."
    assert ans.citations and seen and set(seen) == {1}
    assert _threads() == 2
    assert float(np.ones((64, 64)).dot(np.ones(64)).sum()) == 64 * 64.0  # numpy works as before
