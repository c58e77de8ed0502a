"""The ``anchormem`` command line: a thin layer over :class:`anchormem.Memory`.

Global options come before the command: ``anchormem [--db PATH] [--json] COMMAND ...``. Every command prints
a readable rich layout, or with ``--json`` one JSON document on stdout. Errors raised by anchormem print one
red line on stderr and exit with code 2 (never a traceback).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Optional

import typer
from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from .errors import AnchormemError, FilterError, InvalidInputError

__all__ = ["app", "main", "DEMO_FILES", "load_demo", "run_demo"]

app = typer.Typer(
    name="anchormem",
    help="Long-term memory for LLM agents: grounded, context-anchored, offline by default.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
eval_app = typer.Typer(help="Measure anchormem on benchmarks.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")
keys_app = typer.Typer(help="API keys for the REST server (anchormem serve).", no_args_is_help=True)
app.add_typer(keys_app, name="keys")

DEMO_FILES = ("demo_en.json", "demo_zh.json")


@dataclass
class State:
    db: str | None = None
    json: bool = False


_state = State()


def _out() -> Console:
    return Console(highlight=False, soft_wrap=False)


def _err() -> Console:
    return Console(stderr=True, highlight=False)


def _handled(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn AnchormemError (and bad user input like malformed JSON) into one red line and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AnchormemError as exc:
            _err().print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
            raise typer.Exit(2) from None
        except (OSError, UnicodeDecodeError) as exc:  # unreadable/unwritable files given on the command line
            _err().print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper


def _emit_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json")


def _open(db: str | None = None, **kwargs: Any):
    from .memory import Memory

    return Memory(db or _state.db, **kwargs)


def _parse_filter(value: str | None) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise FilterError(f"--filter is not valid JSON: {exc.msg} at column {exc.colno}") from exc
    if not isinstance(data, dict):
        raise FilterError(f"--filter must be a JSON object, got {type(data).__name__}")
    return data


def _parse_meta(pairs: list[str] | None) -> dict[str, Any] | None:
    if not pairs:
        return None
    out: dict[str, Any] = {}
    for p in pairs:
        if "=" not in p:
            raise InvalidInputError(f"--meta {p!r}: use key=value")
        k, v = p.split("=", 1)
        try:
            val = json.loads(v)
            if isinstance(val, (dict, list)):
                val = v
        except json.JSONDecodeError:
            val = v
        out[k.strip()] = val
    return out


def _fmt_time(dt: datetime | None) -> str:
    return "" if dt is None else dt.strftime("%Y-%m-%d %H:%M")


def _who(m: Any) -> str:
    if m.speaker:
        return m.speaker
    return "assistant" if m.source == "assistant" else "user"


def _short(text: str, n: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _memories_table(items: list[Any], title: str | None = None) -> Table:
    t = Table(title=title, show_lines=False)
    t.add_column("id", style="dim", no_wrap=True)
    t.add_column("created_at", no_wrap=True)
    t.add_column("who", no_wrap=True)
    t.add_column("kind", no_wrap=True)
    t.add_column("text", min_width=24, overflow="fold")
    for m in items:
        t.add_row(m.id, _fmt_time(m.created_at), _who(m), m.kind, _short(m.text, 120))
    return t


# ----------------------------------------------------------------------------------------------- root
@app.callback()
def _root(
    db: Optional[str] = typer.Option(None, "--db", envvar="ANCHORMEM_PATH", metavar="PATH",
                                     help="Database file (default: ~/.local/share/anchormem/memories.db)."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable JSON output."),
) -> None:
    """anchormem: long-term memory for LLM agents."""
    _state.db = db
    _state.json = json_out


# ----------------------------------------------------------------------------------------------- write
@app.command()
@_handled
def add(
    text: str = typer.Argument(..., help="What was said."),
    user: str = typer.Option(..., "--user", "-u", help="User id."),
    session: Optional[str] = typer.Option(None, "--session", help="Session id."),
    agent: Optional[str] = typer.Option(None, "--agent", help="Agent id."),
    role: str = typer.Option("user", "--role", help="user or assistant."),
    timestamp: Optional[str] = typer.Option(None, "--timestamp", help="When it was said (ISO-8601)."),
    meta: Optional[list[str]] = typer.Option(None, "--meta", help="Metadata key=value (repeatable)."),
) -> None:
    """Remember TEXT for a user; prints what was written."""
    if role not in ("user", "assistant"):
        raise InvalidInputError(f"--role must be user or assistant, got {role!r}")
    with _open() as mem:
        events = mem.add([{"role": role, "content": text}], user_id=user, session_id=session, agent_id=agent,
                         timestamp=timestamp, metadata=_parse_meta(meta))
    if _state.json:
        _emit_json([_dump(e) for e in events])
        return
    con = _out()
    if not events:
        con.print("[yellow]nothing stored[/] (chit-chat or system text)")
        return
    t = Table()
    for c in ("event", "id", "kind", "text"):
        t.add_column(c)
    for e in events:
        t.add_row(e.event, e.memory.id, e.memory.kind, _short(e.memory.text, 120))
    con.print(t)


@app.command()
@_handled
def update(
    memory_id: str = typer.Argument(..., metavar="ID"),
    text: str = typer.Argument(..., help="The new text."),
    reason: Optional[str] = typer.Option(None, "--reason", help="Why (kept in history)."),
) -> None:
    """Replace a memory's text (the old text stays in its history)."""
    with _open() as mem:
        item = mem.update(memory_id, text, reason=reason)
    if _state.json:
        _emit_json(_dump(item))
    else:
        _out().print(f"[green]updated[/] {item.id}: {escape(item.text)}")


