"""Turn the results of one ``bench/run.py`` run into ratios, target checks and Markdown tables.

Pure functions over the JSON that run.py writes (``bench/results/bench_<plan>.json``); ``python bench/report.py
bench/results/bench_quick.json`` prints the Markdown report again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["ratios", "targets", "markdown"]

ANCHORMEM = ("anchormem-sqlite", "anchormem-pg")
PEERS = ("mem0", "chroma", "pgvector")
# the search each system's row is judged by: anchormem's default full pipeline, and its vector layer alone
FULL, VECTOR = "hybrid_rrf", "store_dense"


def _rows(res: dict, system: str) -> dict[int, dict]:
    return {r["n"]: r for r in (res.get("scale") or {}).get("systems", {}).get(system, {}).get("single", [])}


def _p50(row: dict, which: str) -> float | None:
    v = row.get("search", {}).get(which)
    return v["p50"] if v else None


def _peer_search(row: dict) -> float | None:
    return _p50(row, "vector")


def _peer_fastest(row: dict) -> float | None:
    """The peer's fastest measured search path (Chroma: without the user filter when one user owns everything)."""
    vals = [v["p50"] for v in row.get("search", {}).values() if v.get("p50") is not None]
    return min(vals) if vals else None


def ratios(res: dict) -> list[dict[str, Any]]:
    """One entry per (anchormem backend, peer, n) measured in this run: speed-ups as peer/anchormem for latency
    (>1: anchormem faster) and anchormem/peer for throughput (>1: anchormem faster); memory and disk as
    anchormem/peer (<1: anchormem smaller). Search: anchormem's ``Memory.search`` against the peer's per-user
    search API ("full pipeline"), and anchormem's ``Store.dense_search`` against the peer's fastest measured
    path ("vector layer")."""
    out = []
    if "scale" not in res:
        return out
    for a in ANCHORMEM:
        ar = _rows(res, a)
        for p in PEERS:
            pr = _rows(res, p)
            for n in sorted(set(ar) & set(pr)):
                x, y = ar[n], pr[n]
                ps = _peer_search(y)
                e = {"anchormem": a, "peer": p, "n": n,
                     "search_speedup_full_pipeline": ps / _p50(x, FULL) if ps and _p50(x, FULL) else None,
                     "search_speedup_vector_layer": (_peer_fastest(y) / _p50(x, VECTOR)
                                                     if _peer_fastest(y) and _p50(x, VECTOR) else None),
                     "add_speedup": x["add"]["messages_per_s"] / y["add"]["messages_per_s"],
                     "bulk_load_speedup": x["bulk"]["rows_per_s"] / y["bulk"]["rows_per_s"],
                     "rss_ratio": x["stats"]["rss_mb"] / y["stats"]["rss_mb"],
                     "disk_ratio": x["stats"]["disk_bytes"] / y["stats"]["disk_bytes"]}
                ae, pe = x.get("search_embed", {}).get(FULL), y.get("search_embed", {}).get("vector")
                e["search_with_embedding_speedup"] = pe["p50"] / ae["p50"] if ae and pe and ae["p50"] else None
                out.append(e)
    return out


