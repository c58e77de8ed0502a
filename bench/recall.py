"""LoCoMo evidence recall@k, side by side, on the same embedder and the same vectors: anchormem's BM25-only,
dense-only and hybrid (``hybrid_rrf``) recipes (its full pipeline, :func:`anchormem.eval.locomo.run_locomo`) against
mem0 (local, ``infer=False``), Chroma and a plain pgvector table. Also measures ``add`` throughput with the real
embedding model on real LoCoMo turns.

    python bench/recall.py --conversations 2       # normally called by bench/run.py

Every document and question is embedded once by multilingual-e5-small (cached in ``bench/.cache/``); anchormem
gets the vectors through a caching embedder, the peers as precomputed vectors. The peers index one document per
LoCoMo turn, ``"<speaker>: <turn text>"`` (the text anchormem embeds), and search with the question; recall@k is
computed with the same code as anchormem's (``anchormem.eval.locomo``): the share of a question's evidence
turns among the first k distinct turns retrieved, raw and with the audit's corrected evidence.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "peers"))

from client import PgServer, Worker, WorkerError  # noqa: E402

from anchormem.eval.datasets import dataset_path  # noqa: E402
from anchormem.eval.locomo import (_recall_table, _recalls, _sessions, _turn_text, load_locomo,  # noqa: E402
                                   normalize_evidence, run_locomo)

__all__ = ["CachingEmbedder", "run_recall", "DRAGON", "DEFAULT_DATA"]

DEFAULT_DATA = str(dataset_path("locomo/locomo10.json"))
DRAGON = {"recall@5": 0.567, "recall@10": 0.662, "recall@25": 0.767, "recall@50": 0.827}
KS = (1, 5, 10, 25, 50)


class CachingEmbedder:
    """Wraps an Embedder; remembers every vector (documents and queries apart) in an ``.npz`` file, so a rerun
    embeds nothing it has seen. ``name``/``dim`` are the wrapped model's."""

    def __init__(self, inner: Any, path: Path) -> None:
        self.inner, self.path = inner, path
        self.name, self.dim = inner.name, inner.dim
        self._cache: dict[str, np.ndarray] = {}
        self.hits = self.misses = 0
        if path.exists():
            z = np.load(path, allow_pickle=False)
            self._cache = dict(zip(z["keys"].tolist(), z["vectors"]))

    @staticmethod
    def _key(role: str, text: str) -> str:
        return role + hashlib.sha1(text.encode("utf-8")).hexdigest()

    def embed_documents(self, texts):
        keys = [self._key("d", t) for t in texts]
        miss = [i for i, k in enumerate(keys) if k not in self._cache]
        if miss:
            vecs = self.inner.embed_documents([texts[i] for i in miss])
            for i, v in zip(miss, vecs):
                self._cache[keys[i]] = np.asarray(v, dtype=np.float32)
        self.misses += len(miss)
        self.hits += len(keys) - len(miss)
        return np.vstack([self._cache[k] for k in keys]) if keys else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text):
        k = self._key("q", text)
        if k not in self._cache:
            self._cache[k] = np.asarray(self.inner.embed_query(text), dtype=np.float32)
            self.misses += 1
        else:
            self.hits += 1
        return self._cache[k]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self._cache)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), vectors=np.vstack([self._cache[k] for k in keys]) if keys
                 else np.zeros((0, self.dim), np.float32))
        tmp.replace(self.path)


def _docs_and_questions(data_path: str, conversations: int | None):
    samples, fixes = load_locomo(data_path, conversations=conversations)
    docs, questions = [], []
    for si, s in enumerate(samples):
        for _n, when, turns in _sessions(s["conversation"]):
            for t in turns:
                text = _turn_text(t)
                if text:
                    docs.append({"key": t["dia_id"], "user": s["sample_id"], "text": text, "speaker": t.get("speaker"),
                                 "ts": when.isoformat()})
        for qi, qa in enumerate(s["qa"]):
            ev = normalize_evidence(qa.get("evidence"))
            if ev:
                questions.append({"user": s["sample_id"], "text": qa["question"], "category": int(qa["category"]),
                                  "evidence": ev, "audited_evidence": fixes.get((si, qi), ev)})
    return samples, docs, questions


def _tables(questions: list[dict], ranked: list[list[str]]) -> dict[str, Any]:
    recs = []
    for q, r in zip(questions, ranked):
        seen: list[str] = []
        for key in r:
            if key is not None and key not in seen:
                seen.append(key)
        recs.append({**q, "raw": _recalls(seen, q["evidence"], KS), "audited": _recalls(seen, q["audited_evidence"], KS)})
    return {"raw": _recall_table(recs, "raw", KS), "audited": _recall_table(recs, "audited", KS)}


