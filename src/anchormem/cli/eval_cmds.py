"""``anchormem eval ...``: benchmark harnesses."""

from __future__ import annotations


from pathlib import Path
from typing import Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..errors import InvalidInputError

from .common import eval_app, _emit_json, _err, _handled, _out, _state

@eval_app.command("locomo")
@_handled
def eval_locomo(
    data: Path = typer.Option(..., "--data", help="Path to locomo10.json."),
    k: str = typer.Option("1,5,10,25,50", "--k", help="Comma-separated cut-offs for recall@k."),
    audit: bool = typer.Option(True, "--audit/--no-audit", help="Also score with the audit's corrections."),
    conversations: Optional[int] = typer.Option(None, "--conversations", help="Only the first N conversations."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedder name (default: settings)."),
    recipe: Optional[str] = typer.Option(None, "--recipe", help="Search recipe name."),
    answers: bool = typer.Option(False, "--answers", help="Instead of recall: ask every question and report "
                                 "abstention (category 5) vs answers citing gold evidence (1-4), over thresholds."),
) -> None:
    """Evidence recall@k on LoCoMo; with --answers, grounded answers and abstention."""
    try:
        ks = tuple(sorted({int(x) for x in k.split(",") if x.strip()}))
    except ValueError:
        raise InvalidInputError(f"--k must be comma-separated integers, got {k!r}") from None
    if not ks or min(ks) < 1:
        raise InvalidInputError("--k needs positive integers")
    if not data.is_file():
        raise InvalidInputError(f"--data {str(data)!r} is not a file")
    if answers:
        return _answers(data, conversations, embedder)
    from ..eval.locomo import format_table, run_locomo

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



def _run_and_print(label: str, fn: Any, table: Any, embedder: Optional[str], **kwargs: Any) -> None:
    """Run an eval with a progress bar on stderr, then print its JSON (``--json``) or its Markdown table."""
    if embedder is not None:
        kwargs["embedder"] = embedder
    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=_err(),
                  disable=_state.json) as progress:
        task = progress.add_task(label, total=None)
        result = fn(progress=lambda done, total: progress.update(task, completed=done, total=total), **kwargs)
    if _state.json:
        _emit_json(result)
    else:
        typer.echo(table(result))


def _answers(data: Path, conversations: Optional[int], embedder: Optional[str]) -> None:
    from ..eval.grounding import format_table, run_abstention

    _run_and_print("locomo answers", run_abstention, format_table, embedder, data_path=str(data),
                   conversations=conversations)


