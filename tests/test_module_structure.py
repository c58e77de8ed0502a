"""Structure rules of the source tree: modules of at most 800 lines, no import circle among the store modules
(each imports on its own in a fresh interpreter, and the graph of their relative imports, lazy ones included,
has no cycle), and no store module imports an engine module (they read the schema from :mod:`.schema`)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "anchormem"
STORES = SRC / "stores"
MAX_LINES = 800
# modules allowed over the limit (none: split by responsibility instead)
KNOWN_OVER: set[str] = set()


def _store_modules() -> list[str]:
    return sorted(p.stem for p in STORES.glob("*.py") if p.stem != "__init__")


def _relative_imports(path: Path) -> set[str]:
    """Sibling modules a store module imports (``from .x import`` / ``from . import x``), at any depth."""
    deps: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                deps.add(node.module.split(".")[0])
            else:
                deps |= {a.name for a in node.names}
    return deps


def test_every_module_is_at_most_800_lines():
    over = {str(p.relative_to(SRC)): n for p in SRC.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert set(over) == KNOWN_OVER, over


def test_store_modules_form_no_import_cycle():
    graph = {m: _relative_imports(STORES / f"{m}.py") & set(_store_modules()) for m in _store_modules()}
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph[m]):
            assert state.get(d) != 1, "import cycle: " + " -> ".join(path[path.index(d):] + [d])
            if d not in state:
                visit(d, path + [d])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [m])
    assert graph["schema"] & {"sqlite", "postgres"} == set()


def test_no_store_module_imports_an_engine_module():
    """The mixins and helpers read the schema from .schema; only the package's users pick an engine."""
    for m in _store_modules():
        assert not _relative_imports(STORES / f"{m}.py") & {"sqlite", "postgres"}, m


def test_each_store_module_imports_alone():
    code = ("import importlib, sys\n"
            "for name in sys.argv[1:]:\n"
            "    for k in [k for k in sys.modules if k.startswith('anchormem')]:\n"
            "        del sys.modules[k]\n"
            "    importlib.import_module('anchormem.stores.' + name)\n")
    # one interpreter, anchormem dropped from sys.modules before each module: each is imported as the first one
    res = subprocess.run([sys.executable, "-c", code, *_store_modules()], capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(SRC.parent), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr[-2000:]
