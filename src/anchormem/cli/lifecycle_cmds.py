"""``anchormem gc``: delete expired memories (see :mod:`anchormem.lifecycle` for how expiry is decided)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..timeutil import utcnow
from .common import _emit_json, _err, _fmt_time, _handled, _open, _out, _short, _state, app


@app.command()
@_handled
def gc(
    user: Optional[str] = typer.Option(None, "--user", "-u", help="Only this user (default: every user)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List what has expired; delete nothing."),
    purge: bool = typer.Option(False, "--purge", help="Also erase their text from history."),
) -> None:
    """Delete memories whose expiry has passed (expire_strategy / expires_at metadata, or the expiry policy)."""
    now = utcnow()
    with _open(must_exist=True) as mem:
        if dry_run:
            items = mem.expired(user_id=user, now=now)
            if _state.json:
                _emit_json({"dry_run": True, "now": now.isoformat(), "memories": len(items),
                            "expired": [{"id": m.id, "user_id": m.user_id, "expires_at": m.expires_at.isoformat(),
                                         "text": m.text} for m in items if m.expires_at is not None]})
                return
            if not items:
                _out().print("nothing has expired")
                return
            t = Table(title=f"{len(items)} expired memories (dry run: nothing deleted)")
            for c in ("id", "user", "expired at", "text"):
                t.add_column(c, overflow="fold")
            for m in items:
                t.add_row(m.id, escape(m.user_id), _fmt_time(m.expires_at), escape(_short(m.text, 100)))
            _out().print(t)
            return
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=_err(), disable=_state.json, transient=True) as progress:
            task = progress.add_task("collecting expired memories", total=None)

            def step(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            counts = mem.gc(user_id=user, now=now, purge=purge, progress=step)
    if _state.json:
        _emit_json({"dry_run": False, "now": now.isoformat(), "deleted": counts})
    elif counts["memories"] == 0:
        _out().print("nothing has expired")
    else:
        _out().print(f"[green]deleted[/] {counts['memories']} expired memories of {counts['users']} user(s) ("
                     + ", ".join(f"{v} {k}" for k, v in counts.items() if k not in ("memories", "users")) + ")")
