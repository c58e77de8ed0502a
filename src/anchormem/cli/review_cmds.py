"""``anchormem review``: list, approve and reject changes held in the review queue (conflicting or sensitive
facts; see :mod:`anchormem.facts.reconcile`)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..errors import InvalidInputError
from .ids import resolve_id, short_ids
from .common import _dump, _emit_json, _handled, _open, _out, _state, app

review_app = typer.Typer(help="Changes held for review (conflicting or sensitive facts).", no_args_is_help=True)
app.add_typer(review_app, name="review")


@review_app.command("list")
@_handled
def list_(
    user: Optional[str] = typer.Option(None, "--user", "-u", help="Only this user."),
    status: str = typer.Option("pending", "--status", help="pending, approved, rejected or all."),
) -> None:
    """List review items, oldest first."""
    if status not in ("pending", "approved", "rejected", "all"):
        raise InvalidInputError(f"--status must be pending, approved, rejected or all, got {status!r}")
    with _open(must_exist=True) as mem:
        items = mem.review_queue(user_id=user, status=status)
        shown = {} if _state.json else {**short_ids(mem, [i.id for i in items], "review"),
                                        **short_ids(mem, sorted({t for i in items for t in i.targets}))}
    if _state.json:
        _emit_json([_dump(i) for i in items])
        return
    if not items:
        _out().print(f"no {'' if status == 'all' else status + ' '}review items")
        return
    table = Table("id", "user", "status", "proposed", "replaces", "reason")
    table.columns[0].no_wrap = True
    for i in items:
        table.add_row(shown[i.id], escape(i.user_id), i.status, escape(i.proposed.text),
                      ", ".join(shown[t] for t in i.targets),
                      escape(i.reason))
    _out().print(table)


@review_app.command()
@_handled
def approve(review_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Apply a held change: store it and supersede what it conflicts with."""
    with _open(must_exist=True) as mem:
        events = mem.approve(resolve_id(mem, review_id, "review"), actor="cli")
    if _state.json:
        _emit_json([_dump(e) for e in events])
        return
    for e in events:
        _out().print(f"[green]{e.event}[/] {e.memory.id}: {escape(e.memory.text)}")


@review_app.command()
@_handled
def reject(review_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Drop a held change; nothing is stored."""
    with _open(must_exist=True) as mem:
        item = mem.reject(resolve_id(mem, review_id, "review"), actor="cli")
    if _state.json:
        _emit_json(_dump(item))
    else:
        _out().print(f"[yellow]rejected[/] {item.id}: {escape(item.proposed.text)}")
