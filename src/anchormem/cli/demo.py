"""``anchormem demo``: the main job on bundled English and Chinese conversations."""

from __future__ import annotations


import json
import os
import tempfile
from datetime import datetime
from importlib import resources
from typing import Any, Callable, Optional

import typer
from rich.console import Group
from rich.markup import escape
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text


from .common import app, _answer_json, _answer_renderable, _emit_json, _err, _handled, _out, _state

DEMO_FILES = ("demo_en.json", "demo_zh.json")


# ----------------------------------------------------------------------------------------------- demo
def load_demo(name: str) -> dict[str, Any]:
    """Load a bundled demo file (``demo_en.json`` / ``demo_zh.json``)."""
    return json.loads(resources.files("anchormem").joinpath("data", name).read_text(encoding="utf-8"))


def _check(question: dict[str, Any], ans: Any) -> bool:
    if question.get("abstain"):
        return ans.abstained
    if ans.abstained:
        return False
    expect = question["expect"]  # the first citation is what a reader takes as the answer: it must hold it
    return bool(ans.citations) and expect in ans.citations[0].text


def run_demo(mem: Any, *, on_ingest: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Ingest every bundled demo conversation into ``mem`` and ask its questions. Returns one dict per question:
    language, question, expect/abstain, the answer (``_answer_json`` shape) and ``ok``."""
    from ..importers import parse_json

    demos = [load_demo(n) for n in DEMO_FILES]
    plan = [(d, b) for d in demos for b in parse_json(d["sessions"], user_id=d["user_id"])]
    for i, (_, (scope, msgs)) in enumerate(plan, start=1):
        mem.add(msgs, **scope)
        if on_ingest:
            on_ingest(i, len(plan))
    results = []
    for d in demos:
        for q in d["questions"]:
            ans = mem.ask(q["question"], user_id=d["user_id"])
            row = _answer_json(q["question"], ans)
            row.update({"language": d["language"], "user_id": d["user_id"], "expect": q.get("expect"),
                        "should_abstain": bool(q.get("abstain")), "known_weakness": q.get("known_weakness"),
                        "ok": _check(q, ans)})
            results.append(row)
    return results


@app.command()
@_handled
def demo(
    db: Optional[str] = typer.Option(None, "--db", metavar="PATH",
                                     help="Database for the demo (default: a fresh temporary file)."),
) -> None:
    """Ingest bundled English and Chinese conversations, then ask questions and show cited answers."""
    from ..memory import Memory

    path = db
    if path is None:
        path = os.path.join(tempfile.mkdtemp(prefix="anchormem-demo-"), "demo.db")
    con = _out()
    err = _err()
    err.print(f"demo database: {path}", soft_wrap=True)
    with Memory(path) as mem:
        if not _state.json:
            err.print(f"embedder: {mem.embedder.name}")
        with Progress(TextColumn("ingesting demo sessions"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err, disable=_state.json, transient=True) as progress:
            task = progress.add_task("ingest", total=None)
            results = run_demo(mem, on_ingest=lambda d, t: progress.update(task, completed=d, total=t))
        counts = {d["user_id"]: len(mem.get_all(user_id=d["user_id"])) for d in map(load_demo, DEMO_FILES)}
    ok = sum(r["ok"] for r in results)
    if _state.json:
        _emit_json({"db": path, "memories": counts, "results": results, "ok": ok, "total": len(results)})
        return
    con.print("Stored memories: " + ", ".join(f"{u}: {n}" for u, n in counts.items()))
    for lang in ("en", "zh"):
        demo_data = next(d for d in map(load_demo, DEMO_FILES) if d["language"] == lang)
        con.rule(f"[bold]{escape(demo_data.get('title', lang))}[/]")
        for r in (r for r in results if r["language"] == lang):
            ans = _Answerish(r)
            mark = "[green]✓[/]" if r["ok"] else "[red]✗[/]"
            expect = "should abstain" if r["should_abstain"] else "should cite: " + r["expect"]
            body = _answer_renderable(ans)
            if not r["ok"] and r["known_weakness"]:
                body = Group(body, Text(f"known engine weakness: {r['known_weakness']}", style="red italic"))
            con.print(Panel(body, title=f"{mark} [bold]{escape(r['question'])}[/]", title_align="left",
                            subtitle=escape(expect), subtitle_align="right",
                            border_style="green" if r["ok"] else "red"))
    known = sum(1 for r in results if not r["ok"] and r["known_weakness"])
    con.print(f"[bold]{ok}/{len(results)}[/] questions answered as expected"
              + (f" ({known} miss{'es' if known > 1 else ''} from a known engine weakness, shown in red)." if known
                 else "."))
    con.print(f"Database: {path}", soft_wrap=True)


class _Answerish:
    """Adapts a demo result dict back to what :func:`_answer_renderable` reads."""

    def __init__(self, r: dict[str, Any]) -> None:
        self.abstained = r["abstained"]
        self.text = r["answer"]
        self.citations = [_Cite(c) for c in r["citations"]]


class _Cite:
    def __init__(self, c: dict[str, Any]) -> None:
        self.id = c["id"]
        self.text = c["quote"]
        self.speaker = c["speaker"]
        self.source = c["source"]
        self.created_at = datetime.fromisoformat(c["created_at"])
