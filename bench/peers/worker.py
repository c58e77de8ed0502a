"""Benchmark worker: ``python bench/peers/worker.py SYSTEM`` serves the protocol of :mod:`protocol` for one
system. SYSTEM: anchormem-sqlite, anchormem-pg (project venv); chroma, pgvector, mem0 (``bench/.peers-venv``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from protocol import serve  # noqa: E402


def make(system: str):
    if system in ("anchormem-sqlite", "anchormem-pg"):
        from adapter_anchormem import Adapter
        return Adapter("pg" if system.endswith("pg") else "sqlite")
    if system == "chroma":
        from adapter_chroma import Adapter
        return Adapter()
    if system == "pgvector":
        from adapter_pgvector import Adapter
        return Adapter()
    if system == "mem0":
        from adapter_mem0 import Adapter
        return Adapter()
    raise SystemExit(f"unknown system {system!r}")


if __name__ == "__main__":
    raise SystemExit(serve(make(sys.argv[1])))