@app.command("import")
@_handled
def import_(
    file: Path = typer.Argument(..., exists=False, help="Chat log file."),
    user: Optional[str] = typer.Option(None, "--user", "-u", help="User id (LoCoMo: default = each sample_id)."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", help="json, jsonl or locomo (default: detect)."),
) -> None:
    """Import a chat log (JSON, JSONL or LoCoMo) with one add per session."""
    from .importers import parse

    text = file.read_text(encoding="utf-8")
    batches = parse(text, fmt, user_id=user, filename=file.name)
    counts = {"batches": len(batches), "messages": 0, "ADD": 0, "NOOP": 0}
    users: set[str] = set()
    with _open() as mem:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=_err(), disable=_state.json, transient=False) as progress:
            task = progress.add_task(f"importing {file.name}", total=len(batches))
            for scope, msgs in batches:
                events = mem.add(msgs, **scope)
                users.add(scope["user_id"])
                counts["messages"] += len(msgs)
                for e in events:
                    counts[e.event] = counts.get(e.event, 0) + 1
                progress.advance(task)
    counts["users"] = sorted(users)
    if _state.json:
        _emit_json(counts)
    else:
        _out().print(f"[green]imported[/] {counts['messages']} messages in {counts['batches']} sessions for "
                     f"{len(users)} user(s): {counts['ADD']} new memories, {counts['NOOP']} duplicates")


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
    recipe: Optional[str] = typer.Option(None, "--recipe", help="Search recipe (hybrid_rrf, dense, bm25...)."),
    explain: bool = typer.Option(False, "--explain", help="Show per-signal scores."),
) -> None:
    """Hybrid search in a user's memories."""
    with _open() as mem:
        hits = mem.search(query, user_id=user, session_id=session, agent_id=agent, filters=_parse_filter(filter_),
                          limit=limit, as_of=as_of, recipe=recipe)
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
    for h in hits:
        m = h.memory
        t.add_row(f"{h.score:.4f}", m.id, _short(m.text, 160), m.source, _fmt_time(m.created_at))
    con.print(t)
    if explain:
        x = Table(title="per-signal scores")
        for c in ("id", "dense", "bm25", "dense rank", "bm25 rank", "fused", "recency", "source w", "final"):
            x.add_column(c, justify="right", no_wrap=True)

        def f(v: Any, p: int = 3) -> str:
            return "-" if v is None else (f"{v:.{p}f}" if isinstance(v, float) else str(v))

        for h in hits:
            e = h.explain
            x.add_row(h.memory.id[:8], f(e.get("dense")), f(e.get("bm25")), f(e.get("dense_rank")),
                      f(e.get("bm25_rank")), f(e.get("fused"), 4), f(e.get("recency")), f(e.get("source_weight")),
                      f(e.get("final"), 4))
        con.print(x)


