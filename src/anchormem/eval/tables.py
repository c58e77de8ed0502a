"""Markdown tables of the eval harnesses (LoCoMo, Memora, MemoryBank): one way to print a rate and a header."""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["pct", "md_head"]


def pct(v: Any) -> str:
    """A rate in [0, 1] as a percent with one decimal ("66.3"); None as "-"."""
    return "-" if v is None else f"{100 * v:.1f}"


def md_head(text_cols: Sequence[str], num_cols: Sequence[str]) -> list[str]:
    """The header and alignment lines of a markdown table: ``text_cols`` left-aligned, then ``num_cols`` right."""
    cols = list(text_cols) + list(num_cols)
    return ["| " + " | ".join(cols) + " |", "|" + "---|" * len(text_cols) + "---:|" * len(num_cols)]
