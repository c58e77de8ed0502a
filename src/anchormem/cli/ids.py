"""Shortened ids on the command line: wherever a memory or review id is taken, a unique prefix of at least
:data:`MIN_PREFIX` characters works too (``anchormem get 3193c6aa``). Tables print each id as its shortest
prefix of at least :data:`SHOWN_PREFIX` characters that no other id of the tenant shares (:func:`short_ids`), so
what is shown can be copied back; ``--json`` prints full ids. A prefix that
matches several ids is an error that lists them (exit code 2); one that matches none is passed on as given, so
the command's own "not found" error names it."""

from __future__ import annotations

import bisect
import re
from typing import Any, Literal

from ..errors import InvalidInputError
from ..stores.id_prefix import all_ids, ids_with_prefix

__all__ = ["MIN_PREFIX", "SHOWN_PREFIX", "resolve_id", "resolve_ids", "short_ids"]

MIN_PREFIX = 6
SHOWN_PREFIX = 8
_HEX = re.compile(r"[0-9a-f]+")  # memory and review ids are hex
_SHOWN = 10  # matches listed in the ambiguity error


def resolve_id(mem: Any, value: str, kind: Literal["memory", "review"] = "memory") -> str:
    """The full id that ``value`` (a full id or a unique prefix of ≥ :data:`MIN_PREFIX` characters) names in
    ``mem``'s tenant. Raises InvalidInputError for an ambiguous prefix (listing the matches) or a prefix shorter
    than :data:`MIN_PREFIX` that is not itself an id."""
    matches = ids_with_prefix(mem.store, mem.tenant, kind, value, limit=_SHOWN + 1)
    if value in matches or (not matches and (len(value) >= MIN_PREFIX or not _HEX.fullmatch(value))):
        return value  # (no match: the command's own "no memory" error names it; a short hex string is a prefix)
    if len(value) < MIN_PREFIX:
        raise InvalidInputError(f"{kind} id {value!r} is too short to stand for an id: give at least {MIN_PREFIX} "
                                "characters")
    if len(matches) == 1:
        return matches[0]
    more = " ..." if len(matches) > _SHOWN else ""
    raise InvalidInputError(f"{kind} id prefix {value!r} is ambiguous: it matches "
                            f"{', '.join(matches[:_SHOWN])}{more}; give more characters")


def resolve_ids(mem: Any, values: list[str] | None, kind: Literal["memory", "review"] = "memory"
                ) -> list[str] | None:
    """:func:`resolve_id` for each of ``values`` (None stays None)."""
    return None if values is None else [resolve_id(mem, v, kind) for v in values]


def short_ids(mem: Any, ids: list[str], kind: Literal["memory", "review"] = "memory") -> dict[str, str]:
    """``{id: shown}`` for a table: each id's shortest prefix of at least :data:`SHOWN_PREFIX` characters that is
    unique among the tenant's ids of ``kind`` (so :func:`resolve_id` takes it back to that id); the whole id when
    no prefix is unique (an id that is a prefix of another). One read of the tenant's ids."""
    if not ids:
        return {}
    known = all_ids(mem.store, mem.tenant, kind)
    out: dict[str, str] = {}
    for i in ids:
        n = SHOWN_PREFIX
        pos = bisect.bisect_left(known, i)
        for j in (pos - 1, pos + 1) if pos < len(known) and known[pos] == i else (pos - 1, pos):
            if 0 <= j < len(known):
                other = known[j]
                common = 0
                for a, b in zip(i, other):
                    if a != b:
                        break
                    common += 1
                n = max(n, common + 1)
        out[i] = i if n >= len(i) else i[:n]
    return out
