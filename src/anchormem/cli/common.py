"""The ``anchormem`` command line: a thin layer over :class:`anchormem.Memory`.

Global options come before the command: ``anchormem [--db PATH] [--json] COMMAND ...`` (``--json`` may also
come after it). Every command prints a readable rich layout, or with ``--json`` one JSON document on stdout.
Errors raised by anchormem print one red line on stderr (with ``--json`` also ``{"error": {"type", "message"}}``
on stdout) and exit with code 2
(never a traceback); a declined confirmation exits with code 1. Usage errors (an unknown option or command, a
missing argument, a bad option value) print click's usage lines on stderr and exit with code 2; with ``--json``
anywhere on the line also ``{"error": {"type": "UsageError", "message"}}`` on stdout.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Optional

import typer
from rich.console import Console, Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..errors import AnchormemError, FilterError, InvalidInputError

__all__ = ["app", "eval_app", "keys_app", "console_main"]

class _JsonUsageErrors(typer.core.TyperGroup):
    """The root command: a usage error (raised while parsing the root options or a command's) is also printed as
    JSON on stdout when ``--json`` is on the command line, then shown and exited on (code 2) as click does."""

    def make_context(self, info_name: Any, args: list[str], parent: Any = None, **extra: Any) -> Any:
        args = _hoist_json(list(args))
        _state.db, _state.json, _state.argv = None, False, list(args)  # nothing left over from a previous run
        with _usage_json():
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        with _usage_json():
            return super().invoke(ctx)


def _hoist_json(args: list[str]) -> list[str]:
    """``--json`` is a global option but accepted anywhere on the line (``anchormem list --user u --json``):
    moved to the front, except after a ``--`` (there it is an argument, e.g. a text to add)."""
    end = args.index("--") if "--" in args else len(args)
    if "--json" not in args[:end]:
        return args
    return ["--json"] + [a for a in args[:end] if a != "--json"] + args[end:]


@contextlib.contextmanager
def _usage_json() -> Any:
    try:
        yield
    except typer.exceptions.TyperException as exc:  # click's ClickException (typer vendors click)
        if (_state.json or "--json" in _state.argv) and not getattr(exc, "_anchormem_json", False):
            exc._anchormem_json = True  # type: ignore[attr-defined]
            usage = any(k.__name__ == "UsageError" for k in type(exc).__mro__)
            kind = "UsageError" if usage else type(exc).__name__
            _emit_json({"error": {"type": kind, "message": exc.format_message()}})
        raise


app = typer.Typer(
    cls=_JsonUsageErrors,
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



@dataclass
class State:
    db: str | None = None
    json: bool = False
    argv: list[str] = field(default_factory=list)


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
        except (AnchormemError, OSError, UnicodeDecodeError) as exc:  # OSError etc.: files named on the line
            _fail(exc)

    return wrapper


def _fail(exc: Exception) -> None:
    """One red line on stderr; with ``--json`` also ``{"error": {"type", "message"}}`` on stdout; exit code 2."""
    _err().print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
    if _state.json:
        _emit_json({"error": {"type": type(exc).__name__, "message": str(exc)}})
    raise typer.Exit(2) from None


def _confirm(question: str) -> bool:
    """Ask ``question [y/N]`` on stderr and read the answer from stdin; no answer (stdin closed) is no. Not
    ``typer.confirm``: click's prompt writes a space to stdout, which would spoil a ``--json`` document."""
    sys.stderr.write(f"{question} [y/N]: ")
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:  # end of input: close the prompt's line
        sys.stderr.write("\n")
    return line.strip().lower() in ("y", "yes")


def _emit_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json")


def _open(db: str | None = None, *, must_exist: bool = False, **kwargs: Any):
    """Open the Memory for a command. ``must_exist``: commands that only read (or delete) refuse to create a
    database at a mistyped path; they raise InvalidInputError (exit 2) instead."""
    from ..config import default_path
    from ..memory import Memory

    path = db or _state.db
    if must_exist and not (path is None and os.environ.get("ANCHORMEM_URL")):  # a URL's store is checked on open
        target = path or default_path()
        if target != ":memory:" and not target.startswith(("sqlite:", "postgresql:", "postgres:")) \
                and not os.path.exists(os.path.expanduser(target)):
            raise InvalidInputError(f"no database at {target} (check --db / ANCHORMEM_PATH)")
    return Memory(path, **kwargs)


def _parse_filter(value: str | None) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise FilterError(f"--filter is not valid JSON: {exc.msg} at column {exc.colno}") from exc
    except RecursionError:
        raise FilterError("--filter nests too deeply") from None
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


def _local(dt: datetime) -> datetime:
    """``dt`` on the users' calendar (``ANCHORMEM_TIMEZONE``; UTC when unset)."""
    zone = _zone(os.environ.get("ANCHORMEM_TIMEZONE"))
    return dt.astimezone(zone) if zone is not None else dt


@functools.lru_cache(maxsize=4)
def _zone(name: str | None) -> Any:
    """The zone named ``name`` (:func:`anchormem.timeutil.zone_of`), read once per name, not once per row shown."""
    from ..timeutil import zone_of

    return zone_of(name)


def _fmt_time(dt: datetime | None) -> str:
    """``"2024-03-01 14:05"`` on the users' calendar (:func:`_local`), "" for None."""
    return "" if dt is None else _local(dt).strftime("%Y-%m-%d %H:%M")


def _fmt_day(dt: datetime) -> str:
    return _local(dt).strftime("%Y-%m-%d")


def _who(m: Any) -> str:
    if m.speaker:
        return m.speaker
    return "assistant" if m.source == "assistant" else "user"


def _short(text: str, n: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _memories_table(items: list[Any], title: str | None = None, shown: dict[str, str] | None = None) -> Table:
    """``shown``: the id to print for each memory id (``cli.ids.short_ids``: a unique prefix the CLI takes back);
    default the full id."""
    shown = shown or {}
    t = Table(title=title, show_lines=False, width=_out().width)
    t.add_column("id", style="dim", no_wrap=True)
    t.add_column("said", no_wrap=True)
    t.add_column("who", overflow="fold", max_width=12)
    t.add_column("kind", overflow="fold", max_width=10)
    t.add_column("text", min_width=24, ratio=1, overflow="fold")
    for m in items:
        t.add_row(shown.get(m.id, m.id), _fmt_day(m.created_at), _who(m), m.kind, _short(m.text, 120))
    return t


# ----------------------------------------------------------------------------------------------- root
def _print_version(value: bool) -> None:
    """``anchormem --version``: ``anchormem X.Y.Z`` (with ``--json``: ``{"version": ...}``), exit code 0."""
    if not value:
        return
    from .. import __version__

    if "--json" in _state.argv:
        _emit_json({"version": __version__})
    else:
        typer.echo(f"anchormem {__version__}")
    raise typer.Exit(0)


@app.callback()
def _root(
    db: Optional[str] = typer.Option(None, "--db", envvar="ANCHORMEM_PATH", metavar="PATH",
                                     help="Database file (default: ~/.local/share/anchormem/memories.db)."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable JSON output."),
    version: bool = typer.Option(False, "--version", is_eager=True, callback=lambda v: _print_version(v),
                                 help="Print the version and exit."),
) -> None:
    """anchormem: long-term memory for LLM agents."""
    _state.db = db
    _state.json = json_out


def _answer_json(question: str, ans: Any) -> dict[str, Any]:
    return {"question": question, "answer": ans.text, "abstained": ans.abstained,
            "citations": [{"id": m.id, "speaker": _who(m), "date": _fmt_day(m.created_at),
                           "created_at": m.created_at.isoformat(), "quote": m.text, "source": m.source,
                           "event_time": m.event_time.isoformat() if m.event_time else None,
                           "event_time_end": m.event_time_end.isoformat() if m.event_time_end else None,
                           "note": getattr(m, "note", None)}
                          for m in ans.citations]}


def _answer_renderable(ans: Any) -> Any:
    """The abstention, or one block per citation: speaker · date · memory id, then the verbatim quote."""
    if ans.abstained:
        return Text(ans.text, style="yellow")
    parts: list[Any] = []
    for i, m in enumerate(ans.citations):
        head = Text()
        head.append(_who(m), style="bold cyan")
        head.append(f"  {_fmt_day(m.created_at)}", style="magenta")
        head.append(f"  id {m.id}", style="dim")
        parts.append(head)
        parts.append(Text(f"  “{m.text}”", overflow="fold"))
        note = getattr(m, "note", None)  # Citation.note: "true until 2024-03", "planned: from …", "pending review"
        if note:
            parts.append(Text(f"  ({note})", style="yellow", overflow="fold"))
    return Group(*parts)


def console_main() -> None:
    """Console-script entry point."""
    try:
        app()
    except AnchormemError as exc:  # pragma: no cover - commands already handle these
        _err().print(f"[bold red]error:[/] {escape(str(exc))}")
        sys.exit(2)