def _answer_json(question: str, ans: Any) -> dict[str, Any]:
    return {"question": question, "answer": ans.text, "abstained": ans.abstained,
            "citations": [{"id": m.id, "speaker": _who(m), "date": m.created_at.date().isoformat(),
                           "created_at": m.created_at.isoformat(), "quote": m.text, "source": m.source,
                           "event_time": m.event_time.isoformat() if m.event_time else None,
                           "event_time_end": m.event_time_end.isoformat() if m.event_time_end else None}
                          for m in ans.citations]}


def _answer_renderable(ans: Any) -> Any:
    """The abstention, or one block per citation: speaker · date · memory id, then the verbatim quote."""
    if ans.abstained:
        return Text(ans.text, style="yellow")
    parts: list[Any] = []
    for i, m in enumerate(ans.citations):
        head = Text()
        head.append(_who(m), style="bold cyan")
        head.append(f"  {m.created_at.date().isoformat()}", style="magenta")
        head.append(f"  id {m.id}", style="dim")
        parts.append(head)
        parts.append(Text(f"  “{m.text}”", overflow="fold"))
    return Group(*parts)


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
    with _open() as mem:
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
    """Show one memory."""
    with _open() as mem:
        item = mem.get(memory_id)
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
    with _open() as mem:
        items = mem.get_all(user_id=user, session_id=session, agent_id=agent, filters=_parse_filter(filter_),
                            limit=limit, include_superseded=all_)
    if _state.json:
        _emit_json([_dump(m) for m in items])
        return
    if not items:
        _out().print("[yellow]no memories[/]")
        return
    _out().print(_memories_table(items, title=f"{len(items)} memories of {user}"))


