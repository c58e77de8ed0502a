"""Memory commands: add, update, import, search, ask, get, list, history, export, forget, relabel, reindex."""

from __future__ import annotations


import json
import shutil
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..errors import InvalidInputError
from ..private_files import write_private

from .ids import resolve_id, short_ids
from .common import app, _answer_json, _confirm, _answer_renderable, _dump, _emit_json, _err, _handled, _memories_table, _open, _out, _parse_filter, _parse_meta, _short, _state, _fmt_time

# ----------------------------------------------------------------------------------------------- write
@app.command()
@_handled
def add(
    text: str = typer.Argument(..., help="What was said; - reads it from standard input."),
    user: str = typer.Option(..., "--user", "-u", help="User id."),
    session: Optional[str] = typer.Option(None, "--session", help="Session id."),
    agent: Optional[str] = typer.Option(None, "--agent", help="Agent id."),
    role: str = typer.Option("user", "--role", help="user or assistant."),
    timestamp: Optional[str] = typer.Option(None, "--timestamp", help="When it was said (ISO-8601)."),
    meta: Optional[list[str]] = typer.Option(None, "--meta", help="Metadata key=value (repeatable)."),
) -> None:
    """Remember TEXT for a user (TEXT -: read from standard input, e.g. ``echo "..." | anchormem add - --user
    maya``); prints what was written."""
    if role not in ("user", "assistant"):
        raise InvalidInputError(f"--role must be user or assistant, got {role!r}")
    if text == "-":
        text = _read_stdin()
    with _open() as mem:
        events = mem.add([{"role": role, "content": text}], user_id=user, session_id=session, agent_id=agent,
                         timestamp=timestamp, metadata=_parse_meta(meta))
        shown = {} if _state.json else {
            **short_ids(mem, [e.memory.id for e in events if e.review_id is None and e.event != "SKIP"]),
            **short_ids(mem, [e.review_id for e in events if e.review_id is not None], "review")}
    if _state.json:
        _emit_json([_dump(e) for e in events])
        return
    con = _out()
    if all(e.event == "SKIP" for e in events):
        con.print(f"[yellow]nothing stored[/] ({'; '.join(dict.fromkeys(e.reason or '' for e in events))})")
        return
    t = Table()
    t.add_column("event")
    t.add_column("id", no_wrap=True)  # a REVIEW event's id is its review item's (anchormem review approve ID)
    t.add_column("kind")
    t.add_column("text", overflow="fold")
    for e in events:
        eid = e.review_id if e.review_id is not None else e.memory.id
        t.add_row(e.event, shown.get(eid, eid), e.memory.kind, _short(e.memory.text, 120))
    con.print(t)


