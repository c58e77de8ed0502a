"""The measurement loop the retrieval harnesses share (LoCoMo, Memora, MemoryBank): the cut-offs checked, the recipes
resolved read-only, every question searched with every recipe (timed), and one run entry per recipe.

Read-only means ``track_access`` off: a search then bumps no access counts, which feed importance, so a recipe does
not see the hits of the recipes (or questions) measured before it, and a result does not depend on the order.

    >>> cfgs = read_only_configs(["bm25", None], default=RECIPES["anchored"])
    >>> results = search_each(mem, questions, cfgs, query=lambda q: (q["question"], q["user"]), limit=10,
    ...                       score=lambda q, hits: {"id": q["id"], "ranked": [h.memory.id for h in hits]})
    >>> runs = collect_runs(cfgs, results, lambda recs: {"table": my_table(recs)})
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..errors import InvalidInputError
from ..retrieval.config import SearchConfig
from ..retrieval.config import recipe as resolve_recipe

__all__ = ["RecipeArg", "check_ks", "recipe_list", "read_only_configs", "Ticker", "search_each", "latency_ms",
           "unique_name", "collect_runs"]

#: a recipe name or SearchConfig, a list of them, or None (the Memory's default recipe)
RecipeArg = str | SearchConfig | Sequence[str | SearchConfig | None] | None
Q = TypeVar("Q")


def check_ks(ks: Sequence[int]) -> list[int]:
    """The cut-offs sorted, without repeats (``(10, 1, 5, 1)`` → ``[1, 5, 10]``). Raises InvalidInputError when
    there are none or one is below 1."""
    out = sorted({int(k) for k in ks})
    if not out or out[0] < 1:
        raise InvalidInputError("ks must be positive integers")
    return out


def recipe_list(recipe: RecipeArg) -> list[str | SearchConfig | None]:
    """One recipe (or None) → a list of one; a list → a copy of it."""
    if recipe is None or isinstance(recipe, (str, SearchConfig)):
        return [recipe]
    return list(recipe)


def read_only_configs(recipes: Sequence[str | SearchConfig | None], default: SearchConfig) -> list[SearchConfig]:
    """Each recipe resolved (:func:`anchormem.retrieval.config.recipe`; None is ``default``, the Memory's own) with
    ``track_access`` off. Raises ConfigError for an unknown name or an invalid config."""
    return [(resolve_recipe(r) if r is not None else default).model_copy(update={"track_access": False})
            for r in recipes]


class Ticker:
    """Counts steps done out of ``total`` and calls ``progress(done, total)`` after each (when given)."""

    def __init__(self, total: int, progress: Callable[[int, int], None] | None = None) -> None:
        self.total, self.done, self.progress = total, 0, progress

    def __call__(self, steps: int = 1) -> None:
        """Count ``steps`` more steps done (several at once: one report)."""
        self.done += steps
        if self.progress:
            self.progress(self.done, self.total)


def search_each(mem: Any, questions: Sequence[Q], configs: Sequence[SearchConfig], *,
                query: Callable[[Q], tuple[str, str]], score: Callable[[Q, list[Any]], dict[str, Any]], limit: int,
                prepare: Callable[[Q], dict[str, Any]] | None = None, tick: Callable[[], None] | None = None
                ) -> list[tuple[list[dict[str, Any]], list[float]]]:
    """Search every question with every config (questions outer, configs inner: with several configs a query is
    embedded once, by the first config that uses the dense signal, and only that search pays for it).

    Args:
        mem: a :class:`anchormem.Memory` holding the ingested data.
        questions: anything; ``query(q)`` gives its ``(query text, user_id)``.
        configs: from :func:`read_only_configs`.
        score: ``score(q, hits)`` → the question's record for one config (hits ranked, at most ``limit``).
        limit: hits per search.
        prepare: ``prepare(q)`` → fields added to each of the question's records, called once per question before
            its searches (e.g. an :meth:`Memory.ask` result).
        tick: called after each ``prepare`` and after each search.

    Returns one ``(records, latencies)`` pair per config, in the order of ``configs``: the records in question
    order, the search latencies in milliseconds (wall clock, unsorted)."""
    out: list[tuple[list[dict[str, Any]], list[float]]] = [([], []) for _ in configs]
    for q in questions:
        text, user = query(q)
        extra = prepare(q) if prepare is not None else {}
        if prepare is not None and tick:
            tick()
        for cfg, (records, lats) in zip(configs, out):
            t1 = time.perf_counter()
            hits = mem.search(text, user_id=user, limit=limit, recipe=cfg)
            lats.append((time.perf_counter() - t1) * 1000.0)
            records.append({**score(q, hits), **extra})
            if tick:
                tick()
    return out


def latency_ms(lats: Sequence[float]) -> dict[str, float | None]:
    """``{"mean", "p50", "p95", "max"}`` of latencies in milliseconds (p50 / p95: the value at that rank of the
    sorted list); all None for an empty list."""
    s = sorted(lats)
    if not s:
        return {"mean": None, "p50": None, "p95": None, "max": None}
    return {"mean": statistics.fmean(s), "p50": s[len(s) // 2], "p95": s[min(len(s) - 1, int(len(s) * 0.95))],
            "max": s[-1]}


def unique_name(name: str, taken: Sequence[str] | dict[str, Any]) -> str:
    """``name``, with a ``'`` added until it is not among ``taken`` (two runs of one recipe name stay apart)."""
    while name in taken:
        name += "'"
    return name


def collect_runs(configs: Sequence[SearchConfig], results: Sequence[tuple[list[dict[str, Any]], list[float]]],
                 tables: Callable[[list[dict[str, Any]]], dict[str, Any]], *, details: bool = False
                 ) -> dict[str, dict[str, Any]]:
    """One run entry per config, keyed by its name (:func:`unique_name`): ``recipe`` (its settings), ``search_ms``
    (:func:`latency_ms`), the entries ``tables(records)`` returns, and with ``details`` the records as
    ``questions``."""
    runs: dict[str, dict[str, Any]] = {}
    for cfg, (records, lats) in zip(configs, results):
        run: dict[str, Any] = {"recipe": cfg.model_dump(), "search_ms": latency_ms(lats), **tables(records)}
        if details:
            run["questions"] = records
        runs[unique_name(cfg.name, runs)] = run
    return runs
