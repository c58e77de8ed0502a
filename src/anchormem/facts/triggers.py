"""Trigger prefilter for the offline fact readers: a reader whose patterns cannot match a text is not run on it.

Most turns state no slot fact, yet every reader (the rules, the change patterns, the clause frames) tries all its
patterns on every clause. Each reader declares its **gates** here: the compiled patterns at least one of which must
match its input for it to read anything (:func:`declare`). From them this module derives, once, the literal texts a
match cannot do without (:func:`required_literals`: the words of the reader's data files and rule patterns, read
from the patterns themselves, so a new word in ``data/lang/*`` is a new trigger with no second list to keep), and
compiles them into one alternation per reader, a trie of literals matched case-insensitively, whitespace runs and
word boundaries kept as the gate has them (:func:`may_read`: one regex search). The check is a necessary condition
only: a text it lets through is read exactly as before, and one it stops is a text none of the gates could match,
so the facts are identical (``bench/fact_prefilter.py`` checks that over 23k real turns). Of a gate's necessary
literals the most selective keys it: the longest, with the words too common in chat to be selective (``common`` of
``data/lang/*/triggers.json``: "I", "my", 我) counted short. (Checking every gate's other literal sets too stops more
clauses but costs more than it saves: measured, 0.34 vs 0.29 ms per turn.)

A reader that declares nothing, or a gate from which no literal can be derived (a pattern that can match without
any fixed text, such as ``[A-Z]\\w+``), makes :func:`may_read` true for every text: it always runs. A gate is
searched in the reader's own input (a clause) or in a part of it that starts after a non-word character, so a word
boundary of the gate is one in the checked text too.

    declare("frames", lambda: [rx1, rx2])   # at import of the reader; nothing is compiled until first use
    may_read("frames", "I moved to Berlin")  # -> True when a literal of a frames gate occurs in the text

Nothing is read or compiled at import time.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
try:  # CPython's own regex parser (3.11+); without it no literal is derived and every reader always runs
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover (another interpreter)
    _c = _p = None  # type: ignore[assignment]

__all__ = ["declare", "may_read", "required_literals", "declared", "trigger_pattern"]

Gates = Callable[[], Iterable["re.Pattern[str] | str"]]

_GATES: dict[str, Gates] = {}
_BUILT: dict[str, "re.Pattern[str] | None"] = {}  # reader -> its alternation, or None (it always runs)
_LITS: dict[str, "list[str] | None"] = {}  # reader -> the literals of its alternation
_FAST: dict[str, "re.Pattern[str] | bool | None"] = {}  # reader -> what an ASCII text is searched with (_ascii)
_LOCK = threading.Lock()
_MAX_LITERALS = 4096  # a gate set needing more literals than this is not worth a prefilter: the reader always runs


def declare(reader: str, gates: Gates) -> None:
    """Register ``reader``'s gates: ``gates()`` returns the compiled patterns (or pattern strings) at least one of
    which matches whatever text the reader reads a fact from. Called at import of the reader module; ``gates`` is
    only called on the first :func:`may_read` of that reader. Declaring a reader again replaces its gates."""
    with _LOCK:
        _GATES[reader] = gates
        _BUILT.pop(reader, None)
        _LITS.pop(reader, None)
        _FAST.pop(reader, None)


def declared() -> tuple[str, ...]:
    """The names of the readers that declared gates."""
    return tuple(_GATES)


def may_read(reader: str, text: str) -> bool:
    """False only when no gate of ``reader`` can match ``text`` (none of their required literals occurs in it,
    compared case-insensitively); True for a reader that declared nothing or has a gate without a required
    literal. One regex search: for an ASCII text, of the reader's ASCII literals in the lower-cased text (a
    case-sensitive search, ~5 times cheaper than the case-insensitive one and the same answer: see :func:`_ascii`)."""
    if text.isascii():
        fast = _FAST[reader] if reader in _FAST else _ascii(reader)
        if isinstance(fast, bool):
            return fast
        if fast is not None:
            return fast.search(text.lower()) is not None
    rx = _built(reader)
    return rx is None or rx.search(text) is not None


def _ascii(reader: str) -> "re.Pattern[str] | bool | None":
    """What :func:`may_read` searches in an ASCII text: True when the reader always runs, False when none of its
    literals can occur in ASCII text, else the alternation of its ASCII literals lower-cased (case-sensitive). In an
    ASCII text a case-insensitive match of a literal is exactly a match of the lower-cased literal in the lower-cased
    text, and a literal holding a character outside ASCII matches no ASCII text, unless that character matches an
    ASCII letter case-insensitively ("ſ", "K": then None, the case-insensitive alternation is searched)."""
    import string

    rx = _built(reader)
    got: "re.Pattern[str] | bool | None"
    if rx is None:
        got = True
    else:
        lits = _LITS.get(reader) or []
        odd = {ch for lit in lits for ch in lit if not ch.isascii()}
        if any(re.fullmatch(re.escape(ch), a, re.I) for ch in odd for a in string.ascii_letters):
            got = None
        else:
            asc = sorted(_minimal({lit.lower() for lit in lits if lit.isascii()}))
            got = re.compile(_trie(asc)) if asc else False
    with _LOCK:
        _FAST[reader] = got  # type: ignore[assignment]
    return got


def trigger_pattern(reader: str) -> "re.Pattern[str] | None":
    """The compiled alternation of ``reader``'s required literals (built on first use), or None when the reader
    always runs (no gates declared, or a gate with no required literal)."""
    return _built(reader)


def _built(reader: str) -> "re.Pattern[str] | None":
    try:
        return _BUILT[reader]  # type: ignore[return-value]
    except KeyError:
        pass
    with _LOCK:
        if reader not in _BUILT:
            gates = _GATES.get(reader)
            lits = _cached_literals(list(gates())) if gates is not None else None
            _BUILT[reader], _LITS[reader] = _compiled(lits), lits
        return _BUILT[reader]  # type: ignore[return-value]


def _build(gates: Iterable["re.Pattern[str] | str"]) -> "re.Pattern[str] | None":
    return _compiled(_cached_literals(list(gates)))


def _compiled(lits: list[str] | None) -> "re.Pattern[str] | None":
    if not lits:
        return None
    try:
        return re.compile(_trie(lits), re.I)
    except (re.error, RecursionError):  # pragma: no cover (a trie too deep to compile: no prefilter)
        return None


def _literals(gates: list["re.Pattern[str] | str"]) -> list[str] | None:
    """The sorted literals of one reader's alternation (one of them occurs in any text a gate matches), or None:
    the reader always runs."""
    lits: set[str] = set()
    for g in gates:
        need = required_literals(g)
        if need is None:
            return None
        lits |= need
        if len(lits) > _MAX_LITERALS:
            return None
    return sorted(_minimal(lits)) or None


# -- the derived literals, kept on disk --------------------------------------------------------------------------
# Deriving a reader's literals parses every gate pattern (~0.5 CPU-s for all readers: most of a first ``add``'s cost
# beyond loading dictionaries, paid again by every CLI call). They depend only on the gates' sources and flags, the
# ``common`` words and this module's code, so they are kept in the cache folder
# (:func:`anchormem.private_files.cache_dir`) under a hash of exactly those: a changed word list or pattern is a new
# key (derived again), an unreadable or missing file is derived again, nothing is ever read from a stale one.
_CACHE_FORMAT = 1


def _fingerprint(gates: list["re.Pattern[str] | str"]) -> str | None:
    import hashlib
    import sys
    from pathlib import Path

    try:
        code = Path(__file__).read_bytes()
    except OSError:
        return None
    h = hashlib.sha256(code)
    h.update(repr((_CACHE_FORMAT, sys.version_info[:2], _MAX_LITERALS, _MAX_PRODUCT, sorted(_common()))).encode())
    parts = sorted(repr((g.pattern, int(g.flags)) if isinstance(g, re.Pattern) else (g, 0)) for g in gates)
    for part in parts:  # (the literals do not depend on the gates' order)
        h.update(part.encode("utf-8", "surrogatepass") + b"\n")
    return h.hexdigest()[:32]


def _cached_literals(gates: list["re.Pattern[str] | str"]) -> list[str] | None:
    """:func:`_literals` of ``gates``, read from the cache folder when derived before, else derived and written
    there (best effort: no folder, a read-only one or a bad file only means deriving them)."""
    import json

    from ..private_files import cache_dir, write_private

    folder = cache_dir()
    key = _fingerprint(gates) if folder is not None else None
    path = folder / f"triggers-{key}.json" if folder is not None and key is not None else None
    if path is not None:
        try:
            got = json.loads(path.read_text(encoding="utf-8"))
            if got.get("key") == key and (got["literals"] is None or all(isinstance(x, str) for x in got["literals"])):
                return got["literals"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
    lits = _literals(gates)
    if path is not None:
        try:
            write_private(path, json.dumps({"key": key, "literals": lits}))
        except OSError:
            pass
    return lits


def _minimal(lits: set[str]) -> set[str]:
    """Drop a literal containing another one (the shorter already matches wherever the longer does)."""
    out: list[str] = []
    for s in sorted(lits, key=len):
        if not any(o in s for o in out):
            out.append(s)
    return set(out)


def _trie(words: list[str]) -> str:
    """One regex matching any of ``words`` (no word a prefix's duplicate), branching one character at a time."""
    tree: dict[str, dict] = {}
    for w in words:
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        if "" in node:
            return ""  # a shorter literal ends here: it is enough (longer ones through it were dropped)
        parts = [(_MARKS.get(ch) or re.escape(ch)) + emit(child) for ch, child in sorted(node.items())]
        return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"

    return emit(tree)


# -- required literals ---------------------------------------------------------------------------------------------
# A literal is text with three marks in it, each matched as the gate's own pattern matches it: _WS a run of
# whitespace (``\s+``), _WS1 one whitespace character (``\s``), _B a word boundary (``\b``, zero-width).
_WS, _WS1, _B = "\x00", "\x01", "\x02"
_MARKS = {_WS: r"\s+", _WS1: r"\s", _B: r"\b"}
_MAX_PRODUCT = 512  # prefixes joined with a branch's alternatives ("I" + "'m" / " am"): at most this many texts


def _emit(lit: str) -> str:
    return "".join(_MARKS.get(ch) or re.escape(ch) for ch in lit)


def required_literals(pattern: "re.Pattern[str] | str") -> "frozenset[str] | None":
    r"""Texts at least one of which occurs (case-insensitively) in any match of ``pattern``, or None when no such set
    can be derived. A text may hold the marks of :data:`_MARKS` (whitespace runs and word boundaries of the pattern,
    so "my name is" is one text). For a sequence the most selective element is used (:func:`_score`); an alternation
    needs one of each branch's; a repeat that may occur zero times, a class of more than a few characters, a
    negative lookaround or a backreference needs nothing (a positive lookaround needs its own).
    ``required_literals(r"\bI\s+(?:live|reside)\s+in\s+(?P<v>.+)")``
    -> ``{"live\x00in\x00", "reside\x00in\x00"}``. Never raises on a valid pattern (an unknown construct needs
    nothing)."""
    if isinstance(pattern, re.Pattern):
        src, flags = pattern.pattern, pattern.flags
    else:
        src, flags = pattern, 0
    if not isinstance(src, str) or _p is None:
        return None
    try:
        return _seq(list(_p.parse(src, flags)))
    except Exception:  # noqa: BLE001 (a pattern or parser this reading does not know: no prefilter for it)
        return None


def _weight(lit: str) -> float:
    """How selective one literal is: a letter counts 1, a CJK character 2, a boundary or whitespace mark 0.25; a
    word too common in chat to key on (``common`` of data/lang/*/triggers.json: "I", "my", 我) 0.5 in all."""
    words = " ".join(lit.translate(_NO_MARKS).split()).casefold()
    if words in _common():
        return 0.5
    return sum(0.25 if ch in _MARKS else 2 if ord(ch) >= 0x2E80 else 1 for ch in lit)


_NO_MARKS = {ord(_WS): " ", ord(_WS1): " ", ord(_B): ""}


@lru_cache(maxsize=1)
def _common() -> frozenset[str]:
    from .. import langdata

    return frozenset(w.casefold() for w in langdata.words("triggers", "common"))


def _score(need: "frozenset[str]") -> tuple[float, int]:
    return min(map(_weight, need)), -len(need)


def _better(a: "frozenset[str] | None", b: "frozenset[str] | None") -> "frozenset[str] | None":
    """The more selective of two requirements of one sequence (either is necessary)."""
    if a is None or b is not None and _score(b) > _score(a):
        return b
    return a


def _unit(op, av) -> "frozenset[str] | None":
    r"""The texts one item matches when it is a fixed, short choice: a literal, a small class of literals ("[Mm]",
    "['’]"), ``\s+`` / ``\s``, ``\b``; else None."""
    if op is _c.LITERAL:
        return frozenset([chr(av)])
    if op is _c.AT:
        return frozenset([_B]) if av is _c.AT_BOUNDARY else None
    if op is _c.IN:
        if len(av) == 1 and av[0] == (_c.CATEGORY, _c.CATEGORY_SPACE):
            return frozenset([_WS1])
        if 0 < len(av) <= 4 and all(o is _c.LITERAL for o, _ in av):
            return frozenset(chr(v) for _, v in av)
        return None
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[0] >= 1 and av[1] == _p.MAXREPEAT and len(av[2]) == 1 and \
            tuple(av[2])[0] == (_c.IN, [(_c.CATEGORY, _c.CATEGORY_SPACE)]):
        return frozenset([_WS])
    return None


def _product(a: "frozenset[str]", b: "frozenset[str]") -> "frozenset[str] | None":
    if len(a) * len(b) > _MAX_PRODUCT:
        return None
    return frozenset(x + y for x in a for y in b)


def _starts(items: list) -> "frozenset[str] | None":
    """The texts every match of the sequence ``items`` begins with (each with some text), or None."""
    got = _fixed(items)
    return got[0] if got is not None else None


def _fixed(items: list) -> "tuple[frozenset[str], bool] | None":
    """(the texts every match of ``items`` begins with, whether they are the whole match), or None."""
    out: "frozenset[str]" = frozenset([""])
    whole = True
    for op, av in items:
        nxt, done = _unit(op, av), True
        if nxt is None:
            sub = None
            if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[0] == 0 and av[1] == 1:  # "(?:们家?)?": with or without
                opt = _fixed(list(av[2]))
                if opt is not None and opt[1]:
                    sub = (opt[0] | {""}, True)
            elif op is _c.SUBPATTERN:
                sub = _fixed(list(av[-1]))
            elif op is _c.BRANCH:
                alts = [_fixed(list(alt)) for alt in av[1]]
                if all(a is not None for a in alts):
                    sub = (frozenset().union(*(a[0] for a in alts)), all(a[1] for a in alts))  # type: ignore[index]
            if sub is not None:
                nxt, done = sub
        joined = _product(out, nxt) if nxt is not None else None
        if joined is None:
            whole = False
            break
        out = joined
        if not done:  # a group that is not all fixed text: the starts end inside it
            whole = False
            break
    if not all(x.strip(_B) for x in out):
        return None  # (a start of nothing but a boundary is no text)
    return out, whole


def _seq(items: list) -> "frozenset[str] | None":
    best: "frozenset[str] | None" = None
    for i, (op, av) in enumerate(items):
        if i == 0 or _unit(*items[i - 1]) is None:  # the fixed text from here on (not from inside a fixed run:
            best = _better(best, _starts(items[i:]))  # a tail of "my" is no rarer than "my")
        if _unit(op, av) is None:
            best = _better(best, _item(op, av))
    return best


def _item(op, av) -> "frozenset[str] | None":
    if op is _c.SUBPATTERN:
        return _seq(list(av[-1]))
    if op is _c.BRANCH:
        out: set[str] = set()
        for alt in av[1]:
            need = _seq(list(alt))
            if need is None:
                return None
            out |= need
        return frozenset(out)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        lo, _hi, sub = av
        return _seq(list(sub)) if lo >= 1 else None
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _seq(list(av))
    if op is _c.ASSERT:  # a positive lookahead or lookbehind: its text is in the text too ("(?=\w+ing\b.*\bagain\b)")
        return _seq(list(av[1]))
    return None  # IN, ANY, NOT_LITERAL, CATEGORY, ASSERT_NOT, GROUPREF, GROUPREF_EXISTS, ...