def _read_stdin() -> str:
    """The text of ``add -``: all of standard input, decoded as UTF-8, one trailing newline dropped."""
    import sys

    data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode("utf-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"standard input is not UTF-8 text (byte {exc.start})") from None
    if text.endswith("\n"):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    if not text.strip():
        raise InvalidInputError("add -: standard input is empty")
    return text


@app.command()
@_handled
def update(
    memory_id: str = typer.Argument(..., metavar="ID"),
    text: str = typer.Argument(..., help="The new text."),
    reason: Optional[str] = typer.Option(None, "--reason", help="Why (kept in history)."),
) -> None:
    """Replace a memory's text (the old text stays in its history)."""
    with _open(must_exist=True) as mem:
        item = mem.update(resolve_id(mem, memory_id), text, reason=reason)
    if _state.json:
        _emit_json(_dump(item))
    else:
        _out().print(f"[green]updated[/] {item.id}: {escape(item.text)}")


@app.command("import")
@_handled
def import_(
    file: Path = typer.Argument(..., exists=False, help="Chat log file."),
    user: Optional[str] = typer.Option(None, "--user", "-u", help="User id (LoCoMo: default = each sample_id)."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f",
                                      help="json, jsonl, locomo, anchormem (an export) or mem0 (default: detect)."),
    workers: int = typer.Option(0, "--workers", "-w", min=0,
                                help="Worker processes (default 0 = one per CPU core, at most one per user)."),
    on_conflict: str = typer.Option("error", "--on-conflict",
                                    help="anchormem/mem0 exports: error (default), skip ids already stored, or "
                                         "new_ids (an anchormem export copied with new ids: into another user of the "
                                         "same store). Chat logs: skip leaves out the turns already stored (same "
                                         "user, session, role, speaker, text and time) with all drawn from them (a "
                                         "re-import); otherwise every turn is added."),
    enrich: str = typer.Option("now", "--enrich",
                               help="now (default) or later: store the turns searchable at once and leave their "
                                    "fact extraction to 'anchormem enrich' (or the first read that needs it)."),
) -> None:
    """Import a chat log (JSON, JSONL or LoCoMo) through add_many, one call per session (a transaction per 500
    messages), with a progress bar; users in parallel. An anchormem
    export (``anchormem export``) or a mem0 export is read back as stored, in one transaction."""
    import os

    from ..bulk import import_batches
    from ..importers import detect_format, parse

    text = file.read_text(encoding="utf-8")
    fmt = fmt or detect_format(file.name, text)
    if fmt in ("anchormem", "mem0"):
        _import_export(file, text, fmt, user, on_conflict)
        return
    batches = parse(text, fmt, user_id=user, filename=file.name)
    total = sum(len(m) for _, m in batches)
    with _open() as mem:
        n = workers or (os.cpu_count() or 1)
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=_err(), disable=_state.json, transient=False) as progress:
            task = progress.add_task(f"importing {file.name}", total=total)
            counts = import_batches(batches, memory=mem, workers=n, enrich=enrich,
                                    on_conflict="skip" if on_conflict == "skip" else "add",
                                    on_progress=lambda k: progress.advance(task, k))
    if _state.json:
        counts.pop("workers", None)
        _emit_json(counts)
    else:
        _out().print(f"[green]imported[/] {counts['messages']} messages in {counts['batches']} sessions for "
                     f"{len(counts['users'])} user(s) with {counts['workers']} worker(s): {counts['ADD']} new "
                     f"memories, {counts['NOOP']} restated (no change), {counts.get('SUPERSEDE', 0)} superseded, "
                     f"{counts.get('REVIEW', 0)} held for review, {counts.get('chitchat', 0)} small-talk turns "
                     "kept out" + (f", {counts['duplicates']} turns already stored skipped" if 'duplicates' in counts
                                   else ""))


