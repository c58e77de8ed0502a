"""Where the evaluation datasets are: the workspace's ``shared/datasets`` folder, found once, in one place.

The benchmarks and evaluations read LoCoMo, Memora, MemoryBank and CoarseWSD-20 from ``shared/datasets`` beside the
repository (``../shared`` from the repo root), never from a copy inside the package. :func:`datasets_dir` looks, in
order, at ``$ANCHORMEM_DATASETS``, then ``shared/datasets`` in or beside the working directory and each of its parents,
then beside this checkout. Nothing is read at import time.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["datasets_dir", "dataset_path", "LOCOMO"]

#: LoCoMo's file, relative to the datasets folder
LOCOMO = "locomo/locomo10.json"


def _candidates() -> list[Path]:
    env = os.environ.get("ANCHORMEM_DATASETS")
    out = [Path(env)] if env else []
    here = Path.cwd().resolve()
    checkout = Path(__file__).resolve().parents[3]  # src/anchormem/eval/ -> the repo root (editable installs)
    for base in (here, *here.parents, checkout):
        out += [base / "shared" / "datasets", base.parent / "shared" / "datasets"]
    return out


def datasets_dir() -> Path | None:
    """The ``shared/datasets`` folder, or None when there is none (see the module's docstring for the search)."""
    for cand in _candidates():
        if cand.is_dir():
            return cand
    return None


def dataset_path(relative: str) -> Path:
    """``relative`` (``"locomo/locomo10.json"``) inside the first datasets folder that holds it; when none does, the
    documented place (``../shared/datasets/<relative>`` beside this checkout), so that opening it fails with a
    FileNotFoundError naming where the file belongs. Never raises itself (module constants use it)."""
    for cand in _candidates():
        if (cand / relative).exists():
            return cand / relative
    return Path(__file__).resolve().parents[3].parent / "shared" / "datasets" / relative
