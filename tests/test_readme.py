"""The README's Python example runs as written and prints what its comments say (default embedder)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_core_api_example_prints_what_its_comments_say(monkeypatch):
    monkeypatch.delenv("ANCHORMEM_EMBEDDER", raising=False)
    blocks = [b for b in python_blocks() if "await " not in b]  # the core example (the async one is below)
    assert len(blocks) == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], str(README), "exec"), {})
    printed = out.getvalue().splitlines()
    # every print(...) line that carries a "# value" comment must print that value
    expected = [m.group(1).split(" (")[0].strip()
                for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", blocks[0], re.M)]
    commented = [line for line, src in zip(printed, [ln for ln in blocks[0].splitlines() if ln.strip().startswith("print(")])
                 if re.search(r"\)\s+# ", src)]
    assert commented == expected
    assert printed[3] == "False ['我上周三刚搬到杭州，月租4500元。']"


def test_the_async_example_runs(tmp_path, monkeypatch):
    import asyncio

    monkeypatch.chdir(tmp_path)
    (block,) = [b for b in python_blocks() if "await " in b]
    body = "\n".join("    " + ln for ln in block.splitlines() if not ln.startswith("from "))
    ns: dict = {}
    exec("from anchormem import AsyncMemory\nasync def main():\n" + body + "\n    return hits", ns)
    hits = asyncio.run(ns["main"]())
    assert hits[0].memory.text == "I moved to Lisbon last month."