def _import_export(file: Path, text: str, fmt: str, user: Optional[str], on_conflict: str) -> None:
    """``import`` of an anchormem or mem0 export file through ``Memory.import_memories``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{file.name} is not valid JSON: {exc.msg} (line {exc.lineno}, column "
                                f"{exc.colno})") from exc
    with _open() as mem:
        counts = mem.import_memories(data, user_id=user, on_conflict=on_conflict, format=fmt)
    if _state.json:
        _emit_json(counts)
    else:
        _out().print(f"[green]imported[/] {counts['memories']} memories, {counts['messages']} messages and "
                     f"{counts['history']} history rows from {escape(file.name)} ({fmt}); skipped "
                     f"{counts['skipped_memories']} memories and {counts['skipped_messages']} messages whose ids "
                     "this store already holds" + (" (to copy them into another user of this store: --on-conflict "
                                                   "new_ids)" if counts['skipped_memories'] and not
                                                   counts['memories'] else ""))


# ----------------------------------------------------------------------------------------------- read
@app.command()
@_handled
def search(
    query: str = typer.Argument(...),
    user: str = typer.Option(..., "--user", "-u"),
    session: Optional[str] = typer.Option(None, "--session"),
    agent: Optional[str] = typer.Option(None, "--agent"),
    limit: int = typer.Option(5, "--limit", "-n"),
    filter_: Optional[str] = typer.Option(None, "--filter", help='JSON filter, e.g. \'{"source": "user"}\'.'),
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Search what was current at this ISO time."),
    recipe: Optional[str] = typer.Option(None, "--recipe", help="hybrid_rrf, dense, bm25, anchored..."),
    context: Optional[list[str]] = typer.Option(None, "--context", "-c",
                                                help="A turn of the current conversation (repeat, oldest first)."),
    explain: bool = typer.Option(False, "--explain", help="Show per-signal scores."),
) -> None:
    """Search a user's memories: hybrid search anchored in the conversation given by --context (the default recipe,
    anchored; --recipe hybrid_rrf for plain hybrid search)."""
    with _open(must_exist=True) as mem:
        hits = mem.search(query, user_id=user, session_id=session, agent_id=agent, filters=_parse_filter(filter_),
                          limit=limit, as_of=as_of, recipe=recipe, context=context or None)
        shown = {} if _state.json else short_ids(mem, [h.memory.id for h in hits])
    if _state.json:
        _emit_json([{"score": h.score, "memory": _dump(h.memory), "explain": h.explain} for h in hits])
        return
    con = _out()
    if not hits:
        con.print("[yellow]no matches[/]")
        return
    t = Table()
    t.add_column("score", no_wrap=True, justify="right")
    t.add_column("id", style="dim", no_wrap=True)
    t.add_column("text", min_width=24, overflow="fold")
    t.add_column("source", no_wrap=True)
    t.add_column("created_at", no_wrap=True)
    states = [h.memory.state for h in hits]
    if any(st != "current" for st in states):  # a hit partly or wholly superseded (as_of, past questions), or ahead
        t.add_column("state", no_wrap=True)
    for h, st in zip(hits, states):
        m = h.memory
        row = [f"{h.score:.4f}", shown[m.id], _short(m.text, 160), m.source, _fmt_time(m.created_at)]
        t.add_row(*row, *([st.replace("_", " ")] if len(t.columns) > len(row) else []))
    con.print(t)
    if explain:
        # short headers so that the table fits 80 columns; the caption spells them out
        x = Table(title="per-signal scores",
                  caption="d# / b#: dense / BM25 rank; rec: recency; src: source weight; own: the hit's own score "
                          "when it was placed right above a memory it supersedes (succeeds)")
        for c in ("id", "dense", "bm25", "d#", "b#", "fused", "rec", "src", "final", "own", "succeeds"):
            x.add_column(c, justify="right", no_wrap=True)

        def f(v: Any, p: int = 3) -> str:
            return "-" if v is None else (f"{v:.{p}f}" if isinstance(v, float) else str(v))

        for h in hits:
            e = h.explain
            x.add_row(shown[h.memory.id], f(e.get("dense")), f(e.get("bm25")), f(e.get("dense_rank")),
                      f(e.get("bm25_rank")), f(e.get("fused"), 4), f(e.get("recency")), f(e.get("source_weight")),
                      f(e.get("final"), 4), f(e.get("own_score"), 4) if "successor_of" in e else "-",
                      shown.get(e["successor_of"], e["successor_of"][:8]) if e.get("successor_of") else "-")
        con.print(x)
        anchored = [h for h in hits if "anchor" in h.explain]
        if anchored:
            con.print(_anchor_table(anchored, f, shown))


def _anchor_table(hits: list[Any], f: Any, shown: dict[str, str]) -> Table:
    """The anchoring columns of ``--explain`` (``Hit.explain["anchor"]``): the query's labels and where they came
    from, each memory's two main labels, its label agreement and factor, its context-vector similarity and factor,
    and whether its labels were filtered (``fallback``: filtered, returned all the same)."""
    first = hits[0].explain["anchor"]
    labels = ", ".join(f"{d} {w:.2f}" for d, w in first["query_labels"].items())
    x = Table(title=f"anchoring: query labels {labels} ({first['query_label_source']})",
              caption="agree: label agreement; ×: its factor; ctx: context-vector similarity and factor")
    for c in ("id", "memory labels", "agree", "label ×", "ctx sim", "ctx ×", "filtered"):
        x.add_column(c, justify="right", no_wrap=c != "memory labels", min_width=14 if c == "memory labels" else None)
    for h in hits:
        a = h.explain["anchor"]
        mlabels = ", ".join(f"{d} {w:.2f}" for d, w in list(a["memory_labels"].items())[:2]) or "-"
        label_factor = a["factor"] / a["context_factor"] if a.get("context_factor") else a["factor"]
        x.add_row(shown[h.memory.id], mlabels, f(a["label_rel"]), f(label_factor), f(a.get("context_sim")),
                  f(a.get("context_factor")), "fallback" if a["fallback"] else ("yes" if a["filtered"] else "no"))
    return x


@app.command()
@_handled
def ask(
    question: str = typer.Argument(...),
    user: str = typer.Option(..., "--user", "-u"),
    session: Optional[str] = typer.Option(None, "--session"),
    agent: Optional[str] = typer.Option(None, "--agent"),
    filter_: Optional[str] = typer.Option(None, "--filter", help="JSON filter."),
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Answer as of this ISO time."),
) -> None:
    """Answer from memory with citations, or abstain."""
    with _open(must_exist=True) as mem:
        ans = mem.ask(question, user_id=user, session_id=session, agent_id=agent, filters=_parse_filter(filter_),
                      as_of=as_of)
    if _state.json:
        _emit_json(_answer_json(question, ans))
        return
    con = _out()
    if ans.abstained:
        con.print(f"[yellow]{escape(ans.text)}[/]")
        return
    con.print("[bold]From memory[/] (verbatim quotes):")
    con.print(_answer_renderable(ans))


@app.command()
@_handled
def get(memory_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Show one memory (ID: a full id or a unique prefix of at least 6 characters)."""
    with _open(must_exist=True) as mem:
        item = mem.get(resolve_id(mem, memory_id))
    if _state.json:
        _emit_json(_dump(item))
        return
    t = Table(show_header=False, box=None)
    t.add_column(style="bold")
    t.add_column()
    for k, v in _dump(item).items():
        if v in (None, [], {}, ""):
            continue
        t.add_row(k, json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else str(v))
    _out().print(t)