@app.command()
@_handled
def history(memory_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Every version of a memory."""
    with _open() as mem:
        entries = mem.history(memory_id)
    if _state.json:
        _emit_json([_dump(h) for h in entries])
        return
    t = Table()
    for c in ("version", "event", "when", "actor", "old", "new", "reason"):
        t.add_column(c)
    for h in entries:
        t.add_row(str(h.version), h.event, _fmt_time(h.created_at), h.actor or "", _short(h.old_text or "", 50),
                  _short(h.new_text or "", 50), h.reason or "")
    _out().print(t)


@app.command()
@_handled
def export(
    user: str = typer.Option(..., "--user", "-u"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to this file (default: stdout)."),
) -> None:
    """Export everything stored for a user as JSON."""
    with _open() as mem:
        data = mem.export(user_id=user)
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    if output is None:
        typer.echo(text)
        return
    output.write_text(text + "\n", encoding="utf-8")
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
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
) -> None:
    """Delete every memory of a user (optionally one agent/session). There is no unscoped forget."""
    from .errors import ScopeError

    if user is None:
        raise ScopeError("forget needs --user; an unscoped wipe is refused")
    if not yes:
        what = f"every memory of user {user!r}" + (f" in session {session!r}" if session else "") + \
            (f" for agent {agent!r}" if agent else "")
        if not typer.confirm(f"Delete {what}{' and purge history' if purge else ''}?", default=False, err=True):
            _err().print("aborted")
            raise typer.Exit(1)
    with _open() as mem:
        counts = mem.delete_all(user_id=user, session_id=session, agent_id=agent, purge=purge)
    if _state.json:
        _emit_json(counts)
    else:
        _out().print("[green]deleted[/] " + ", ".join(f"{v} {k}" for k, v in counts.items()))


@app.command("forget-memory")
@_handled
def forget_memory(
    memory_id: str = typer.Argument(..., metavar="ID"),
    purge: bool = typer.Option(False, "--purge", help="Also erase the text from history."),
) -> None:
    """Delete one memory."""
    with _open() as mem:
        counts = mem.delete(memory_id, purge=purge)
    if _state.json:
        _emit_json(counts)
    else:
        _out().print(f"[green]deleted[/] {memory_id}")


# ----------------------------------------------------------------------------------------------- maintenance
@app.command()
@_handled
def reindex(
    embedder: str = typer.Option("auto", "--embedder", "-e", help="auto, e5-small, hash, hash-<dim>, openai."),
) -> None:
    """Re-embed every memory with EMBEDDER and record it as the store's embedder."""
    from .config import Settings, default_path
    from .embedders import make_embedder
    from .stores.sqlite import SQLiteStore

    s = Settings()
    path = _state.db or s.path or default_path()
    opts: dict[str, Any] = {}
    if embedder == "openai":
        opts = {"base_url": s.embedder_base_url, "model": s.embedder_model, "dim": s.embedder_dim or 0,
                "api_key": s.embedder_api_key}
    emb = make_embedder(embedder, **opts)
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


@eval_app.command("locomo")
@_handled
def eval_locomo(
    data: Path = typer.Option(..., "--data", help="Path to locomo10.json."),
    k: str = typer.Option("1,5,10,25,50", "--k", help="Comma-separated cut-offs for recall@k."),
    audit: bool = typer.Option(True, "--audit/--no-audit", help="Also score with the audit's corrections."),
    conversations: Optional[int] = typer.Option(None, "--conversations", help="Only the first N conversations."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedder name (default: settings)."),
    recipe: Optional[str] = typer.Option(None, "--recipe", help="Search recipe name."),
) -> None:
    """Evidence recall@k and abstention on LoCoMo."""
    try:
        ks = tuple(sorted({int(x) for x in k.split(",") if x.strip()}))
    except ValueError:
        raise InvalidInputError(f"--k must be comma-separated integers, got {k!r}") from None
    if not ks or min(ks) < 1:
        raise InvalidInputError("--k needs positive integers")
    if not data.is_file():
        raise InvalidInputError(f"--data {str(data)!r} is not a file")
    from .eval.locomo import format_table, run_locomo

    kwargs: dict[str, Any] = {"ks": ks, "use_audit": audit, "conversations": conversations}
    if embedder is not None:
        kwargs["embedder"] = embedder
    if recipe is not None:
        kwargs["recipe"] = recipe
    with Progress(TextColumn("locomo"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=_err(),
                  disable=_state.json) as progress:
        task = progress.add_task("locomo", total=None)

        def on_progress(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        result = run_locomo(str(data), progress=on_progress, **kwargs)
    if _state.json:
        _emit_json(result)
    else:
        table = format_table(result)
        if isinstance(table, str):
            typer.echo(table)
        else:
            _out().print(table)


# ----------------------------------------------------------------------------------------------- server
def _store_target(url: str | None) -> tuple[str | None, str | None]:
    """(path, url) of the store the server and the keys commands use: --url / ANCHORMEM_URL, else --db."""
    from .config import Settings, default_path

    url = url or Settings().url
    if url:
        return None, url
    return _state.db or Settings().path or default_path(), None


H11_MAX_HEAD_BYTES = 64 * 1024  # request line + headers; long percent-encoded CJK query strings need room


def _key_store(url: str | None, keys_path: str | None):
    from .server.keys import KeyStore, keys_path_for

    path, url = _store_target(url)
    return KeyStore(keys_path or keys_path_for(path, url))


@app.command()
@_handled
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
    port: int = typer.Option(8765, "--port", help="TCP port."),
    workers: int = typer.Option(1, "--workers", min=1, help="Worker processes (rate limits are per worker)."),
    url: Optional[str] = typer.Option(None, "--url", envvar="ANCHORMEM_URL", help="Store URL, e.g. sqlite:///m.db."),
    keys_path: Optional[str] = typer.Option(None, "--keys-path", envvar="ANCHORMEM_KEYS_PATH",
                                            help="API keys database (default: <store>.keys.db)."),
    log_level: str = typer.Option("info", "--log-level", help="uvicorn log level."),
) -> None:
    """Serve the REST API (needs: pip install 'anchormem[server]')."""
    from .errors import ConfigError

    try:
        import uvicorn
    except ImportError:
        raise ConfigError("anchormem serve needs FastAPI and uvicorn: pip install 'anchormem[server]'") from None
    path, url = _store_target(url)
    # The app factory reads its configuration from the environment (the same in every worker process).
    if url:
        os.environ["ANCHORMEM_URL"] = url
    else:
        os.environ.pop("ANCHORMEM_URL", None)
        os.environ["ANCHORMEM_PATH"] = str(path)
    if keys_path:
        os.environ["ANCHORMEM_KEYS_PATH"] = keys_path
    from .server.app import create_app_from_env

    create_app_from_env()  # fail fast on bad settings (store, keys file, rate limit) before binding the port
    _err().print(f"anchormem API on http://{host}:{port}  store: {url or path}", soft_wrap=True)
    uvicorn.run("anchormem.server.app:create_app_from_env", factory=True, host=host, port=port,
                workers=workers, log_level=log_level, h11_max_incomplete_event_size=H11_MAX_HEAD_BYTES)


@keys_app.command("create")
@_handled
def keys_create(
    tenant: str = typer.Option(..., "--tenant", help="The tenant the key can read and write."),
    role: str = typer.Option("reader", "--role", help="reader, writer or admin."),
    name: Optional[str] = typer.Option(None, "--name", help="A note to recognise the key by."),
    url: Optional[str] = typer.Option(None, "--url", envvar="ANCHORMEM_URL", help="Store URL."),
    keys_path: Optional[str] = typer.Option(None, "--keys-path", envvar="ANCHORMEM_KEYS_PATH"),
) -> None:
    """Create an API key. The key is printed once and stored only as a salted hash."""
    ks = _key_store(url, keys_path)
    try:
        key, secret = ks.create(tenant, role, name=name)
    finally:
        ks.close()
    if _state.json:
        _emit_json({**key.as_dict(), "key": secret})
        return
    _out().print(f"[green]created[/] key {key.id} for tenant {escape(key.tenant)!r}, role {key.role}", soft_wrap=True)
    typer.echo(secret)
    _err().print("[yellow]This key is shown once; store it now.[/]")


@keys_app.command("list")
@_handled
def keys_list(
    tenant: Optional[str] = typer.Option(None, "--tenant", help="Only this tenant's keys."),
    url: Optional[str] = typer.Option(None, "--url", envvar="ANCHORMEM_URL", help="Store URL."),
    keys_path: Optional[str] = typer.Option(None, "--keys-path", envvar="ANCHORMEM_KEYS_PATH"),
) -> None:
    """List API keys (ids, tenants, roles; never the secrets)."""
    ks = _key_store(url, keys_path)
    try:
        keys = ks.list(tenant)
    finally:
        ks.close()
    if _state.json:
        _emit_json([k.as_dict() for k in keys])
        return
    if not keys:
        _out().print("[yellow]no API keys[/]")
        return
    t = Table()
    for c in ("id", "tenant", "role", "name", "created_at", "revoked_at"):
        t.add_column(c, no_wrap=c != "name")
    for k in keys:
        t.add_row(k.id, k.tenant, k.role, k.name or "", k.created_at, k.revoked_at or "")
    _out().print(t)


@keys_app.command("revoke")
@_handled
def keys_revoke(
    key_id: str = typer.Argument(..., metavar="ID"),
    url: Optional[str] = typer.Option(None, "--url", envvar="ANCHORMEM_URL", help="Store URL."),
    keys_path: Optional[str] = typer.Option(None, "--keys-path", envvar="ANCHORMEM_KEYS_PATH"),
) -> None:
    """Revoke an API key; requests with it get 401 from then on."""
    ks = _key_store(url, keys_path)
    try:
        key = ks.revoke(key_id)
    finally:
        ks.close()
    if _state.json:
        _emit_json(key.as_dict())
    else:
        _out().print(f"[green]revoked[/] {key.id} (tenant {escape(key.tenant)!r}, role {key.role})")


# ----------------------------------------------------------------------------------------------- demo
def load_demo(name: str) -> dict[str, Any]:
    """Load a bundled demo file (``demo_en.json`` / ``demo_zh.json``)."""
    return json.loads(resources.files("anchormem").joinpath("data", name).read_text(encoding="utf-8"))


def _check(question: dict[str, Any], ans: Any) -> bool:
    if question.get("abstain"):
        return ans.abstained
    if ans.abstained:
        return False
    expect = question["expect"]
    return any(expect in m.text for m in ans.citations)


def run_demo(mem: Any, *, on_ingest: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Ingest every bundled demo conversation into ``mem`` and ask its questions. Returns one dict per question:
    language, question, expect/abstain, the answer (``_answer_json`` shape) and ``ok``."""
    from .importers import parse_json

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
    from .memory import Memory

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
    con.print(f"Stored memories: " + ", ".join(f"{u}: {n}" for u, n in counts.items()))
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


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except AnchormemError as exc:  # pragma: no cover - commands already handle these
        _err().print(f"[bold red]error:[/] {escape(str(exc))}")
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
