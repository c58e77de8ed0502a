"""Find and parse the JSON value in an LLM's reply, however it was wrapped or damaged.

:func:`parse_json_reply` handles what real models send back:

- prose before/after the JSON ("Here are the facts I extracted: {...}", "Hope this helps!");
- a fenced block (```json ... ```), also followed by commentary, also never closed;
- ``<think>...</think>`` reasoning blocks (DeepSeek-R1, Qwen3) before the answer;
- several values or a note with ``{braces}`` after the answer: only the FIRST complete value is used;
- a reply cut off mid-value: the complete items are salvaged and ``truncated=True`` is set (a partial item
  is never kept);
- invalid escapes (``\\q``, ``\\u12``) and lone surrogate escapes (``\\ud83d``): the bad escape is dropped;
- trailing commas, single quotes, unquoted keys, Python literals...: repaired by the ``json-repair``
  package, applied only to the extracted value (so a trailing note is never merged in).

Raises :class:`~anchormem.errors.LLMParseError` when nothing usable is found.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import LLMParseError

__all__ = ["ParseResult", "parse_json_reply", "strip_lone_surrogates"]

Expect = Literal["object", "array", "any"]

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE_OPEN = re.compile(r"```[ \t]*(?:json5?|javascript|js)?[ \t]*\r?\n?", re.I)
_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt]|u|.|$)', re.S)
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_MAX_CANDIDATES = 50


@dataclass
class ParseResult:
    """A parsed reply.

    ``value``: the JSON value (dict or list). ``truncated``: the reply was cut off and only the complete
    items were kept. ``repaired``: the text needed repair (escapes, surrogates, json-repair). ``notes``: what
    was done, for logs. ``raw``: the JSON text that was finally parsed.
    """

    value: Any
    truncated: bool = False
    repaired: bool = False
    notes: list[str] = field(default_factory=list)
    raw: str = ""


def strip_lone_surrogates(value: Any) -> tuple[Any, int]:
    """Drop lone UTF-16 surrogates from every string in a parsed JSON value; returns (value, count dropped).

    ``json.loads`` turns ``"\\ud83d"`` into a lone surrogate that cannot be encoded as UTF-8 (so it could not be
    stored). A valid pair (``\\ud83d\\ude00``) is already combined by ``json.loads`` and is kept.
    """
    count = 0

    def fix(v: Any) -> Any:
        nonlocal count
        if isinstance(v, str):
            new, n = _SURROGATE.subn("", v)
            count += n
            return new
        if isinstance(v, list):
            return [fix(x) for x in v]
        if isinstance(v, dict):
            return {fix(k): fix(x) for k, x in v.items()}
        return v

    return fix(value), count


def _fix_escapes(text: str) -> tuple[str, int]:
    """Drop invalid backslash escapes (``\\q`` -> ``q``; ``\\u12`` -> ``12``). Valid ones are kept."""
    fixed = 0

    def sub(m: re.Match) -> str:
        nonlocal fixed
        body = m.group(1)
        if len(body) == 5 or (len(body) == 1 and body in '"\\/bfnrt'):
            return m.group(0)
        fixed += 1
        return "" if body == "u" else body

    return _ESCAPE.sub(sub, text), fixed


@dataclass
class _Scan:
    start: int
    end: int | None  # index after the matching close, or None when the text ended first
    cuts: list[tuple[int, str]]  # (cut position, closers to append) where every item before is complete


def _scan(text: str, start: int) -> _Scan:
    """Bracket-match from ``text[start]`` (``{`` or ``[``), string-aware. Records salvage cut points: places
    where the innermost open container is an array (or the top-level container) and every item so far is
    complete, so ``text[:cut] + closers`` is a well-formed prefix."""
    stack: list[str] = []
    cuts: list[tuple[int, str]] = []
    in_str = esc = False
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack:
                return _Scan(start, i + 1, cuts)
            stack.pop()  # tolerate a mismatched closer: json-repair or json.loads decide later
            if not stack:
                return _Scan(start, i + 1, cuts)
            if stack[-1] == "]" or len(stack) == 1:
                cuts.append((i + 1, "".join(reversed(stack))))
        elif ch == "," and stack and (stack[-1] == "]" or len(stack) == 1):
            cuts.append((i, "".join(reversed(stack))))
        i += 1
    return _Scan(start, None, cuts)


def _loads(segment: str, notes: list[str]) -> tuple[Any, bool] | None:
    """Strict parse, then escape repair, then json-repair. Returns (value, repaired) or None."""
    try:
        return json.loads(segment, strict=False), False
    except ValueError:
        pass
    fixed, n = _fix_escapes(segment)
    if n:
        try:
            value = json.loads(fixed, strict=False)
            notes.append(f"dropped {n} invalid escape(s)")
            return value, True
        except ValueError:
            pass
    if '"' not in segment and "'" not in segment:
        return None  # prose in brackets ("{braces}", "[see above]"), not JSON: json-repair would invent a value
    try:
        import json_repair
    except ImportError:  # pragma: no cover - it is a declared dependency
        return None
    try:
        value = json_repair.loads(fixed)
    except Exception:  # json-repair raises assorted errors on hopeless input
        return None
    want = dict if segment.lstrip().startswith("{") else list
    if isinstance(value, want) and value:
        notes.append("repaired with json-repair")
        return value, True
    return None


def _type_ok(value: Any, expect: Expect) -> bool:
    return (expect == "any" and isinstance(value, (dict, list))) or \
        (expect == "object" and isinstance(value, dict)) or (expect == "array" and isinstance(value, list))


def _regions(text: str) -> list[str]:
    """Where to look, in order: the inside of each fenced block (an unclosed fence runs to the end), then the
    whole text."""
    out: list[str] = []
    pos = 0
    while True:
        m = _FENCE_OPEN.search(text, pos)
        if not m:
            break
        close = text.find("```", m.end())
        out.append(text[m.end():] if close < 0 else text[m.end():close])
        if close < 0:
            break
        pos = close + 3
    out.append(text)
    return out


def _salvage(sc: _Scan, region: str, openers: str, expect: Expect) -> ParseResult | None:
    if region[sc.start] not in openers:
        return None
    for cut, closers in reversed(sc.cuts):
        seg = region[sc.start:cut].rstrip().rstrip(",") + closers
        notes: list[str] = []
        got = _loads(seg, notes)
        if got is None or not _type_ok(got[0], expect):
            continue
        value, dropped = strip_lone_surrogates(got[0])
        if dropped:
            notes.append(f"dropped {dropped} lone surrogate(s)")
        notes.append("reply was cut off; kept only the complete items")
        return ParseResult(value, True, True, notes, seg)
    return None


def parse_json_reply(text: str, *, expect: Expect = "object") -> ParseResult:
    """Parse the first complete JSON value of type ``expect`` ("object", "array" or "any") in an LLM reply.

    A value of the other type found first is skipped as a whole (its inner items are not taken for the answer).
    Raises LLMParseError (with a short excerpt of the reply) when nothing usable is found.
    """
    if not isinstance(text, str):
        raise LLMParseError(f"LLM reply is {type(text).__name__}, not text")
    cleaned = _THINK.sub("", text.lstrip("\ufeff"))
    if "<think>" in cleaned.lower() and "</think>" not in cleaned.lower():
        cleaned = cleaned[: cleaned.lower().index("<think>")]  # reasoning never finished: no answer after it
    openers = "{[" if expect == "any" else ("{" if expect == "object" else "[")
    problems: list[str] = []
    for region in _regions(cleaned):
        pos, tried = 0, 0
        while tried < _MAX_CANDIDATES:
            starts = [i for i in (region.find("{", pos), region.find("[", pos)) if i >= 0]
            if not starts:
                break
            start = min(starts)
            tried += 1
            sc = _scan(region, start)
            if sc.end is None:
                # cut off: salvage this value now, so its own inner items are never taken for the answer
                got = _salvage(sc, region, openers, expect)
                if got is not None:
                    return got
                problems.append("reply was cut off before any complete item")
                break  # everything after this opener is inside the cut-off value: never take its inner items
            notes: list[str] = []
            got = _loads(region[start:sc.end], notes)
            if got is not None:
                value, repaired = got
                if region[start] not in openers or not _type_ok(value, expect):
                    problems.append(f"skipped a JSON {type(value).__name__} (expected {expect})")
                    pos = sc.end
                    continue
                value, dropped = strip_lone_surrogates(value)
                if dropped:
                    notes.append(f"dropped {dropped} lone surrogate(s)")
                return ParseResult(value, False, repaired or bool(dropped), notes, region[start:sc.end])
            pos = start + 1
        # a complete value in a fenced block wins; otherwise look at the next region
    excerpt = " ".join(text.split())[:160]
    why = "; ".join(dict.fromkeys(problems)) or "no JSON value found"
    raise LLMParseError(f"could not parse the LLM reply as JSON ({why}): {excerpt!r}")
