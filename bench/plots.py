"""PNG plots of one ``bench/run.py`` result (matplotlib, ``pip install -e '.[bench]'``).

    python bench/plots.py bench/results/bench_quick.json      # rewrites the PNGs next to it

- ``scaling_<plan>.png``: search p50 latency (no query embedding) vs memories in one scope, log-log, one line
  per system and search path;
- ``locomo_recall_<plan>.png``: LoCoMo evidence recall@5/10/25/50 per retriever, with the LoCoMo paper's
  DRAGON row;
- ``throughput_<plan>.png``: add messages/s (public API, vectors precomputed) at each scale, log y.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["make_plots"]

_STYLE = {  # (label, colour, line style)
    ("anchormem-sqlite", "hybrid_rrf"): ("anchormem SQLite: Memory.search (hybrid)", "#1f4e9c", "-"),
    ("anchormem-sqlite", "store_dense"): ("anchormem SQLite: vector layer", "#1f4e9c", ":"),
    ("anchormem-pg", "hybrid_rrf"): ("anchormem PostgreSQL: Memory.search (hybrid)", "#6a3d9a", "-"),
    ("anchormem-pg", "store_dense"): ("anchormem PostgreSQL: vector layer", "#6a3d9a", ":"),
    ("mem0", "vector"): ("mem0 (local, Qdrant embedded)", "#e31a1c", "-"),
    ("chroma", "vector"): ("Chroma (where user_id)", "#ff7f00", "-"),
    ("chroma", "nofilter"): ("Chroma (no filter)", "#ff7f00", ":"),
    ("pgvector", "vector"): ("pgvector table (HNSW)", "#33a02c", "-"),
}


def make_plots(res: dict, out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plan = res.get("plan", "run")
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    if "scale" in res:
        fig, ax = plt.subplots(figsize=(8.5, 5.5))
        for (system, path), (label, colour, ls) in _STYLE.items():
            rows = res["scale"]["systems"].get(system, {}).get("single", [])
            pts = [(r["n"], r["search"][path]["p50"]) for r in rows if path in r.get("search", {})]
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, ls, marker="o", color=colour, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.axhline(2.0, color="grey", lw=0.8, ls="--")
        ax.text(ax.get_xlim()[0] * 1.1, 2.2, "target at 100k: 2 ms", color="grey", fontsize=8)
        ax.set_xlabel("memories in one user's scope")
        ax.set_ylabel("search p50, ms (top-10, query embedding excluded)")
        ax.set_title(f"Search latency vs scale ({plan}; same vectors for every system)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7.5, loc="upper left", framealpha=0.85)
        fig.tight_layout()
        p = out_dir / f"scaling_{plan}.png"
        fig.savefig(p, dpi=120)
        plt.close(fig)
        written.append(p)

        fig, ax = plt.subplots(figsize=(8.5, 5))
        for system, colour in (("anchormem-sqlite", "#1f4e9c"), ("anchormem-pg", "#6a3d9a"), ("mem0", "#e31a1c"),
                               ("chroma", "#ff7f00"), ("pgvector", "#33a02c")):
            rows = res["scale"]["systems"].get(system, {}).get("single", [])
            pts = [(r["n"], r["add"]["messages_per_s"]) for r in rows]
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, "-o", color=colour, label=system)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.axhline(300, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("memories already in the scope")
        ax.set_ylabel("add, messages/s (public API, 100 per call)")
        ax.set_title(f"Add throughput, vectors precomputed ({plan})")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        p = out_dir / f"throughput_{plan}.png"
        fig.savefig(p, dpi=120)
        plt.close(fig)
        written.append(p)

    if "recall" in res:
        rc = res["recall"]
        ks = [5, 10, 25, 50]
        rows = [("DRAGON (paper)", [100 * rc["reference"]["DRAGON (LoCoMo paper, Table 3)"][f"recall@{k}"]
                                    for k in ks])]
        names = {"anchormem:bm25": "BM25 alone", "anchormem:dense": "dense alone",
                 "anchormem:hybrid_rrf": "anchormem (full)", "mem0": "mem0", "chroma": "Chroma",
                 "pgvector": "pgvector"}
        for s, r in rc["systems"].items():
            if "raw" in r:
                rows.append((names.get(s, s), [100 * r["raw"]["overall"][f"recall@{k}"] for k in ks]))
        fig, ax = plt.subplots(figsize=(9, 5))
        w = 0.8 / len(rows)
        colours = {"DRAGON (paper)": "#999999", "BM25 alone": "#a6cee3", "dense alone": "#b2df8a",
                   "anchormem (full)": "#1f4e9c", "mem0": "#e31a1c", "Chroma": "#ff7f00", "pgvector": "#33a02c"}
        for i, (label, vals) in enumerate(rows):
            xs = [j + (i - (len(rows) - 1) / 2) * w for j in range(len(ks))]
            ax.bar(xs, vals, w, label=label, color=colours.get(label, "#6a3d9a"))
        ax.set_xticks(range(len(ks)))
        ax.set_xticklabels([f"R@{k}" for k in ks])
        ax.set_ylabel("evidence recall, %")
        ax.set_ylim(0, 100)
        ax.set_title(f"LoCoMo evidence recall: {rc['conversations']} conversation(s), {rc['questions']} questions, "
                     f"one embedder ({rc['embedder']}) for all\nDRAGON: the LoCoMo paper's number on all 10 "
                     "conversations", fontsize=10)
        ax.legend(fontsize=8, ncol=2)
        ax.grid(True, axis="y", alpha=0.3)
        fig.tight_layout()
        p = out_dir / f"locomo_recall_{plan}.png"
        fig.savefig(p, dpi=120)
        plt.close(fig)
        written.append(p)
    return written


if __name__ == "__main__":
    src = Path(sys.argv[1])
    for p in make_plots(json.loads(src.read_text(encoding="utf-8")), src.parent):
        print(f"wrote {p}")