def run_recall(data_path: str, *, conversations: int | None, systems: tuple[str, ...], work: Path,
               pg: PgServer | None, cache: Path, log: Any = print, real_add_messages: int = 64) -> dict[str, Any]:
    from anchormem.embedders.local_e5 import E5SmallEmbedder

    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    samples, docs, questions = _docs_and_questions(data_path, conversations)
    emb = CachingEmbedder(E5SmallEmbedder(), cache)
    log(f"recall: {len(samples)} conversations, {len(docs)} turns, {len(questions)} questions; embedding "
        f"({len(emb._cache)} vectors cached)")
    t_emb = time.perf_counter()
    doc_vecs = emb.embed_documents([f"{d['speaker']}: {d['text']}" if d["speaker"] else d["text"] for d in docs])
    q_vecs = np.vstack([emb.embed_query(q["text"]) for q in questions])
    embed_seconds = time.perf_counter() - t_emb
    emb.save()
    out: dict[str, Any] = {"benchmark": "locomo-evidence-recall, side by side", "data_path": data_path,
                           "conversations": len(samples), "turns": len(docs), "questions": len(questions),
                           "embedder": emb.name, "ks": list(KS), "embed_seconds": embed_seconds,
                           "embedded_now": emb.misses, "reference": {"DRAGON (LoCoMo paper, Table 3)": DRAGON},
                           "systems": {}}

    log("recall: anchormem (bm25, dense, hybrid_rrf)")
    am = run_locomo(data_path, recipe=["bm25", "dense", "hybrid_rrf"], conversations=conversations, embedder=emb)
    emb.save()
    for name, run in am["runs"].items():
        out["systems"][f"anchormem:{name}"] = {"raw": run["raw"], "audited": run.get("audited"),
                                               "search_ms": run["search_ms"], "recipe": run["recipe"]}
    out["anchormem_memories"] = am["memories"]

    dfile, vfile = work / "locomo_docs.jsonl", work / "locomo_docs.npy"
    dfile.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    np.save(vfile, doc_vecs.astype(np.float32))
    qfile, qvfile = work / "locomo_q.jsonl", work / "locomo_q.npy"
    qfile.write_text("".join(json.dumps({"text": q["text"], "user": q["user"]}, ensure_ascii=False) + "\n"
                             for q in questions), encoding="utf-8")
    np.save(qvfile, q_vecs.astype(np.float32))
    data = {"kind": "file", "docs": str(dfile), "vectors": str(vfile)}
    for system in systems:
        log(f"recall: {system}")
        url = pg.database("r") if system == "pgvector" and pg else None
        sdir = work / "stores" / f"recall-{system}"
        shutil.rmtree(sdir, ignore_errors=True)
        try:
            with Worker(system, log_dir=work / "logs") as w:
                w.call("open", dir=str(sdir), pg_url=url, real_embedder=False)
                w.call("bulk_load", data=data, start=0, end=len(docs))
                r = w.call("search", queries={"file": str(qfile), "vectors": str(qvfile)}, k=max(KS), mode="vector",
                           warmup=0)
            out["systems"][system] = {**_tables(questions, r["keys"]), "search_ms": _lat(r["ms"])}
        except WorkerError as exc:
            out["systems"][system] = {"error": str(exc), "traceback": exc.remote_traceback}
        finally:
            if url and pg:
                pg.drop(url)
            shutil.rmtree(sdir, ignore_errors=True)

    # add throughput with the real model on real turns (everything else in the benchmark excludes embedding)
    out["real_add"] = {"messages": real_add_messages, "batch": 32, "systems": {}}
    for system in ("anchormem-sqlite", *systems):
        log(f"real-model add: {system}")
        url = pg.database("a") if system == "pgvector" and pg else None
        sdir = work / "stores" / f"add-{system}"
        shutil.rmtree(sdir, ignore_errors=True)
        try:
            with Worker(system, log_dir=work / "logs") as w:
                w.call("open", dir=str(sdir), pg_url=url, real_embedder=True)
                w.call("add", data=data, start=len(docs) - 8, end=len(docs), batch=8, real=True)  # warm the model
                a = w.call("add", data=data, start=0, end=real_add_messages, batch=32, real=True)
            out["real_add"]["systems"][system] = {**a, "messages_per_s": a["messages"] / a["seconds"]}
        except WorkerError as exc:
            out["real_add"]["systems"][system] = {"error": str(exc)}
        finally:
            if url and pg:
                pg.drop(url)
            shutil.rmtree(sdir, ignore_errors=True)
    out["wall_seconds"] = time.perf_counter() - t0
    return out


def _lat(ms: list[float]) -> dict[str, float | None]:
    s = sorted(ms)
    return {"p50": s[len(s) // 2] if s else None, "p95": s[int(0.95 * (len(s) - 1))] if s else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--conversations", type=int, default=2)
    ap.add_argument("--systems", default="mem0,chroma,pgvector")
    ap.add_argument("--work", default=str(HERE / ".cache" / "recall"))
    ap.add_argument("--out", default=str(HERE / "results" / "recall_side_by_side.json"))
    args = ap.parse_args()
    systems = tuple(s for s in args.systems.split(",") if s)
    pg = PgServer(Path(args.work) / "pgdata") if "pgvector" in systems else None
    try:
        res = run_recall(args.data, conversations=args.conversations, systems=systems, work=Path(args.work), pg=pg,
                         cache=HERE / ".cache" / "e5_vectors.npz")
    finally:
        if pg:
            pg.close()
    Path(args.out).write_text(json.dumps(res, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
