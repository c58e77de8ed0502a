"""Two stores loaded with the same turns by two source trees hold the same memories: the write path's output check
for changes that must only change its cost (issue #24).

    python bench/write_identity.py OLD.db NEW.db [--out bench/results/scale_write_identity.json]

Compares, in insertion order, every memory (kind, text, role, speaker, source, times, confidence, labels, slot, the
fact without ids, tier, whether it is closed or superseded, its embedding and context vector) and every claim (slot,
value, polarity, span, times, whether closed); ids are random per run and are left out. Exit status 1 when they
differ (the first differences are printed).

``--by-content``: compare the two stores' rows as sorted lists instead of in insertion order (a deferred enrichment,
``add_many(enrich="later")``, writes a turn's fact memories after the turns stored before them: same rows, other
order).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

_MEM = ("kind", "text", "content_hash", "role", "speaker", "source", "created_at", "event_time", "event_time_end",
        "valid_from", "valid_to", "confidence", "labels", "slot", "fact", "tier", "embedding", "context_vec")
_CLAIM = ("slot", "value", "polarity", "said_at", "valid_from", "valid_to", "span")


def _no_ids(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _no_ids(x) for k, x in v.items() if not k.endswith("id") and not k.endswith("ids")
                and k != "superseded_by"}
    if isinstance(v, list):
        return [_no_ids(x) for x in v]
    return v


def _row(r: sqlite3.Row, cols: tuple[str, ...]) -> list[Any]:
    out: list[Any] = []
    for c in cols:
        v = r[c]
        if isinstance(v, bytes):
            v = hashlib.sha256(v).hexdigest()[:16]
        elif isinstance(v, str) and v[:1] in "[{":
            try:
                v = _no_ids(json.loads(v))
            except ValueError:
                pass
        out.append(v)
    return out


def rows(db: str) -> dict[str, list[list[Any]]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    mem = [_row(r, _MEM) + [r["superseded_by"] is not None]
           for r in con.execute("SELECT * FROM memories ORDER BY rowid")]
    claims = [_row(r, _CLAIM) + [r["superseded_by"] is not None]
              for r in con.execute("SELECT * FROM claims ORDER BY rowid")]
    con.close()
    return {"memories": mem, "claims": claims}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--out")
    ap.add_argument("--by-content", action="store_true", help="compare sorted rows, not insertion order")
    args = ap.parse_args()
    a, b = rows(args.old), rows(args.new)
    if args.by_content:
        a, b = ({t: sorted(v, key=repr) for t, v in x.items()} for x in (a, b))
    report: dict[str, Any] = {"old": args.old, "new": args.new, "by_content": args.by_content}
    same = True
    for table in ("memories", "claims"):
        diff = [i for i, (x, y) in enumerate(zip(a[table], b[table])) if x != y]
        report[table] = {"old": len(a[table]), "new": len(b[table]), "differ": len(diff)}
        same = same and not diff and len(a[table]) == len(b[table])
        for i in diff[:3]:
            print(table, i, a[table][i], b[table][i], file=sys.stderr)
    report["identical"] = same
    print(json.dumps(report, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
