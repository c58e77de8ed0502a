"""API load: the REST server under concurrent clients on loopback, SQLite and PostgreSQL.

    python bench/api_load.py                                  # both backends, 8 clients, 20 s per phase
    python bench/api_load.py --backends sqlite --clients 4 --requests 200 --embedder hash   # a quick check

Per backend the script starts ``anchormem serve`` itself (``--workers N``; a fresh SQLite file, or a fresh
database on a private PostgreSQL 16 + pgvector from the ``pgserver`` wheel), creates an API key with
``anchormem keys create``, warms every worker up, then runs two phases with ``--clients`` threads, each with
its own HTTP connection:

- ``add``: ``POST /v1/memories`` with one chat turn per request (LoCoMo turns when
  ``../shared/datasets/locomo/locomo10.json`` is there, else a built-in set), spread over several users and
  sessions, each turn with its session's date;
- ``search``: ``POST /v1/search`` (default recipe, limit 5) with questions about those users (LoCoMo's QA
  questions, or built-in ones) over what the add phase stored.

A phase ends after ``--requests`` requests or ``--seconds`` seconds. Reported per backend and phase: requests,
errors (non-2xx or transport errors, by kind), throughput (successful requests / wall seconds), p50/p95/p99/mean
latency in ms (successful requests), server workers, clients, embedder. Writes ``bench/results/api_load.json``
with the machine facts (CPU, cores, Python, load average). The clients run on the same machine as the server,
so on a small machine they compete with it for CPU: the numbers are for one box, loopback, not a cluster.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import cycle
from pathlib import Path
from typing import Any, Iterator

import httpx

from anchormem.testing.serve import ServeProcess

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "peers"))

from run import machine  # noqa: E402

LOCOMO = HERE.parent.parent / "shared" / "datasets" / "locomo" / "locomo10.json"
OUT = HERE / "results" / "api_load.json"

_FALLBACK_TURNS = [
    "I moved to Lisbon last month and I'm still unpacking.", "My sister Ana works as a nurse in Porto.",
    "We agreed to send the lease documents by Monday.", "I can't stand coffee after 3pm, it keeps me up.",
    "我最喜欢的茶是龙井。", "下周三我要去医院复查。", "My daughter starts piano lessons on Saturday.",
    "I switched to the night shift two weeks ago.", "我们约好五月去杭州玩三天。", "The car needs new tyres before winter.",
]
_FALLBACK_QUESTIONS = ["Where did I move?", "What does my sister do?", "When are the lease documents due?",
                       "我最喜欢什么茶？", "What lessons does my daughter take?", "When is my hospital check?"]


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------- workload
@dataclass
class Workload:
    """Add requests (one turn each) and search requests, as JSON bodies, in the order clients take them."""

    adds: list[dict[str, Any]]
    searches: list[dict[str, Any]]
    users: int
    sessions: int
    source: str


def _locomo_time(raw: str) -> str | None:
    try:
        return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc).isoformat()
    except ValueError:
        return None


def load_workload(path: Path, users: int) -> Workload:
    """LoCoMo conversations as users (``conv-N``), their sessions as sessions, speaker A's and B's turns as user
    turns named by speaker; turns interleaved across users so concurrent clients write to several scopes."""
    if not path.exists():
        adds = [{"messages": t, "user_id": f"user-{i % users}", "session_id": f"s-{i // users % 3}"}
                for i, t in enumerate(_FALLBACK_TURNS * 50)]
        searches = [{"query": q, "user_id": f"user-{i % users}", "limit": 5}
                    for i, q in enumerate(_FALLBACK_QUESTIONS * 20)]
        return Workload(adds, searches, users, 3 * users, "built-in turns")
    data = json.loads(path.read_text())[:users]
    per_user: list[list[dict[str, Any]]] = []
    questions: list[list[dict[str, Any]]] = []
    sessions = 0
    for conv in data:
        uid = f"conv-{conv.get('sample_id', len(per_user))}"
        c = conv["conversation"]
        turns = []
        n = 1
        while f"session_{n}" in c:
            when = _locomo_time(c.get(f"session_{n}_date_time", ""))
            sessions += 1
            for t in c[f"session_{n}"]:
                text = (t.get("text") or "").strip()
                if not text:
                    continue
                msg = {"role": "user", "content": text, "name": t.get("speaker")}
                if when:
                    msg["timestamp"] = when
                turns.append({"messages": [msg], "user_id": uid, "session_id": f"session_{n}"})
            n += 1
        per_user.append(turns)
        questions.append([{"query": q["question"], "user_id": uid, "limit": 5} for q in conv.get("qa", [])
                          if isinstance(q.get("question"), str) and q["question"].strip()])
    adds = [t for group in zip(*per_user) for t in group] if per_user else []   # round-robin over users
    searches = [q for group in zip(*questions) for q in group] if questions else []
    return Workload(adds, searches, len(per_user), sessions, f"LoCoMo ({path.name}, {len(per_user)} conversations)")


# ----------------------------------------------------------------------------------------------- server
def _env(embedder: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANCHORMEM_")}
    env["ANCHORMEM_RATE_LIMIT"] = "off"  # measure the server, not the limiter
    if embedder:
        env["ANCHORMEM_EMBEDDER"] = embedder
    return env


def create_key(url: str, env: dict[str, str]) -> str:
    r = subprocess.run([sys.executable, "-m", "anchormem", "--json", "keys", "create", "--tenant", "bench",
                        "--role", "admin", "--name", "api_load", "--url", url], env=env, capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        raise SystemExit(f"anchormem keys create failed: {r.stderr}")
    return json.loads(r.stdout)["key"]


def Server(url: str, workers: int, env: dict[str, str], log: Path) -> ServeProcess:
    """``python -m anchormem serve --url URL --workers N`` on a free loopback port (ready when /v1/ready says so)."""
    try:
        return ServeProcess(url, env=env, log=log, workers=workers, wait_path="/v1/ready", timeout=300)
    except RuntimeError as exc:
        raise SystemExit(str(exc)) from exc


# ----------------------------------------------------------------------------------------------- load
@dataclass
class PhaseResult:
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    wall_s: float = 0.0


def run_phase(base: str, key: str, path: str, bodies: list[dict[str, Any]], *, clients: int,
              requests: int | None, seconds: float | None) -> PhaseResult:
    """``clients`` threads take bodies in order (cycling) and POST them to ``path`` until ``requests`` have been
    sent or ``seconds`` have passed."""
    source: Iterator[dict[str, Any]] = cycle(bodies)
    lock = threading.Lock()
    sent = 0
    res = PhaseResult()
    start = time.perf_counter()
    stop_at = start + seconds if seconds else None

    def take() -> dict[str, Any] | None:
        nonlocal sent
        with lock:
            if requests is not None and sent >= requests:
                return None
            if stop_at is not None and time.perf_counter() >= stop_at:
                return None
            sent += 1
            return next(source)

    def client() -> None:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=120.0) as c:
            while (body := take()) is not None:
                t0 = time.perf_counter()
                try:
                    r = c.post(path, json=body)
                    kind = None if r.is_success else f"http_{r.status_code}"
                except httpx.HTTPError as exc:
                    kind = type(exc).__name__
                ms = (time.perf_counter() - t0) * 1000
                with lock:
                    if kind is None:
                        res.latencies_ms.append(ms)
                    else:
                        res.errors[kind] += 1

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    res.wall_s = time.perf_counter() - start
    return res


def _pct(sorted_ms: list[float], q: float) -> float | None:
    if not sorted_ms:
        return None
    return round(sorted_ms[min(len(sorted_ms) - 1, int(round(q * (len(sorted_ms) - 1))))], 2)


def summarize(res: PhaseResult) -> dict[str, Any]:
    ok = sorted(res.latencies_ms)
    n_err = sum(res.errors.values())
    return {"requests": len(ok) + n_err, "ok": len(ok), "errors": n_err, "error_kinds": dict(res.errors),
            "seconds": round(res.wall_s, 3), "throughput_rps": round(len(ok) / res.wall_s, 2) if res.wall_s else None,
            "p50_ms": _pct(ok, 0.50), "p95_ms": _pct(ok, 0.95), "p99_ms": _pct(ok, 0.99),
            "mean_ms": round(sum(ok) / len(ok), 2) if ok else None}


def bench_backend(backend: str, args: argparse.Namespace, work: Workload, tmp: Path, pg: Any) -> list[dict]:
    env = _env(args.embedder)
    if backend == "sqlite":
        url = "sqlite:///" + str(tmp / "api_load.db")
    else:
        url = pg.database("apiload")
    _log(f"{backend}: creating a key, starting anchormem serve --workers {args.workers}")
    key = create_key(url, env)
    server = Server(url, args.workers, env, tmp / f"serve-{backend}.log")
    out = []
    try:
        # warm-up: every worker loads its model and opens its pool (uvicorn spreads connections over workers)
        warm = max(4, 4 * args.workers)
        run_phase(server.base, key, "/v1/search", [{"query": "warm up", "user_id": "warmup"}],
                  clients=min(args.clients, warm), requests=warm, seconds=None)
        run_phase(server.base, key, "/v1/memories", [{"messages": "warm up turn", "user_id": "warmup"}],
                  clients=1, requests=2, seconds=None)
        for phase, path, bodies in (("add", "/v1/memories", work.adds), ("search", "/v1/search", work.searches)):
            _log(f"{backend}: {phase} phase, {args.clients} clients")
            res = run_phase(server.base, key, path, bodies, clients=args.clients, requests=args.requests,
                            seconds=args.seconds if args.requests is None else None)
            row = {"backend": backend, "phase": phase, **summarize(res), "server_workers": args.workers,
                   "clients": args.clients, "embedder": args.embedder or "auto (default)"}
            _log(f"{backend} {phase}: {row['ok']} ok, {row['errors']} errors, {row['throughput_rps']} req/s, "
                 f"p50 {row['p50_ms']} ms, p95 {row['p95_ms']} ms, p99 {row['p99_ms']} ms")
            out.append(row)
    finally:
        server.stop()
        if backend == "postgres":
            pg.drop(url)
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backends", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    p.add_argument("--clients", type=int, default=8, help="concurrent client threads")
    p.add_argument("--seconds", type=float, default=20.0, help="length of each phase (ignored with --requests)")
    p.add_argument("--requests", type=int, default=None, help="requests per phase instead of --seconds")
    p.add_argument("--workers", type=int, default=1, help="anchormem serve --workers")
    p.add_argument("--embedder", default=None,
                   help="ANCHORMEM_EMBEDDER for the server (default: the library default, what users get)")
    p.add_argument("--users", type=int, default=10, help="users (LoCoMo conversations) the turns are spread over")
    p.add_argument("--data", type=Path, default=LOCOMO, help="LoCoMo JSON (a built-in workload if missing)")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not backends or set(backends) - {"sqlite", "postgres"}:
        p.error("--backends takes sqlite and/or postgres")
    if args.clients < 1 or args.workers < 1 or (args.requests is not None and args.requests < 1):
        p.error("--clients, --workers and --requests must be >= 1")
    work = load_workload(args.data, args.users)
    _log(f"workload: {work.source}: {len(work.adds)} turns over {work.users} users / {work.sessions} sessions, "
         f"{len(work.searches)} questions")
    result: dict[str, Any] = {
        "benchmark": "api_load", "started": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "anchormem": __import__("anchormem").__version__,
        "machine": machine(),
        "config": {"backends": backends, "clients": args.clients, "server_workers": args.workers,
                   "embedder": args.embedder or "auto (default)", "requests_per_phase": args.requests,
                   "seconds_per_phase": None if args.requests else args.seconds, "workload": work.source,
                   "users": work.users, "sessions": work.sessions, "search_limit": 5, "rate_limit": "off",
                   "transport": "HTTP/1.1 on loopback, one keep-alive connection per client thread"},
        "results": [],
    }
    with tempfile.TemporaryDirectory(prefix="anchormem-api-load-") as d:
        tmp = Path(d)
        pg = None
        if "postgres" in backends:
            from client import PgServer

            _log("starting PostgreSQL (pgserver)")
            pg = PgServer(tmp / "pgdata")
            result["machine"]["postgres"] = f"{pg.version}, pgvector {pg.pgvector}"
        try:
            for backend in backends:
                result["results"].extend(bench_backend(backend, args, work, tmp, pg))
        finally:
            if pg is not None:
                pg.close()
    result["machine"]["loadavg_end"] = " ".join(Path("/proc/loadavg").read_text().split()[:3]) \
        if Path("/proc/loadavg").exists() else "?"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    _log(f"wrote {args.out}")
    print(f"{'backend':9} {'phase':7} {'ok':>6} {'err':>4} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    for r in result["results"]:
        print(f"{r['backend']:9} {r['phase']:7} {r['ok']:6d} {r['errors']:4d} {r['throughput_rps'] or 0:8.1f} "
              f"{r['p50_ms'] or 0:8.1f} {r['p95_ms'] or 0:8.1f} {r['p99_ms'] or 0:8.1f}")
    return result


if __name__ == "__main__":
    main()
