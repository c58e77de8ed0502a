"""An LLM wrapper that records every call: which anchormem path made it, how long it took, whether its reply parsed.

    llm = RecordingLLM(make_llm(), server_pid=srv.proc.pid)
    mem = Memory(path, llm=llm)
    mem.add(...); mem.ask(...)
    llm.calls      # [Call(path="extract", seconds=3.1, cpu_seconds=5.8, parsed=True, ...), ...]
    llm.summary()  # {"extract": {"calls", "parse_failures", "errors", "seconds_per_call", ...}, ...}

The path is told by the system prompt each anchormem module sends (facts, labels, summary, rewrite, answer).
``parsed`` is :func:`anchormem.llms.jsonparse.parse_json_reply` on the reply (what each path does first);
``truncated`` that it was cut at ``max_tokens`` (``finish_reason == "length"``). ``cpu_seconds`` is the CPU time
the server process spent on the call (from ``/proc/<pid>/stat``; None off Linux or without ``server_pid``): on a
shared machine it is steadier than wall time.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import LLMError
from ..llms.jsonparse import parse_json_reply

__all__ = ["Call", "RecordingLLM", "call_path"]


@dataclass
class Call:
    """One completion: ``path``, wall ``seconds``, server ``cpu_seconds``, ``parsed`` (its reply held usable JSON),
    ``truncated`` (cut at max_tokens), ``error`` (the LLMError's text when the call failed), ``reply`` (first 300
    characters)."""

    path: str
    seconds: float
    cpu_seconds: float | None
    parsed: bool
    truncated: bool
    error: str | None
    reply: str


def call_path(messages: list[dict]) -> str:
    """Which anchormem path sent ``messages``: extract, labels, summary, rewrite, answer (or "other")."""
    from ..answering.llm_answer import SYSTEM_PROMPT as ANSWER
    from ..context.llm_labeller import SYSTEM_PROMPT as LABELS
    from ..facts.llm_extract import SYSTEM_PROMPT as FACTS
    from ..retrieval.rewrite import _PROMPT as REWRITE
    from ..summaries import _PROMPT as SUMMARY

    system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
    for name, prompt in (("extract", FACTS), ("labels", LABELS), ("summary", SUMMARY), ("rewrite", REWRITE),
                         ("answer", ANSWER)):
        if system.startswith(prompt[:60]):
            return name
    return "other"


def _cpu(pid: int | None) -> float | None:
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class RecordingLLM:
    """Wraps an :class:`anchormem.llms.LLM`; same ``complete`` (raises what it raises), every call kept in
    ``calls``. ``server_pid``: the process serving the model, for ``cpu_seconds``."""

    def __init__(self, llm: Any, *, server_pid: int | None = None) -> None:
        self.llm = llm
        self.name = getattr(llm, "name", "recorded")
        self.server_pid = server_pid
        self.calls: list[Call] = []

    def complete(self, messages: list[dict], *, json_schema: dict | None = None, temperature: float = 0.0,
                 max_tokens: int | None = None) -> str:
        path = call_path(messages)
        t0, c0 = time.perf_counter(), _cpu(self.server_pid)
        try:
            reply = self.llm.complete(messages, json_schema=json_schema, temperature=temperature,
                                      max_tokens=max_tokens)
        except LLMError as exc:
            c1 = _cpu(self.server_pid)
            self.calls.append(Call(path, time.perf_counter() - t0, None if c0 is None or c1 is None else c1 - c0,
                                   False, False, str(exc)[:300], ""))
            raise
        c1 = _cpu(self.server_pid)
        try:
            parse_json_reply(reply, expect="any")
            parsed = True
        except LLMError:
            parsed = False
        self.calls.append(Call(path, time.perf_counter() - t0, None if c0 is None or c1 is None else c1 - c0,
                               parsed, getattr(self.llm, "last_finish_reason", None) == "length", None,
                               reply[:300]))
        return reply

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per path: calls, parse_failures (a reply without usable JSON), truncated, errors (failed calls),
        seconds_per_call and cpu_seconds_per_call (means, 2 decimals)."""
        out: dict[str, dict[str, Any]] = {}
        for c in self.calls:
            s = out.setdefault(c.path, {"calls": 0, "parse_failures": 0, "truncated": 0, "errors": 0,
                                        "seconds": 0.0, "cpu_seconds": 0.0})
            s["calls"] += 1
            s["parse_failures"] += int(c.error is None and not c.parsed)
            s["truncated"] += int(c.truncated)
            s["errors"] += int(c.error is not None)
            s["seconds"] += c.seconds
            s["cpu_seconds"] += c.cpu_seconds or 0.0
        for s in out.values():
            s["seconds_per_call"] = round(s.pop("seconds") / s["calls"], 2)
            s["cpu_seconds_per_call"] = round(s.pop("cpu_seconds") / s["calls"], 2)
        return out

    def dump(self) -> list[dict[str, Any]]:
        """Every call as a dict (for a results file)."""
        return [asdict(c) for c in self.calls]
