"""``anchormem due`` and ``anchormem done``: open commitments, decisions and todos, soonest first, and marking
one done (see :mod:`anchormem.facts.commitments`)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from .ids import resolve_id, short_ids
from .common import _dump, _emit_json, _fmt_time, _handled, _open, _out, _state, _who, app


@app.command()
@_handled
def due(
    user: str = typer.Option(..., "--user", "-u", help="User id."),
    before: Optional[str] = typer.Option(None, "--before", help="Only those due before this ISO-8601 time."),
    undated: bool = typer.Option(True, "--undated/--no-undated", help="Include commitments with no due date."),
) -> None:
    """List a user's open commitments, decisions and todos, soonest due first."""
    with _open(must_exist=True) as mem:
        items = mem.due(user_id=user, before=before, include_undated=undated)
        shown = {} if _state.json else short_ids(mem, [i.id for i in items])
    if _state.json:
        _emit_json([_dump(i) for i in items])
        return
    if not items:
        _out().print("no open commitments")
        return
    table = Table("due", "who", "commitment", "id")
    table.columns[3].no_wrap = True
    for i in items:
        table.add_row(_fmt_time(i.event_time) or "-", escape(_who(i)), escape(i.text), shown[i.id])
    _out().print(table)


@app.command()
@_handled
def done(
    memory_id: str = typer.Argument(..., metavar="ID"),
    reason: Optional[str] = typer.Option(None, "--reason", help="Why (kept in history)."),
) -> None:
    """Mark a commitment done (it stays in history and as_of reads)."""
    with _open(must_exist=True) as mem:
        item = mem.complete(resolve_id(mem, memory_id), reason=reason)
    if _state.json:
        _emit_json(_dump(item))
    else:
        _out().print(f"[green]done[/] {item.id}: {escape(item.text)}")
