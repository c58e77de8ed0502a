"""How many ``context()`` blocks show one source turn twice, over the currency stories (issue #22, ctx12).

For each story of a currency stories file (``bench/currency.py``'s format; each story its own user, each turn its
own session), the turns are added and ``context(query=question)`` and ``context(query=past_question)`` are built
(a past question reads superseded memories too, where a fact and its turn meet most). Reported:

- ``blocks``: context blocks built; ``lines``: memory lines shown;
- ``repeated_turn_blocks``: blocks in which two memory lines cite one source message (a fact and the utterance it
  was read from, or two facts of one turn);
- ``fact_lines`` / ``fact_lines_not_self_standing``: lines that are ``kind="fact"`` memories, and those of them
  whose words are no statement of their own (:func:`anchormem.session.turn_lines.self_standing`, read the same way
  for any tree measured; when the tree has no such module, the branch's copy next to this script is used).

    python bench/context_lines.py --stories bench/data/currency_stories.json --out bench/results/ctx12_lines_branch.json
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder

T0 = datetime(2024, 1, 1, 9, 0, tzinfo=timezone.utc)


def _self_standing():
    try:
        from anchormem.session.turn_lines import self_standing
    except ImportError:  # a tree before ctx12: the measure itself is read by the branch's rule
        import importlib.util
        import sys

        from anchormem import langdata

        pkg = Path(__file__).resolve().parents[1] / "src" / "anchormem"
        spec = importlib.util.spec_from_file_location("anchormem.session.turn_lines",
                                                      pkg / "session" / "turn_lines.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)

        class _Lines:  # the branch's data/lang/<lang>/lines.json; every other file from the tree measured
            @staticmethod
            def load(concern: str, lang: str) -> dict:
                if concern == "lines":
                    return json.loads((pkg / "data" / "lang" / lang / "lines.json").read_text(encoding="utf-8"))
                return langdata.load(concern, lang)

            alternation = staticmethod(langdata.alternation)

        mod.langdata = _Lines
        self_standing = mod.self_standing
    return self_standing


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stories", default=str(Path(__file__).parent / "data" / "currency_stories.json"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    standing = _self_standing()
    data = json.loads(Path(args.stories).read_text(encoding="utf-8"))
    stories = data["stories"] if isinstance(data, dict) else data
    wall, cpu = time.perf_counter(), time.process_time()
    m = Memory(":memory:", embedder=eval_embedder())
    out = {"blocks": 0, "lines": 0, "repeated_turn_blocks": 0, "fact_lines": 0, "fact_lines_not_self_standing": 0}
    examples: dict[str, list] = {"repeated_turn": [], "not_self_standing": []}
    for n, story in enumerate(stories):
        user = f"u{n}"
        for i, turn in enumerate(story["turns"]):
            m.add(turn["text"], user_id=user, session_id=f"s{i}", timestamp=T0 + timedelta(days=turn["day"]))
        for q in filter(None, (story.get("question"), story.get("past_question"))):
            block = m.context(user_id=user, session_id="probe", query=q, show_ids=False)
            sec = block.section("memories")
            items = sec.items if sec is not None else []
            out["blocks"] += 1
            out["lines"] += len(items)
            got = m.store.get_many(m.tenant, [it["id"] for it in items])
            seen: set[str] = set()
            repeated = False
            for it in items:
                mem = got.get(it["id"])
                if mem is None:
                    continue
                if mem.kind != "summary" and seen & set(mem.source_message_ids):
                    repeated = True
                seen |= set(mem.source_message_ids)
                if mem.kind == "fact":
                    out["fact_lines"] += 1
                    if not standing(it["text"]):
                        out["fact_lines_not_self_standing"] += 1
                        examples["not_self_standing"].append(it["text"])
            if repeated:
                out["repeated_turn_blocks"] += 1
                examples["repeated_turn"].append({"story": story["id"], "question": q,
                                                  "lines": sec.text.splitlines()[1:]})
    result = {"command": "python bench/context_lines.py --stories " + args.stories, **out,
              "wall_s": round(time.perf_counter() - wall, 1), "cpu_s": round(time.process_time() - cpu, 1),
              "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
              "examples": {k: v[:10] for k, v in examples.items()}}
    print(json.dumps({k: v for k, v in result.items() if k != "examples"}, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
