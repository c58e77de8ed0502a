"""Scripted multi-session scenarios for the reference agents: load, check and replay them.

A scenario is a JSON object (bundled ones live in ``anchormem/data/scenarios/``; ``anchormem mediate NAME`` and
``anchormem support NAME`` run them)::

    {"agent": "mediator", "title": "...", "language": "en", "case_id": "hedge-42",
     "parties": {"alice": "Alice", "bob": "Bob"},
     "sessions": [{"session_id": "2025-05-03", "start": "2025-05-03T10:00:00+01:00",
                   "turns": [{"party": "alice", "text": "..."}, {"party": "bob", "text": "...", "at": "..."}]}]}

    {"agent": "support", "customer_id": "cust-1001", "name": "Maya", "language": "en",
     "products": [{"name": "Steady Income Fund No. 3", "aliases": ["Steady Income"]}],
     "sessions": [{"session_id": "...", "start": "...", "turns": [{"text": "..."}]}]}

A turn is said at its ``at`` or, without one, ``minutes`` (default 2) after the previous turn of the session (the
first at ``start``). :func:`run_scenario` replays the turns with the library clock set to each turn's time, so
expiry, due dates and "last week" behave as they did on those days.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from importlib import resources
from typing import Any

from ..errors import InvalidInputError
from ..timeutil import set_clock, to_aware, to_utc
from .common import AgentReply
from .mediator import Mediator
from .support import SupportAgent

__all__ = ["load_scenario", "bundled_scenarios", "run_scenario", "ReplayClock"]

_DIR = ("data", "scenarios")


class ReplayClock:
    """A settable library clock (:func:`anchormem.timeutil.set_clock`): ``set(when)`` then call it for the time."""

    def __init__(self, start: datetime | str | None = None) -> None:
        self.now = to_utc(start) if start is not None else None

    def __call__(self) -> datetime:
        if self.now is None:
            raise InvalidInputError("the replay clock was not set")
        return self.now

    def set(self, when: datetime | str) -> None:
        self.now = to_utc(when, field="clock")


def bundled_scenarios() -> list[str]:
    """Names of the bundled scenarios (``neighbour_dispute_en``, ``support_en``…), sorted."""
    folder = resources.files("anchormem").joinpath(*_DIR)
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


def load_scenario(source: str | os.PathLike[str] | Mapping[str, Any]) -> dict[str, Any]:
    """A scenario from a bundled name, a JSON file path or a dict, checked, with every turn's ``at`` filled in
    (ISO-8601 with the turn's offset). Raises InvalidInputError naming what is wrong (unknown name, bad JSON,
    missing field, unknown party, bad time)."""
    if isinstance(source, Mapping):
        data: Any = json.loads(json.dumps(source))
    else:
        name = os.fspath(source)
        bundled = resources.files("anchormem").joinpath(*_DIR, name if name.endswith(".json") else name + ".json")
        if os.sep not in name and "/" not in name and bundled.is_file():
            text = bundled.read_text(encoding="utf-8")
        elif os.path.isfile(name):
            with open(name, encoding="utf-8") as fh:
                text = fh.read()
        else:
            raise InvalidInputError(f"no scenario {name!r}: not a file and not one of {', '.join(bundled_scenarios())}")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"scenario {name!r} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    return _check(data)


def _need(d: Any, key: str, kind: type, where: str) -> Any:
    if not isinstance(d, dict) or not isinstance(d.get(key), kind) or (isinstance(d.get(key), (str, list, dict))
                                                                        and not d.get(key)):
        raise InvalidInputError(f"scenario {where}: '{key}' must be a non-empty {kind.__name__}")
    return d[key]


def _check(data: Any) -> dict[str, Any]:
    agent = _need(data, "agent", str, "")
    if agent not in ("mediator", "support"):
        raise InvalidInputError(f"scenario: 'agent' must be 'mediator' or 'support', not {agent!r}")
    if agent == "mediator":
        _need(data, "case_id", str, "")
        parties = _need(data, "parties", dict, "")
    else:
        _need(data, "customer_id", str, "")
        parties = {}
    for i, s in enumerate(_need(data, "sessions", list, "")):
        where = f"session {i}"
        _need(s, "session_id", str, where)
        prev: datetime | None = to_aware(s["start"], field=f"{where} start") if s.get("start") else None
        for j, t in enumerate(_need(s, "turns", list, where)):
            _need(t, "text", str, f"{where} turn {j}")
            if agent == "mediator" and t.get("party") not in parties:
                raise InvalidInputError(f"scenario {where} turn {j}: party {t.get('party')!r} is not one of "
                                        f"{', '.join(parties)}")
            if t.get("at"):
                at = to_aware(t["at"], field=f"{where} turn {j} at")
            elif prev is None:
                raise InvalidInputError(f"scenario {where} turn {j}: no 'at' and the session has no 'start'")
            else:
                at = prev + timedelta(minutes=float(t.get("minutes", 2))) if j else prev
            t["at"], prev = at.isoformat(), at
    return data


def run_scenario(memory: Any, scenario: str | os.PathLike[str] | Mapping[str, Any], *, clock: Any = None,
                 llm: Any = None, on_turn: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Replay a scenario (see :func:`load_scenario`) against ``memory`` with a new agent. Returns one dict per
    turn: ``session_id``, ``at``, ``party`` (mediator) or None, ``speaker`` (display name), ``text`` and
    ``reply`` (an :class:`AgentReply`); ``on_turn`` is called with each as it happens.

    ``clock``: an object with ``set(when)`` that the library clock already reads (e.g. the one of
    :func:`anchormem.testing.frozen_clock`); by default a :class:`ReplayClock` is installed for the replay and
    the real clock restored afterwards. The support assistant writes each session's summary at its end.
    """
    sc = load_scenario(scenario)
    own = clock is None
    if own:
        clock = ReplayClock()
        set_clock(clock)
    lang = sc.get("language", "auto")
    out: list[dict[str, Any]] = []
    try:
        if sc["agent"] == "mediator":
            agent: Any = Mediator(memory, sc["case_id"], sc["parties"], language=lang, llm=llm)
        else:
            agent = SupportAgent(memory, sc["customer_id"], name=sc.get("name"), products=sc.get("products", ()),
                                 language=lang, llm=llm)
        for s in sc["sessions"]:
            for t in s["turns"]:
                clock.set(t["at"])
                if sc["agent"] == "mediator":
                    reply: AgentReply = agent.turn(t["party"], t["text"], session_id=s["session_id"], at=t["at"])
                    party, speaker = t["party"], sc["parties"][t["party"]]
                else:
                    reply = agent.turn(t["text"], session_id=s["session_id"], at=t["at"])
                    party, speaker = None, sc.get("name") or sc["customer_id"]
                row = {"session_id": s["session_id"], "at": t["at"], "party": party, "speaker": speaker,
                       "text": t["text"], "reply": reply}
                out.append(row)
                if on_turn is not None:
                    on_turn(row)
            if sc["agent"] == "support":
                agent.end_session(s["session_id"])
    finally:
        if own:
            set_clock(None)
    return out
