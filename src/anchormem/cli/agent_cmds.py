"""``anchormem mediate`` and ``anchormem support``: the reference agents (:mod:`anchormem.agents`) on a scripted
scenario (a bundled name or a JSON file) or interactively, one message per line on stdin."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any, Optional

import typer
from rich.markup import escape

from ..errors import InvalidInputError
from .common import _emit_json, _err, _handled, _out, _state, app

_LANGS = ("auto", "en", "zh")


def _memory(db: str | None, embedder: str | None, *, scripted: bool) -> tuple[Any, str]:
    """The Memory: ``db``, else for a scripted run a fresh temporary file, else the global ``--db`` store."""
    from ..config import default_path
    from ..memory import Memory

    path = db or (os.path.join(tempfile.mkdtemp(prefix="anchormem-agent-"), "agent.db") if scripted
                  else (_state.db or default_path()))
    return Memory(path, embedder=embedder), path


def _print_turn(row: dict[str, Any], who: str) -> None:
    rep = row["reply"]
    con = _out()
    con.print(f"[bold cyan]{escape(row['speaker'])}[/] [dim]{row['at']}[/] › {escape(row['text'])}", soft_wrap=True)
    tag = rep.metadata.get("stage_name") or rep.metadata.get("intent") or ""
    con.print(f"[bold green]{who}[/] [magenta]\\[{escape(str(tag))}][/]" + (" [dim](llm)[/]" if rep.llm else ""))
    for line in rep.lines:
        con.print(f"  {escape(line)}", soft_wrap=True)
    if rep.citations:
        con.print("  [dim]cited: " + ", ".join(c.id[:12] for c in rep.citations) + "[/]")


def _run_scripted(scenario: str, db: str | None, embedder: str | None, agent: str) -> None:
    from ..agents import load_scenario, run_scenario

    sc = load_scenario(scenario)
    if sc["agent"] != agent:
        command = "mediate" if sc["agent"] == "mediator" else "support"
        raise InvalidInputError(f"scenario {scenario!r} is for 'anchormem {command}'")
    mem, path = _memory(db, embedder, scripted=True)
    with mem:
        if not _state.json:
            _err().print(f"{agent} scenario: {sc.get('title', scenario)} · database: {path}", soft_wrap=True)
        last: list[str] = []

        def show(row: dict[str, Any]) -> None:
            if _state.json:
                return
            if last != [row["session_id"]]:
                _out().rule(f"session {escape(row['session_id'])}")
                last[:] = [row["session_id"]]
            _print_turn(row, "mediator" if agent == "mediator" else "assistant")

        rows = run_scenario(mem, sc, on_turn=show)
        uid = sc.get("case_id") or sc["customer_id"]
        doc: dict[str, Any] = {"db": path, "agent": agent, "title": sc.get("title"), "user_id": uid,
                               "turns": [{**{k: v for k, v in r.items() if k != "reply"}, "reply": r["reply"].to_dict()}
                                         for r in rows]}
        if agent == "mediator":
            doc["open_commitments"] = [{"id": c.id, "text": c.text, "party": c.metadata.get("party"),
                                        "due": c.event_time.isoformat() if c.event_time else None}
                                       for c in mem.due(user_id=uid)]
        else:
            doc["review_queue"] = [{"id": r.id, "reason": r.reason, "text": r.proposed.text}
                                   for r in mem.review_queue(user_id=uid)]
    if _state.json:
        _emit_json(doc)
    elif agent == "mediator":
        _out().print(f"open commitments: {len(doc['open_commitments'])}")
    else:
        _out().print(f"changes waiting for review: {len(doc['review_queue'])} (anchormem review list --user {uid})")


def _show_list() -> None:
    from ..agents import bundled_scenarios

    if _state.json:
        _emit_json(bundled_scenarios())
    else:
        _out().print("\n".join(bundled_scenarios()))


def _show_row(row: dict[str, Any], who: str) -> None:
    """One interactive turn: one JSON line with --json (JSON Lines), else the readable layout."""
    if _state.json:
        doc = {**{k: v for k, v in row.items() if k != "reply"}, "reply": row["reply"].to_dict()}
        typer.echo(json.dumps(doc, ensure_ascii=False, default=str))
    else:
        _print_turn(row, who)


def _lines() -> Any:
    for raw in sys.stdin:
        line = raw.strip()
        if line:
            yield line


@app.command()
@_handled
def mediate(
    scenario: Optional[str] = typer.Argument(None, help="A bundled scenario name (e.g. neighbour_dispute_en) or a "
                                                        "JSON file; without it, read messages from stdin."),
    db: Optional[str] = typer.Option(None, "--db", metavar="PATH",
                                     help="Database (scenario default: a fresh temporary file; interactive "
                                          "default: the global --db)."),
    case: str = typer.Option("case-1", "--case", help="Case id (interactive)."),
    party: list[str] = typer.Option([], "--party", help="A party as id=Name (interactive; at least two)."),
    session: Optional[str] = typer.Option(None, "--session", help="Session id (interactive; default today)."),
    language: str = typer.Option("auto", "--language", help="auto, en or zh."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedder name (auto, e5-small, hash)."),
    list_: bool = typer.Option(False, "--list", help="List the bundled scenarios and exit."),
) -> None:
    """Mediate a dispute. Interactive lines are 'party: message'; '/session ID' starts another session, '/quit'
    stops."""
    from ..agents import Mediator

    if list_:
        _show_list()
        return
    if scenario:
        _run_scripted(scenario, db, embedder, "mediator")
        return
    if language not in _LANGS:
        raise InvalidInputError(f"--language must be one of {', '.join(_LANGS)}")
    parties = dict(p.split("=", 1) if "=" in p else (p, p) for p in party)
    mem, _path = _memory(db, embedder, scripted=False)
    with mem:
        from ..timeutil import utcnow

        med = Mediator(mem, case, parties, language=language, llm=mem.llm)
        sid = session or utcnow().date().isoformat()
        for line in _lines():
            if line in ("/quit", "/exit"):
                break
            if line.startswith("/session"):
                sid = line.split(maxsplit=1)[1].strip() if " " in line else sid
                continue
            who, _, text = line.partition(":")
            if not text.strip() or who.strip() not in parties:
                _err().print(f"[yellow]write 'party: message' with a party of {', '.join(parties)}[/]")
                continue
            rep = med.turn(who.strip(), text.strip(), session_id=sid)
            row = {"session_id": sid, "at": utcnow().isoformat(), "party": who.strip(),
                   "speaker": parties[who.strip()], "text": text.strip(), "reply": rep}
            _show_row(row, "mediator")


@app.command()
@_handled
def support(
    scenario: Optional[str] = typer.Argument(None, help="A bundled scenario name (support_en, support_zh) or a "
                                                        "JSON file; without it, read messages from stdin."),
    db: Optional[str] = typer.Option(None, "--db", metavar="PATH",
                                     help="Database (scenario default: a fresh temporary file; interactive "
                                          "default: the global --db)."),
    customer: str = typer.Option("customer-1", "--customer", help="Customer id (interactive)."),
    name: Optional[str] = typer.Option(None, "--name", help="Customer display name (interactive)."),
    product: list[str] = typer.Option([], "--product", help="A catalogue product name (interactive; repeat)."),
    session: Optional[str] = typer.Option(None, "--session", help="Session id (interactive; default today)."),
    language: str = typer.Option("auto", "--language", help="auto, en or zh."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedder name (auto, e5-small, hash)."),
    list_: bool = typer.Option(False, "--list", help="List the bundled scenarios and exit."),
) -> None:
    """Customer-service assistant. Interactive lines are the customer's messages; '/session ID' starts another
    session, '/end' writes the session summary, '/quit' stops."""
    from ..agents import SupportAgent

    if list_:
        _show_list()
        return
    if scenario:
        _run_scripted(scenario, db, embedder, "support")
        return
    if language not in _LANGS:
        raise InvalidInputError(f"--language must be one of {', '.join(_LANGS)}")
    mem, _path = _memory(db, embedder, scripted=False)
    with mem:
        from ..timeutil import utcnow

        agent = SupportAgent(mem, customer, name=name, products=product, language=language, llm=mem.llm)
        sid = session or utcnow().date().isoformat()
        for line in _lines():
            if line in ("/quit", "/exit"):
                break
            if line.startswith("/session"):
                sid = line.split(maxsplit=1)[1].strip() if " " in line else sid
                continue
            if line == "/end":
                item = agent.end_session(sid)
                if _state.json:
                    typer.echo(json.dumps({"session_id": sid, "summary": item.text if item else None,
                                           "summary_id": item.id if item else None}, ensure_ascii=False))
                else:
                    _out().print(escape(item.text) if item is not None else "nothing to summarise")
                continue
            rep = agent.turn(line, session_id=sid)
            row = {"session_id": sid, "at": utcnow().isoformat(), "party": None, "speaker": name or customer,
                   "text": line, "reply": rep}
            _show_row(row, "assistant")