@eval_app.command("grounding")
@_handled
def eval_grounding(
    data: Path = typer.Option(..., "--data", help="Path to locomo10.json."),
    conversations: Optional[int] = typer.Option(None, "--conversations", help="Only the first N conversations."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedder name (default: settings)."),
    invent_every: int = typer.Option(5, "--invent-every", min=1, help="The scripted LLM invents facts on every "
                                     "N-th call."),
) -> None:
    """Write-path hallucination check: stored facts without support in their source (offline rules and a
    scripted LLM that invents facts); the target is 0."""
    if not data.is_file():
        raise InvalidInputError(f"--data {str(data)!r} is not a file")
    from ..eval.hallucination import format_table, run_hallucination

    _run_and_print("grounding", run_hallucination, format_table, embedder, data_path=str(data),
                   conversations=conversations, invent_every=invent_every)


@eval_app.command("memora")
@_handled
def eval_memora(
    data: Optional[Path] = typer.Option(None, "--data", help="Memora's weekly folder (default: $ANCHORMEM_MEMORA "
                                        "or shared/datasets/memora/weekly above the working directory)."),
    k: str = typer.Option("1,5,10,20", "--k", help="Comma-separated cut-offs (distinct sessions / turns)."),
    recipes: str = typer.Option("bm25,dense,hybrid_rrf,anchored", "--recipes", help="Comma-separated recipes."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedder name (default: settings)."),
    personas: Optional[str] = typer.Option(None, "--personas", help="Comma-separated persona names (default all)."),
    db: str = typer.Option(":memory:", "--store", help="Store file to ingest into (reused when complete)."),
    ask: bool = typer.Option(True, "--ask/--no-ask", help="Also check Memory.ask's citations for retired values."),
) -> None:
    """Memora: session and turn recall@k per question type, and retired values returned as current."""
    from ..eval.memora import default_root, format_table, run_memora

    try:
        ks = tuple(sorted({int(x) for x in k.split(",") if x.strip()}))
    except ValueError:
        raise InvalidInputError(f"--k must be comma-separated integers, got {k!r}") from None
    root = str(data) if data is not None else default_root()
    if root is None or not Path(root).is_dir():
        raise InvalidInputError(f"--data {root!r} is not a folder (Memora's weekly split)")
    names = [r.strip() for r in recipes.split(",") if r.strip()]
    who = [p.strip() for p in personas.split(",") if p.strip()] if personas else None
    _run_and_print("memora", run_memora, format_table, embedder, data_root=root, ks=ks, recipe=names,
                   personas=who, db_path=db, ask=ask)


@eval_app.command("memorybank")
@_handled
def eval_memorybank(
    data: Optional[Path] = typer.Option(None, "--data", help="MemoryBank's eval_data folder (cn/, en/; default: "
                                        "$ANCHORMEM_MEMORYBANK or shared/datasets/memorybank above the working "
                                        "directory)."),
    gold: Optional[Path] = typer.Option(None, "--gold", help="Gold evidence file (default: "
                                        "bench/data/memorybank_gold.json of this checkout)."),
    k: str = typer.Option("1,5,10", "--k", help="Comma-separated cut-offs (distinct chat turns)."),
    recipes: str = typer.Option("default,bm25,dense,hybrid_rrf", "--recipes",
                                help="Comma-separated recipes; 'default' = the Memory's default recipe."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedder name (default: settings)."),
    langs: str = typer.Option("en,cn", "--langs", help="en, cn or both."),
    users: Optional[str] = typer.Option(None, "--users", help="Comma-separated user positions 0-14 (default all; "
                                        "0-9 dev, 10-14 held out)."),
) -> None:
    """MemoryBank (cn + en): evidence-turn recall@k and hit@k of the probing questions, dev and held-out users."""
    from ..eval.memorybank import default_root, format_table, run_memorybank

    try:
        ks = tuple(sorted({int(x) for x in k.split(",") if x.strip()}))
        who = [int(x) for x in users.split(",") if x.strip()] if users else None
    except ValueError:
        raise InvalidInputError(f"--k and --users must be comma-separated integers, got {k!r}, {users!r}") from None
    root = str(data) if data is not None else default_root()
    if root is None or not Path(root).is_dir():
        raise InvalidInputError(f"--data {root!r} is not a folder (MemoryBank's eval_data)")
    names = [None if r.strip() == "default" else r.strip() for r in recipes.split(",") if r.strip()]
    _run_and_print("memorybank", run_memorybank, format_table, embedder, data_root=root,
                   gold=str(gold) if gold is not None else None, ks=ks, recipe=names,
                   langs=[x.strip() for x in langs.split(",") if x.strip()], users=who)


@eval_app.command("polysemy")
@_handled
def eval_polysemy(
    pooled: bool = typer.Option(True, "--pooled/--no-pooled", help="Also run all cases pooled in one history."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedder name (default: settings)."),
    raw_labels: bool = typer.Option(False, "--raw-labels",
                                    help="Keep the CoarseWSD sentences the audit found mislabelled."),
    sets: str = typer.Option("dev", "--sets", help="dev, heldout2 (the second held-out set, issue #23) or all."),
) -> None:
    """Context anchoring on the polysemy dev set (dense vs hybrid vs anchored, per language group)."""
    from ..eval.polysemy import format_table, run_polysemy

    kwargs: dict[str, Any] = {"pooled": pooled, "audit": not raw_labels}
    if sets != "dev":
        kwargs["sets"] = sets
    if embedder is not None:
        kwargs["embedder"] = embedder
    say = (lambda _m: None) if _state.json else (lambda m: _err().print(f"[dim]{m}[/]"))
    result = run_polysemy(progress=say, **kwargs)
    if _state.json:
        _emit_json(result)
    else:
        typer.echo(format_table(result))


# ----------------------------------------------------------------------------------------------- server