def _round_targets(res: dict) -> list[dict[str, Any]]:
    """Issue #24's targets from the interleaved rounds (and bench/results/add_rate.json for the write rate)."""
    out: list[dict[str, Any]] = []

    def add(name: str, value: Any, ok: bool | None, note: str = "") -> None:
        out.append({"target": name, "measured": value, "status": "not measured" if ok is None else
                    ("met" if ok else "NOT met"), "note": note})

    steps = {st["n"]: st["systems"] for st in res["rounds"].get("steps", [])}
    mine = {n: s.get("anchormem-sqlite", {}).get("search", {}) for n, s in steps.items()}
    for n, lim, dlim in ((100_000, 5.0, 2.0), (1_000_000, 15.0, 5.0)):
        d, e = mine.get(n, {}).get("default"), mine.get(n, {}).get("dense")
        add(f"default search p50 ≤ {lim:g} ms at {n:,} (dense ≤ {dlim:g} ms)",
            None if not d else f"{d['p50']:.2f} ms (dense {e['p50']:.2f} ms)" if e else f"{d['p50']:.2f} ms",
            None if not d else d["p50"] <= lim and (e is None or e["p50"] <= dlim),
            "" if d else f"largest step measured: {max(mine) if mine else 0:,}")
    p = Path(__file__).resolve().parent / "results" / "add_rate.json"
    if p.exists():
        rows = json.loads(p.read_text(encoding="utf-8"))["results"]

        def med(r: dict) -> float:  # the median of the repeated runs (best-of-n flatters a noisy machine)
            runs = sorted(r.get("runs_msg_per_cpu_s") or [r["msg_per_cpu_s"]])
            return runs[len(runs) // 2]

        b = min(med(r) for r in rows if r["mode"] == "add_many_vectors")
        o = min(med(r) for r in rows if r["mode"] == "add_each_vectors")
        add("add without embedding ≥ 1,000 msg/CPU-s batched, ≥ 300 one call per message (bench/add_rate.py, "
            "worst corpus, median of its runs)", f"{b:.0f} batched, {o:.0f} one per call", b >= 1000 and o >= 300,
            "from bench/results/add_rate.json (not re-run here)")
    for peer, factor in (("chroma", 1.0), ("mem0", 3.0)):
        for n in sorted(steps):
            a = mine[n].get("default")
            q = next(iter(steps[n].get(peer, {}).get("search", {}).values()), None)
            if a and q:
                r = q["cpu_ms_per_query"] / a["cpu_ms_per_query"]
                add(f"default search ≥ {factor:g}× {peer} (CPU per query) at {n:,}", f"{r:.2f}×", r >= factor,
                    f"wall p50 {q['p50'] / a['p50']:.2f}×")
    return out


def targets(res: dict) -> list[dict[str, Any]]:
    """The issue's targets, each with the measured value and met / not met / not measured."""
    if res.get("rounds"):
        return _round_targets(res)
    out: list[dict[str, Any]] = []
    rows = _rows(res, "anchormem-sqlite") if "scale" in res else {}

    def add(name: str, value: Any, ok: bool | None, note: str = "") -> None:
        out.append({"target": name, "measured": value, "status": "not measured" if ok is None else
                    ("met" if ok else "NOT met"), "note": note})

    for n, limit in ((100_000, 2.0), (1_000_000, 10.0)):
        r = rows.get(n)
        full = _p50(r, FULL) if r else None
        vec = _p50(r, VECTOR) if r else None
        add(f"search p50 ≤ {limit:g} ms at {n:,} memories, one scope, no query embedding (Memory.search)",
            None if full is None else f"{full:.2f} ms", None if full is None else full <= limit,
            "" if vec is None else f"vector layer alone (Store.dense_search): {vec:.2f} ms "
                                   f"({'within' if vec <= limit else 'over'} the target)")
    big = max(rows) if rows else None
    if big:
        a = rows[big]["add"]["messages_per_s"]
        real = res.get("recall", {}).get("real_add", {}).get("systems", {}).get("anchormem-sqlite", {})
        add(f"offline add ≥ 300 messages/s batched (Memory.add, {rows[big]['add']['batch']} per call, at {big:,})",
            f"{a:.0f} msg/s", a >= 300, "vectors precomputed (embedding excluded); with the real model: "
            + (f"{real['messages_per_s']:.0f} msg/s" if "messages_per_s" in real else "not measured"))
    else:
        add("offline add ≥ 300 messages/s batched", None, None)
    rs = [r for r in ratios(res) if r["anchormem"] == "anchormem-sqlite" and r["n"] == 100_000]
    for p in PEERS:
        r = next((x for x in rs if x["peer"] == p), None)
        if r is None:
            add(f"≥ 5× {p} on add and search at 100k", None, None, f"{p} not measured at 100k in this run")
            continue
        s, v, a = r["search_speedup_full_pipeline"], r["search_speedup_vector_layer"], r["add_speedup"]
        add(f"≥ 5× {p} on add and search at 100k", f"search {s:.2f}× (vector layer {v:.1f}×), add {a:.2f}×",
            bool(s and a and s >= 5 and a >= 5))
    return out


def _f(v: Any, fmt: str = "{:.2f}") -> str:
    return "–" if v is None else fmt.format(v)


def _scale_tables(res: dict) -> list[str]:
    sc = res["scale"]
    lines = ["### Search latency, one user's scope (ms, top-10, query vector precomputed)", "",
             "| system | search path | n | p50 | p95 | hit@10 | p50 with query embedding |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for s, r in sc["systems"].items():
        for row in r.get("single", []):
            emb = next(iter(row.get("search_embed", {}).values()), None)
            for path, v in row["search"].items():
                label = {"hybrid_rrf": "Memory.search (hybrid_rrf)", "dense": "Memory.search(recipe='dense')",
                         "store_dense": "Store.dense_search (vector layer)", "vector": "its search API",
                         "nofilter": "query without the user filter"}.get(path, path)
                e = emb["p50"] if emb and path in ("hybrid_rrf", "vector") else None
                lines.append(f"| {s} | {label} | {row['n']:,} | {_f(v['p50'])} | {_f(v['p95'])} | "
                             f"{_f(v['hit'], '{:.2f}')} | {_f(e, '{:.1f}')} |")
    lines += ["", "### Writes, memory and disk (one scope)", "",
              "| system | n | bulk load rows/s | add msg/s (public API, batch 100) | RSS MB | disk bytes/memory |",
              "|---|---:|---:|---:|---:|---:|"]
    for s, r in sc["systems"].items():
        for row in r.get("single", []):
            lines.append(f"| {s} | {row['n']:,} | {row['bulk']['rows_per_s']:.0f} | {row['add']['messages_per_s']:.0f} "
                         f"| {row['stats']['rss_mb']:.0f} | {row['stats']['disk_bytes_per_memory']:.0f} |")
    lines += ["", "### Cold start (largest store; new process → first search result, query embedded)", "",
              "| system | n | to first result s | import s | open s | first search ms | next searches p50 ms | "
              "restart without writes: to first result s |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s, r in sc["systems"].items():
        c = r.get("cold_start")
        if not c or "error" in c:
            lines.append(f"| {s} | – | {c.get('error', 'not measured') if c else 'not measured'} | | | | | |")
            continue
        rw = c.get("restart_without_writes", {})
        lines.append(f"| {s} | {c['n']:,} | {c['seconds_to_first_result']:.2f} | {c['import_seconds']:.2f} | "
                     f"{c['open_seconds']:.2f} | {c['first_search_ms']:.0f} | {_f(c['next_search_ms'], '{:.0f}')} | "
                     f"{_f(rw.get('seconds_to_first_result'))} |")
    multi = [(s, m) for s, r in sc["systems"].items() for m in r.get("multi", [])]
    if multi:
        lines += ["", "### Many users (memories spread round-robin over users)", "",
                  "| system | n | users | search p50 ms | p95 | hit@10 | bulk rows/s | add msg/s (1 per call) | RSS MB |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for s, m in multi:
            if "error" in m:
                lines.append(f"| {s} | {m['n']:,} | {m['users']:,} | error: {m['error'][:80]} | | | | | |")
                continue
            for path, v in m["search"].items():
                lines.append(f"| {s} ({path}) | {m['n']:,} | {m['users']:,} | {_f(v['p50'])} | {_f(v['p95'])} | "
                             f"{_f(v['hit'])} | {m['bulk']['rows_per_s']:.0f} | {m['add']['messages_per_s']:.0f} | "
                             f"{m['stats']['rss_mb']:.0f} |")
    skipped = [(s, x) for s, r in sc["systems"].items() for x in r.get("skipped", [])]
    errors = [(s, r["error"]) for s, r in sc["systems"].items() if r.get("error")]
    if skipped or errors:
        lines += ["", "Not measured in this run:", ""]
        lines += [f"- {s} at {x['n']:,}{' over ' + format(x['users'], ',') + ' users' if 'users' in x else ''}: "
                  f"{x['reason']}" for s, x in skipped]
        lines += [f"- {s}: error {e}" for s, e in errors]
    return lines


def _recall_tables(res: dict) -> list[str]:
    rc = res["recall"]
    ks = [5, 10, 25, 50]
    lines = [f"### LoCoMo evidence recall ({rc['conversations']} conversations, {rc['turns']} turns, "
             f"{rc['questions']} questions, raw evidence, embedder {rc['embedder']} for every system)", "",
             "| retriever | " + " | ".join(f"R@{k}" for k in ks) + " | search p50 ms |",
             "|---|" + "---:|" * (len(ks) + 1)]
    lines.append("| LoCoMo paper, DRAGON (all 10 conversations; reference) | "
                 + " | ".join(f"{100 * rc['reference']['DRAGON (LoCoMo paper, Table 3)'][f'recall@{k}']:.1f}"
                              for k in ks) + " | – |")
    names = {"anchormem:bm25": "BM25 alone (anchormem, recipe bm25)", "anchormem:dense": "dense alone (anchormem, "
             "recipe dense)", "anchormem:hybrid_rrf": "**anchormem full pipeline (hybrid_rrf)**",
             "mem0": "mem0 (local, infer=False)", "chroma": "Chroma", "pgvector": "pgvector table (HNSW)"}
    for s, r in rc["systems"].items():
        if "error" in r:
            lines.append(f"| {names.get(s, s)} | error: {r['error'][:100]} |" + " |" * len(ks))
            continue
        o = r["raw"]["overall"]
        mark = " †" if r.get("note") else ""
        lines.append(f"| {names.get(s, s)}{mark} | " + " | ".join(f"{100 * o[f'recall@{k}']:.1f}" for k in ks)
                     + f" | {_f(r['search_ms']['p50'], '{:.1f}')} |")
    lines += [f"\n† {r['note']}" for r in rc["systems"].values() if r.get("note")]
    cats = list(next(r for r in rc["systems"].values() if "raw" in r)["raw"]["by_category"])
    lines += ["", "Per category, R@10 (raw):", "", "| retriever | " + " | ".join(cats) + " |",
              "|---|" + "---:|" * len(cats)]
    for s, r in rc["systems"].items():
        if "raw" in r:
            bc = r["raw"]["by_category"]
            lines.append(f"| {names.get(s, s)} | " + " | ".join(
                f"{100 * bc[c]['recall@10']:.1f}" if c in bc else "–" for c in cats) + " |")
    ra = rc.get("real_add", {}).get("systems", {})
    if ra:
        lines += ["", f"### Add with the real embedding model ({rc['real_add']['messages']} LoCoMo turns, "
                      f"batches of {rc['real_add']['batch']}; multilingual-e5-small on 2 cores)", "",
                  "| system | messages/s |", "|---|---:|"]
        for s, r in ra.items():
            lines.append(f"| {s} | {_f(r.get('messages_per_s'), '{:.1f}')} |" if "error" not in r
                         else f"| {s} | error: {r['error'][:100]} |")
    return lines


def markdown(res: dict) -> str:
    m = res["machine"]
    lines = [f"## Results: `{res['command']}`", "",
             f"Run {res['started']} on {m['cpu']} ({m['cores']} cores), {m['ram_gb']:.0f} GB RAM, {m['os']}, "
             f"Python {m['python']}; load average at start {m['loadavg_start']}, at end {m.get('loadavg_end')}; "
             f"e5 query embedding alone (machine health check; ~8-12 ms when the machine is quiet): "
             f"{_f(m.get('e5_query_ms_start'), '{:.1f}')} ms at start, {_f(m.get('e5_query_ms_end'), '{:.1f}')} ms "
             f"at end; wall time {res['wall_seconds']:.0f} s.", ""]
    if res.get("versions"):
        lines += ["Versions: " + ", ".join(f"{k} {v}" for k, v in res["versions"].items()), ""]
    tg = targets(res)
    lines += ["### Targets", "", "| target | measured | status | note |", "|---|---|---|---|"]
    lines += [f"| {t['target']} | {t['measured'] or '–'} | {t['status']} | {t['note']} |" for t in tg]
    rt = ratios(res)
    if rt:
        lines += ["", "### Ratios measured in this run (>1 = anchormem faster; RSS/disk: <1 = anchormem smaller)", "",
                  "| anchormem | peer | n | search (Memory.search vs peer's per-user search) | search (vector layer vs "
                  "peer's fastest path) | search incl. query "
                  "embedding | add | bulk load | RSS | disk |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in rt:
            g = "{:.3g}"
            lines.append(f"| {r['anchormem']} | {r['peer']} | {r['n']:,} | {_f(r['search_speedup_full_pipeline'], g)}× "
                         f"| {_f(r['search_speedup_vector_layer'], g)}× | {_f(r['search_with_embedding_speedup'], g)}× "
                         f"| {_f(r['add_speedup'], g)}× | {_f(r['bulk_load_speedup'], g)}× | {_f(r['rss_ratio'], g)} | "
                         f"{_f(r['disk_ratio'], g)} |")
    if res.get("rounds"):
        from rounds import markdown_rounds

        lines += [""] + markdown_rounds(res["rounds"])
    for key in ("peers_skipped", "recall_skipped"):
        if res.get(key):
            lines += ["", f"Note: {res[key]}"]
    if "scale" in res:
        lines += [""] + _scale_tables(res)
    if "recall" in res:
        lines += [""] + _recall_tables(res)
    if res.get("locomo_full_file"):
        f = res["locomo_full_file"]
        lines += ["", f"### anchormem on all of LoCoMo (from `{f['path']}`, {f['status']})", ""]
        if f.get("table"):
            lines += f["table"]
    if res.get("other"):
        lines += ["", "### Other quality numbers (collected from their result files, not re-run)", ""]
        lines += res["other"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))))
