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

    def spy(text, *args, **kwargs):
        seen.append(_threads())
        return real(text, *args, **kwargs)

    mem._searcher.embed_query = spy
    mem.add([{"role": "user", "content": "I opened a savings account at the bank."}], user_id="u")
    hits = mem.search("Where is my savings account?", user_id="u")
    ans = mem.ask("Where is my savings account?", user_id="u")
    assert hits and hits[0].memory.text == "I opened a savings account at the bank."
    assert ans.citations and seen and set(seen) == {1}
    assert _threads() == 2
    assert float(np.ones((64, 64)).dot(np.ones(64)).sum()) == 64 * 64.0  # numpy works as before


# ---------------------------------------------------------------- the REST server: OpenBLAS on one thread by default
_REPORT = ("import json, os\nfrom threadpoolctl import threadpool_info\n"
           "def report():\n"
           "    return {'env': os.environ.get('OPENBLAS_NUM_THREADS'), 'omp': os.environ.get('OMP_NUM_THREADS'),\n"
           "            'openblas': [i['num_threads'] for i in threadpool_info() if i['internal_api'] == 'openblas']}\n")
_FACTORY = _REPORT + "from anchormem.server.app import create_app_from_env\ncreate_app_from_env()\nprint(json.dumps(report()))\n"
_SERVE = _REPORT + (  # `anchormem serve`, uvicorn.run replaced: what the app process and a worker process see
    "import subprocess, sys\nimport uvicorn\n"
    "def run(*a, **k):\n"
    "    child = subprocess.run([sys.executable, '-c', 'import numpy\\n' + " + repr(_REPORT) + " + 'print(json.dumps(report()))'],\n"
    "                           capture_output=True, text=True, check=True)\n"
    "    print(json.dumps({**report(), 'worker': json.loads(child.stdout)}))\n"
    "uvicorn.run = run\nfrom anchormem.cli import app\napp(['serve'], standalone_mode=False)\n")


def _server_process(tmp_path, script, **env):
    import json
    import os
    import subprocess
    import sys

    full = {k: v for k, v in os.environ.items() if not k.startswith(("ANCHORMEM_", "OPENBLAS_", "OMP_"))}
    full.update(ANCHORMEM_PATH=str(tmp_path / "s.db"), ANCHORMEM_EMBEDDER="hash", **env)
    out = subprocess.run([sys.executable, "-c", script], env=full, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


needs_cores = pytest.mark.skipif((__import__("os").cpu_count() or 1) < 2, reason="OpenBLAS defaults to 1 thread here")
needs_openblas = pytest.mark.skipif(not ThreadpoolController().select(internal_api="openblas").lib_controllers,
                                    reason="numpy's BLAS is not OpenBLAS")


@needs_cores
@needs_openblas
def test_the_server_app_factory_puts_openblas_on_one_thread_and_leaves_openmp_alone(tmp_path):
    pytest.importorskip("fastapi")
    got = _server_process(tmp_path, _FACTORY)
    assert got == {"env": "1", "omp": None, "openblas": [1]}  # numpy was loaded first: set from the main thread
    got = _server_process(tmp_path, _FACTORY, OPENBLAS_NUM_THREADS="2")  # the user's value is kept
    assert got == {"env": "2", "omp": None, "openblas": [2]}


@needs_cores
@needs_openblas
def test_anchormem_serve_sets_the_default_for_the_app_and_its_worker_processes(tmp_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    got = _server_process(tmp_path, _SERVE)
    assert got == {"env": "1", "omp": None, "openblas": [1],
                   "worker": {"env": "1", "omp": None, "openblas": [1]}}  # a fresh process loads OpenBLAS with it
    got = _server_process(tmp_path, _SERVE, OPENBLAS_NUM_THREADS="2", OMP_NUM_THREADS="3")
    assert got == {"env": "2", "omp": "3", "openblas": [2], "worker": {"env": "2", "omp": "3", "openblas": [2]}}
