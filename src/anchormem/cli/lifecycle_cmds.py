"""``anchormem gc``: delete expired memories (see :mod:`anchormem.lifecycle` for how expiry is decided);
``anchormem consolidate`` / ``archive`` / ``restore``: storage tiers (see :mod:`anchormem.consolidate`);
``anchormem enrich``: the deferred enrichment of a bulk import (see :mod:`anchormem.enrich`)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..timeutil import utcnow
from .ids import resolve_ids, short_ids
from .common import _emit_json, _err, _fmt_time, _handled, _open, _out, _parse_filter, _short, _state, app


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
                t.add_column(c, overflow="fold", no_wrap=c == "id")
            shown = short_ids(mem, [m.id for m in items])
            for m in items:
                t.add_row(shown[m.id], escape(m.user_id), _fmt_time(m.expires_at), escape(_short(m.text, 100)))
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


@app.command()
@_handled
def consolidate(
    user: str = typer.Option(..., "--user", "-u", help="The user to consolidate."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Report what would change; change nothing."),
    episode_age_days: float = typer.Option(30, "--episode-age-days", help="Roll up episodes older than this."),
    idle_days: float = typer.Option(90, "--idle-days", help="Archive unimportant memories idle this long."),
    no_merge: bool = typer.Option(False, "--no-merge", help="Do not merge near-duplicates."),
) -> None:
    """Merge near-duplicates, roll old episodes up into summaries (archiving them), archive idle memories, restore
    re-accessed ones and rebuild the user's rolled-up summary (see anchormem.consolidate)."""
    with _open(must_exist=True) as mem:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=_err(), disable=_state.json, transient=True) as progress:
            task = progress.add_task("consolidating", total=5)

            def step(done: int, total: int, stage: str) -> None:
                progress.update(task, completed=done, total=total, description=stage)

            report = mem.consolidate(user_id=user, dry_run=dry_run, episode_age_days=episode_age_days,
                                     idle_days=idle_days, merge=not no_merge, progress=step)
    if _state.json:
        _emit_json(report.model_dump(mode="json"))
        return
    c = report.counts
    head = "[yellow]dry run[/] (nothing changed): would" if dry_run else "[green]consolidated[/]:"
    _out().print(f"{head} merge {c['merged']} near-duplicate(s) into {len(report.merged)} memory(ies), roll up "
                 f"{len(report.clusters)} cluster(s) of old episodes, archive {c['archived']} memory(ies) "
                 f"({c['demoted']} idle), restore {c['promoted']}"
                 + (f"; user summary {report.user_summary_id}" if report.user_summary_id else ""))


def _tier_cmd(verb: str, ids: list[str] | None, user: str | None, filter_json: str | None,
              reason: str | None) -> None:
    with _open(must_exist=True) as mem:
        fn = mem.archive if verb == "archive" else mem.restore
        moved = fn(resolve_ids(mem, ids or None), user_id=user, filters=_parse_filter(filter_json), reason=reason)
    if _state.json:
        _emit_json({verb + "d": [m.id for m in moved], "count": len(moved)})
    else:
        _out().print(f"{'archived' if verb == 'archive' else 'restored'} {len(moved)} memory(ies)")


@app.command()
@_handled
def archive(
    ids: Optional[list[str]] = typer.Argument(None, help="Memory ids (or use --user with --filter)."),
    user: Optional[str] = typer.Option(None, "--user", "-u", help="Every warm memory of this user (with --filter)."),
    filter_json: Optional[str] = typer.Option(None, "--filter", help='JSON filter, e.g. {"kind": "utterance"}.'),
    reason: Optional[str] = typer.Option(None, "--reason", help="Recorded in each memory's history."),
) -> None:
    """Move memories to the cold tier: out of default search, kept for as_of, history and export."""
    _tier_cmd("archive", ids, user, filter_json, reason)


@app.command()
@_handled
def restore(
    ids: Optional[list[str]] = typer.Argument(None, help="Memory ids (or use --user with --filter)."),
    user: Optional[str] = typer.Option(None, "--user", "-u", help="Every cold memory of this user (with --filter)."),
    filter_json: Optional[str] = typer.Option(None, "--filter", help="JSON filter."),
    reason: Optional[str] = typer.Option(None, "--reason", help="Recorded in each memory's history."),
) -> None:
    """Move archived (cold) memories back to the warm tier."""
    _tier_cmd("restore", ids, user, filter_json, reason)


@app.command()
@_handled
def enrich(
    user: Optional[str] = typer.Option(None, "--user", "-u", help="Only this user (default: every user)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="At most this many rows (default: all)."),
    status: bool = typer.Option(False, "--status", help="Only count the pending rows; enrich nothing."),
    workers: int = typer.Option(1, "--workers", "-w", min=1,
                                help="Worker processes for every user's queue (users in parallel; default 1)."),
) -> None:
    """Run the deferred enrichment of rows imported with ``add_many(enrich="later")`` (``import --enrich later``):
    facts extracted and reconciled as an eager add would have, oldest said first (:mod:`anchormem.enrich`)."""
    with _open(must_exist=True) as mem:
        if status:
            got = {"pending": mem.pending(user)}
        elif workers > 1 and user is None and limit is None:
            from ..bulk import enrich_users

            got = enrich_users(memory=mem, workers=workers)
            got["pending"] = mem.pending()
        else:
            got = mem.enrich(user, limit=limit)
    if _state.json:
        _emit_json(got)
    elif status:
        _out().print(f"{got['pending']} row(s) pending enrichment")
    else:
        _out().print(f"[green]enriched[/] {got['enriched']} row(s): {got.get('ADD', 0)} fact memories, "
                     f"{got.get('SUPERSEDE', 0)} superseded, {got.get('REVIEW', 0)} held for review; "
                     f"{got['pending']} still pending")