@app.command("list")
@_handled
def list_(
    user: str = typer.Option(..., "--user", "-u"),
    session: Optional[str] = typer.Option(None, "--session"),
    agent: Optional[str] = typer.Option(None, "--agent"),
    filter_: Optional[str] = typer.Option(None, "--filter", help="JSON filter."),
    limit: Optional[int] = typer.Option(None, "--limit", "-n"),
    all_: bool = typer.Option(False, "--all", help="Include superseded memories."),
) -> None:
    """List a user's memories, oldest first."""
    with _open(must_exist=True) as mem:
        items = mem.get_all(user_id=user, session_id=session, agent_id=agent, filters=_parse_filter(filter_),
                            limit=limit, include_superseded=all_)
        shown = {} if _state.json else short_ids(mem, [m.id for m in items])
    if _state.json:
        _emit_json([_dump(m) for m in items])
        return
    if not items:
        _out().print("[yellow]no memories[/]")
        return
    _out().print(_memories_table(items, title=f"{len(items)} memories of {user}", shown=shown))


@app.command()
@_handled
def history(memory_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Every version of a memory (ID: a full id or a unique prefix of at least 6 characters)."""
    with _open(must_exist=True) as mem:
        entries = mem.history(resolve_id(mem, memory_id))
    if _state.json:
        _emit_json([_dump(h) for h in entries])
        return
    if _out().width < 110:  # eight columns do not fit: one block per version, nothing cut
        for h in entries:
            said = f" said {_fmt_time(h.said_at)}" if h.said_at else ""
            _out().print(f"[bold]v{h.version} {h.event}[/]{said}, written {_fmt_time(h.created_at)}"
                         + (f" by {h.actor}" if h.actor else ""), highlight=False)
            for label, value in (("old", h.old_text), ("new", h.new_text), ("reason", h.reason)):
                if value:
                    _out().print(f"  {label}: {value}", markup=False, highlight=False)
        return
    t = Table()
    for c in ("version", "event", "said", "written", "actor", "old", "new", "reason"):
        t.add_column(c)
    for h in entries:  # said: on the user's timeline (HistoryEntry.said_at); written: the store's clock
        t.add_row(str(h.version), h.event, _fmt_time(h.said_at) if h.said_at else "", _fmt_time(h.created_at),
                  h.actor or "", _short(h.old_text or "", 50), _short(h.new_text or "", 50), h.reason or "")
    _out().print(t)


@app.command()
@_handled
def export(
    user: str = typer.Option(..., "--user", "-u"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to this file (default: stdout)."),
) -> None:
    """Export everything stored for a user as JSON."""
    with _open(must_exist=True) as mem:
        data = mem.export(user_id=user)
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    if output is None:
        typer.echo(text)
        return
    write_private(output, text + "\n")  # 0600: an export holds everything stored for the user
    if _state.json:
        _emit_json({"path": str(output), "memories": len(data["memories"])})
    else:
        _err().print(f"[green]exported[/] {len(data['memories'])} memories to {output}")


# ----------------------------------------------------------------------------------------------- delete
@app.command()
@_handled
def forget(
    user: Optional[str] = typer.Option(None, "--user", "-u", help="Required: whose memories to delete."),
    session: Optional[str] = typer.Option(None, "--session"),
    agent: Optional[str] = typer.Option(None, "--agent"),
    purge: bool = typer.Option(False, "--purge", help="Also erase the text from history."),
    physical: bool = typer.Option(False, "--physical", help="With --purge: also erase the purged bytes from "
                                  "PostgreSQL's data files (rewrites the tables; see docs/privacy.md)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
) -> None:
    """Delete every memory of a user (optionally one agent/session). There is no unscoped forget. Asks for
    confirmation unless --yes; declining exits with code 1 (errors exit with 2)."""
    from ..errors import ScopeError

    if user is None:
        raise ScopeError("forget needs --user; an unscoped wipe is refused")
    if not yes:
        what = f"every memory of user {user!r}" + (f" in session {session!r}" if session else "") + \
            (f" for agent {agent!r}" if agent else "")
        if not _confirm(f"Delete {what}{' and purge history' if purge else ''}?"):
            _err().print("aborted")
            if _state.json:
                _emit_json({"error": {"type": "Aborted", "message": "not confirmed, nothing deleted (pass --yes)"}})
            raise typer.Exit(1)
    with _open(must_exist=True) as mem:
        counts = mem.delete_all(user_id=user, session_id=session, agent_id=agent, purge=purge, physical=physical)
    if _state.json:
        _emit_json(counts)
    else:
        _out().print("[green]deleted[/] " + ", ".join(f"{v} {k}" for k, v in counts.items()))


@app.command("forget-memory")
@_handled
def forget_memory(
    memory_id: str = typer.Argument(..., metavar="ID"),
    purge: bool = typer.Option(False, "--purge", help="Also erase the text from history."),
    physical: bool = typer.Option(False, "--physical", help="With --purge: also erase the purged bytes from "
                                  "PostgreSQL's data files (rewrites the tables; see docs/privacy.md)."),
) -> None:
    """Delete one memory (ID: a full id or a unique prefix of at least 6 characters)."""
    from ..purge_targets import physical_erase

    if physical and not purge:
        raise InvalidInputError("--physical needs --purge (only purged text is erased from the files)")
    with _open(must_exist=True) as mem:
        memory_id = resolve_id(mem, memory_id)
        counts = mem.delete(memory_id, purge=purge)
        if physical:
            counts["rewritten"] = physical_erase(mem.store)
    if _state.json:
        _emit_json(counts)
    else:
        _out().print(f"[green]deleted[/] {memory_id}")


# ----------------------------------------------------------------------------------------------- maintenance
@app.command()
@_handled
def relabel(user: Optional[str] = typer.Option(None, "--user", "-u", help="One user (default: every user).")
            ) -> None:
    """Recompute the context labels and context vectors of existing memories, session by session (labels set by
    hand are kept)."""
    with _open(must_exist=True) as mem:
        n = mem.relabel(user)
    if _state.json:
        _emit_json({"relabelled": n})
    else:
        _out().print(f"[green]relabelled[/] {n} memories")


@app.command()
@_handled
def reindex(
    embedder: str = typer.Option("auto", "--embedder", "-e", help="auto, e5-small, hash, hash-<dim>, openai."),
) -> None:
    """Re-embed every memory with EMBEDDER and record it as the store's embedder."""
    from ..config import Settings, default_path
    from ..embedders import make_embedder, settings_options
    from ..stores.sqlite import SQLiteStore

    s = Settings()
    path = _state.db or s.path or default_path()
    emb = make_embedder(embedder, **settings_options(embedder, s))
    store = SQLiteStore(path, ann_threshold=s.ann_threshold)
    try:
        old = store.embedder_info()
        pairs = []
        total = store._read("SELECT count(*) FROM memories")[0][0]
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=_err(), disable=_state.json) as progress:
            task = progress.add_task(f"embedding with {emb.name}", total=total)
            for batch in store.all_vectors():
                vecs = emb.embed_documents([t for _, t in batch])
                pairs += [(r, v) for (r, _), v in zip(batch, vecs)]
                progress.advance(task, len(batch))
        store.replace_vectors(pairs)
        store.set_embedder(emb.name, emb.dim)
    finally:
        store.close()
    # Saved ANN index files are derived from the old vectors: remove them so they are rebuilt.
    vec_dir = Path(str(path) + ".vec")
    if path != ":memory:" and vec_dir.is_dir():
        shutil.rmtree(vec_dir, ignore_errors=True)
    result = {"path": str(path), "memories": len(pairs), "old_embedder": {"name": old[0], "dim": old[1]},
              "embedder": {"name": emb.name, "dim": emb.dim}}
    if _state.json:
        _emit_json(result)
    else:
        _out().print(f"[green]reindexed[/] {len(pairs)} memories in {path}: {old[0]} (dim {old[1]}) → "
                     f"{emb.name} (dim {emb.dim})")
