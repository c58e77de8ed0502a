"""Currency benchmark: is a changed fact never presented as current, and is the past still reachable?

    nice -n 10 python bench/currency.py [--split dev|heldout|all] [--kind move] [--out bench/results/currency.json]

Stories: ``bench/data/currency_stories.json`` (written for this benchmark, not drawn from LoCoMo; half English, half
Chinese, some mixed; the ``heldout`` split was written before any tuning). Each story is added turn by turn to one
``Memory(":memory:")`` (the default offline path), each story its own user, each turn its own session and timestamp
(``day`` days after 2024-01-01); a ``concurrent`` story adds its last two turns from two threads at once. With
``--bulk`` each story is imported instead with ONE ``add_many`` call (its turns in story order, each with its
``day``'s time, one session; a concurrent story's turns too): a batch must decide as the adds one by one do. Only the
public API is used. Checks, per story:

- (a) ``current``: the first citation of ``ask(question)`` holds the current value (for non-changes: the kept one);
- (b) ``past``: ``search(question, as_of=<when the old value was said>)`` ranks a memory holding it first, and
  ``ask(past_question)`` cites it;
- (c) ``context``: ``context(query=question)`` shows no superseded value as current (a line holding it must also
  hold the current value or a past marker such as "until" / "以前");
- (d) ``kept``: a non-change retires nothing (no SUPERSEDE, the fact is still cited first); a story's ``keep`` fact
  (another fact of a multi-fact first turn, the pets' names of a count change) is still cited.
- (f) ``ahead`` (stories with an ``ahead`` day): read as of that day (before a scheduled change's date, or after a
  change said in the past tense), ``ask`` cites first and ``search`` finds first the value holding then.
- (e) ``search``: the first hit of ``search(question)`` holds the current value (for non-changes: the kept one; for
  two concurrent writers: the one ``ask`` cites); ``top3``: one of its first three hits does.

A failed check is classified ``review_policy`` when the change was held for review (a sensitive slot: an allergy, an
identifier), ``detection`` when the change turn's ``add`` events show the change was not detected
(no SUPERSEDE of the old value; a SUPERSEDE on a non-change; an older import not stored as already closed; two
concurrent changes not in one slot), else ``data_model`` (detection right, a read path still shows or cites the
wrong memory: the data-model work of issue #22).
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import sys
import threading
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder

ROOT = Path(__file__).parent
STORIES = ROOT / "data" / "currency_stories.json"
T0 = datetime(2024, 1, 1, 9, 0, tzinfo=timezone.utc)
# a line holding an old value is fine when it marks it as past
PAST_MARKERS = ("until", "before", "formerly", "previously", "used to", "no longer", "(past", "superseded",
                "moved from", "以前", "之前", "曾经", "曾", "不再", "已搬离")
CHECKS = ("current", "past", "context", "kept", "search", "top3", "ahead")


def _has(text: str, value: str) -> bool:
    return value.casefold() in (text or "").casefold()


def _when(story: dict, i: int) -> datetime:
    return T0 + timedelta(days=story["turns"][i]["day"])


BULK = False  # --bulk: every turn of a story in one add_many call


def _add_bulk(m: Memory, story: dict, user: str) -> list[list]:
    """``--bulk``: the story's turns in ONE ``add_many`` call (story order, each turn's time from its ``day``, one
    session); its events given back per turn (an event goes to the turn whose words its memory was drawn from, a
    SUPERSEDE to the turn of the memory that closed it; else to the last turn)."""
    turns = story["turns"]
    msgs = [{"role": "user", "content": t["text"], "timestamp": _when(story, i)} for i, t in enumerate(turns)]
    got = m.add_many(msgs, user_id=user, session_id="s0", return_events=True)["events"]
    events: list[list] = [[] for _ in turns]

    def turn_of(mem) -> int:
        src = mem.source_text or mem.text
        return next((k for k, t in enumerate(turns) if t["text"] == src and mem.created_at == _when(story, k)),
                    next((k for k, t in enumerate(turns) if t["text"] == src), len(turns) - 1))

    by_id = {e.memory.id: e.memory for e in got if e.event != "SUPERSEDE"}
    for e in got:
        closer = by_id.get(e.memory.superseded_by or "") if e.event == "SUPERSEDE" else None
        events[turn_of(closer if closer is not None else e.memory)].append(e)
    return events


def _add_all(m: Memory, story: dict, user: str) -> list[list]:
    """Add the story's turns; returns the events of each add (in turn order)."""
    turns = story["turns"]
    if BULK:
        return _add_bulk(m, story, user)
    events: list[list] = [[] for _ in turns]
    racing = story["kind"] == "concurrent"
    upto = len(turns) - 2 if racing else len(turns)
    for i in range(upto):
        events[i] = list(m.add(turns[i]["text"], user_id=user, session_id=f"s{i}", timestamp=_when(story, i)))
    if racing:
        barrier = threading.Barrier(2)

        def run(i: int) -> None:
            barrier.wait()
            events[i] = list(m.add(turns[i]["text"], user_id=user, session_id=f"s{i}", timestamp=_when(story, i)))

        ts = [threading.Thread(target=run, args=(i,)) for i in (upto, upto + 1)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    return events


def _detected(story: dict, events: list[list]) -> tuple[bool, str]:
    """Was the change (or the non-change) detected as such, from the add events alone?"""
    kind, old = story["kind"], story.get("superseded", "")
    later = [e for evs in events[1:] for e in evs]
    sup = [e for e in later if e.event == "SUPERSEDE"]
    if kind == "nonchange":
        return (not sup, "" if not sup else f"retired {sup[0].memory.text!r}")
    if kind == "out_of_order":
        closed = [e for e in later if e.memory.fact is not None and e.memory.valid_to is not None]
        return (bool(closed), "" if closed else "older statement not stored as closed: " +
                repr([(e.event, e.memory.text, e.memory.fact.attribute if e.memory.fact else None) for e in later]))
    if kind == "concurrent":
        slots = [{e.memory.fact.attribute for e in evs if e.memory.fact is not None} for evs in events[-2:]]
        first = {e.memory.fact.attribute for e in events[0] if e.memory.fact is not None}
        ok = bool(slots[0] & slots[1] & first)
        return ok, "" if ok else f"slots {first} / {slots}"
    hit = [e for e in sup if _has(e.memory.text, old) or (e.memory.fact and _has(e.memory.fact.value, old))]
    review = [e for e in later if e.event == "REVIEW"]
    if not hit and review:  # detected, and held for review by policy (a sensitive slot: health, identifiers)
        return True, "held for review"
    return (bool(hit), "" if hit else "no SUPERSEDE of the old value; events " +
            repr([(e.event, e.memory.text, e.memory.fact.attribute if e.memory.fact else None) for e in later]))


def _subject(fact) -> str:
    """Whose claim a fact is: a named person (its entity), a relative (the person word its attribute is typed by:
    ``sister_home_city`` -> "sister"), else the user."""
    from anchormem.facts.keys import is_person

    if fact.entity.casefold() != "user":
        return fact.entity.casefold()
    head = fact.attribute.split(":", 1)[0].split("_", 1)[0]
    return head if "_" in fact.attribute and is_person(head) else "user"


def cross_subject(events: list[list]) -> list[str]:
    """SUPERSEDE events that retire the claim of someone else than the change's subject (the subjects of an add:
    those of the facts it writes): the user's claim retired by a change about another person, another person's by a
    change of the user's, one person's by another's ("Tom" by "Kara"). One person said two ways is no crossing:
    a relation and the name said beside it in either memory ("my sister Mei": "sister" / "mei"), or a relation and a
    narrower one (sister / 姐姐)."""
    from anchormem.facts.keys import kin_covers

    out = []
    for evs in events:
        new = {_subject(e.memory.fact) for e in evs if e.event != "SUPERSEDE" and e.memory.fact is not None}
        said = " ".join(e.memory.text for e in evs if e.event != "SUPERSEDE").casefold()
        for e in evs:
            if e.event != "SUPERSEDE" or e.memory.fact is None or not new:
                continue
            old = _subject(e.memory.fact)
            both = said + " " + e.memory.text.casefold()
            if old in new or any(old != "user" and n != "user" and (
                    (old in both and n in both) or kin_covers(old, n) or kin_covers(n, old)) for n in new):
                continue
            out.append(f"{e.memory.text!r} ({old}) by {sorted(new)}")
    return out


_ID_TAIL = re.compile(r"\s*\(id [0-9a-f]{32}\)")


def _context_lines(block) -> list[str]:
    """The context block's memory lines, without their "(id …)" tails (a hex id can hold a story's number)."""
    return [_ID_TAIL.sub("", ln) for s in block.sections if s.name != "recent_turns"
            for ln in s.text.splitlines()[1:] if ln.strip()]


def run_story(m: Memory, story: dict, user: str) -> dict:
    events = _add_all(m, story, user)
    detected, why = _detected(story, events)
    cur, old, kind = story["current"], story.get("superseded"), story["kind"]
    res: dict = {"id": story["id"], "kind": kind, "lang": story["lang"], "split": story["split"],
                 "detected": detected, "checks": {}, "notes": {}, "cross_subject": cross_subject(events)}
    ans = m.ask(story["question"], user_id=user)
    first = ans.citations[0].text if ans.citations and not ans.abstained else ""
    if kind != "nonchange":
        res["checks"]["current"] = any(_has(first, v) for v in cur)
        res["notes"]["current"] = first
    if old and kind != "concurrent":
        said = next(i for i, t in enumerate(story["turns"]) if _has(t["text"], old))
        hits = m.search(story["question"], user_id=user, as_of=_when(story, said) + timedelta(hours=1))
        as_of_ok = bool(hits) and _has(hits[0].memory.text, old)
        past_ok = True
        if story.get("past_question"):
            pa = m.ask(story["past_question"], user_id=user)
            past_ok = not pa.abstained and any(_has(c.text, old) for c in pa.citations)
        res["checks"]["past"] = as_of_ok and past_ok
        res["notes"]["past"] = {"as_of_first": hits[0].memory.text if hits else "", "past_question": past_ok}
    block = m.context(user_id=user, session_id="probe", query=story["question"])
    lines = _context_lines(block)
    stale = [old] if old else []
    if kind == "concurrent" and first:
        stale += [v for v in cur if not _has(first, v)]  # the losing writer's value is history too
    shown = cur if kind != "concurrent" else [v for v in cur if _has(first, v)]
    bad = [ln for ln in lines for v in stale if _has(ln, v) and not any(_has(ln, c) for c in shown)
           and not any(_has(ln, p) for p in PAST_MARKERS)]
    res["checks"]["context"] = not bad
    res["notes"]["context"] = bad[:3]
    if kind == "nonchange":
        res["checks"]["kept"] = detected and any(_has(first, v) for v in cur)
        res["notes"]["kept"] = first
    elif story.get("keep"):
        ka = m.ask(story["keep"]["question"], user_id=user)
        res["checks"]["kept"] = not ka.abstained and any(_has(c.text, story["keep"]["value"]) for c in ka.citations)
        res["notes"]["kept"] = [c.text for c in ka.citations[:3]]
    if kind == "concurrent":  # issue #22: exactly one of the two racing values current, the other in history
        # (at the claim level: the fact memories whose value is the racing value; "五百" of "五百兆" too)
        facts = [it for it in m.get_all(user_id=user, include_superseded=True, limit=1000) if it.fact is not None]
        said = [[it for it in facts if _has(it.fact.value, v) or (it.fact.value and _has(v, it.fact.value))]
                for v in cur]
        live = [v for v, its in zip(cur, said) if any(it.valid_to is None for it in its)]
        res["notes"]["one_current"] = len(live) == 1 and all(its for its in said)
    # (e) last, so its access-count bump moves none of the checks above
    want = cur if kind != "concurrent" or not first else [v for v in cur if _has(first, v)]
    found = [h.memory.text for h in m.search(story["question"], user_id=user, limit=10)]
    res["checks"]["search"] = bool(found) and any(_has(found[0], v) for v in want)
    res["checks"]["top3"] = any(_has(t, v) for t in found[:3] for v in want)
    res["notes"]["search"] = found[:3]
    if story.get("ahead"):  # (f), after (e) like it: as of a day before a scheduled date, what holds then comes first
        at = T0 + timedelta(days=story["ahead"]["day"])
        held = story["ahead"]["value"]
        aa = m.ask(story["question"], user_id=user, as_of=at)
        then = aa.citations[0].text if aa.citations and not aa.abstained else ""
        top = [h.memory.text for h in m.search(story["question"], user_id=user, as_of=at, limit=3)]
        res["checks"]["ahead"] = any(_has(then, v) for v in held) and bool(top) and any(_has(top[0], v) for v in held)
        res["notes"]["ahead"] = {"ask": then, "search": top[:2]}
    res["failures"] = {c: ("detection" if not detected else "review_policy" if why == "held for review"
                           else "data_model") for c, ok in res["checks"].items() if not ok}
    if not detected:
        res["notes"]["detection"] = why
    return res


def _table(results: list[dict], key) -> dict:
    agg: dict = defaultdict(lambda: {c: [0, 0] for c in CHECKS} | {"stories": 0, "detected": 0})
    for r in results:
        a = agg[key(r)]
        a["stories"] += 1
        a["detected"] += int(r["detected"])
        for c, ok in r["checks"].items():
            a[c][0] += int(ok)
            a[c][1] += 1
    out = {}
    for k, a in sorted(agg.items()):
        row = {"stories": a["stories"], "detected": round(a["detected"] / a["stories"], 4)}
        for c in CHECKS:
            ok, n = a[c]
            row[c] = {"ok": ok, "n": n, "rate": round(ok / n, 4) if n else None}
        out[k] = row
    return out


def _fmt(row: dict) -> str:
    cells = []
    for c in CHECKS:
        x = row[c]
        cells.append(f"{100 * x['rate']:.1f}% ({x['ok']}/{x['n']})" if x["n"] else "–")
    return " | ".join(cells)


def markdown(report: dict) -> str:
    lines = ["| split | language | stories | change detected | (a) ask cites current | (b) past reachable | "
             "(c) context shows no stale value | (d) non-change / other fact kept | (e) search: first hit current | "
             "search: current in top 3 | (f) as of before the date |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for split, t in report["by_split_language"].items():
        for lang, row in t.items():
            lines.append(f"| {split} | {lang} | {row['stories']} | {100 * row['detected']:.1f}% | {_fmt(row)} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stories", default=str(STORIES))
    ap.add_argument("--split", default="all", choices=["dev", "heldout", "all"])
    ap.add_argument("--kind", default=None, help="only stories of this kind (move, job, numeric, ...)")
    ap.add_argument("--out", default=str(ROOT / "results" / "currency.json"))
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each story this many times (each its own user): the concurrent stories race two threads")
    ap.add_argument("--verbose", action="store_true", help="print each failed story")
    ap.add_argument("--shard", default=None, help="k/n: run every n-th story from the k-th (0-based), for parallel runs")
    ap.add_argument("--merge", nargs="+", default=None, help="merge the results files of shards into --out")
    ap.add_argument("--detection-only", action="store_true",
                    help="tuning aid: only the add events (hash embedder, offline labeller); no read-path checks")
    ap.add_argument("--detection-embedder", default="hash", choices=["hash", "eval"],
                    help="the embedder of --detection-only: hash (the change-by-meaning fallback off) or the cached eval "
                         "embedder (fallback on)")
    ap.add_argument("--bulk", action="store_true",
                    help="each story's turns in ONE add_many call (story order, times from day) instead of one add "
                         "per turn; the same checks")
    args = ap.parse_args()
    global BULK
    BULK = args.bulk
    stories = json.loads(Path(args.stories).read_text(encoding="utf-8"))["stories"]
    stories = [s for s in stories if args.split in ("all", s["split"]) and args.kind in (None, s["kind"])]
    stories = [s for s in stories for _ in range(max(1, args.repeat))]
    if args.shard:
        k, n = (int(x) for x in args.shard.split("/"))
        stories = stories[k::n]
    t0, c0 = time.time(), time.process_time()
    if args.merge:
        parts = [json.loads(Path(f).read_text(encoding="utf-8")) for f in args.merge]
        _write(args, [r for p in parts for r in p["results"]], max(p["wall_s"] for p in parts),
               sum(p["cpu_s"] for p in parts), " ".join(p["command"] for p in parts))
        return
    if args.detection_only:
        from anchormem import Settings

        m = Memory(":memory:", embedder="hash" if args.detection_embedder == "hash" else eval_embedder(),
                   settings=Settings(labeller="offline"))
        for n, s in enumerate(stories):
            ok, why = _detected(s, _add_all(m, s, f"u{n}"))
            if not ok:
                print(s["id"], "|", " / ".join(t["text"] for t in s["turns"]), "|", why[:300])
        return
    m = Memory(":memory:", embedder=eval_embedder())
    results = []
    for n, s in enumerate(stories):
        r = run_story(m, s, user=f"u{n}")
        results.append(r)
        if (n + 1) % 20 == 0:
            print(f"  {n + 1}/{len(stories)} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
        if args.verbose and r["failures"]:
            print(json.dumps({k: r[k] for k in ("id", "failures", "notes")}, ensure_ascii=False), file=sys.stderr)
    m.close() if hasattr(m, "close") else None
    _write(args, results, time.time() - t0, time.process_time() - c0,
           "python bench/" + Path(__file__).name + " " + " ".join(sys.argv[1:]))


def _write(args, results: list[dict], wall: float, cpu: float, command: str) -> None:
    report = {
        "command": command,
        "stories_file": str(Path(args.stories).name), "stories": len(results),
        "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "by_split_language": {sp: _table([r for r in results if r["split"] == sp], lambda r: r["lang"])
                              for sp in sorted({r["split"] for r in results})},
        "by_split_kind_language": {sp: _table([r for r in results if r["split"] == sp],
                                              lambda r: f"{r['kind']}/{r['lang']}")
                                   for sp in sorted({r["split"] for r in results})},
        "cross_subject_supersedes": sum(len(r.get("cross_subject", [])) for r in results),
        "concurrent_one_current": [sum(1 for r in results if r["notes"].get("one_current")),
                                   sum(1 for r in results if r["kind"] == "concurrent")],
        "failures_by_class": {cls: sum(1 for r in results for v in r["failures"].values() if v == cls)
                              for cls in ("detection", "data_model", "review_policy")},
        "results": results,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    print(markdown(report))
    print(f"\nfailures: {report['failures_by_class']}; cross-subject SUPERSEDE: {report['cross_subject_supersedes']}; {len(results)} stories, wall {wall:.0f} s, cpu {cpu:.0f} s")
    one, n = report["concurrent_one_current"]
    if n:
        print(f"concurrent stories with exactly one racing value current and the other in history: {one}/{n}")


if __name__ == "__main__":
    main()
