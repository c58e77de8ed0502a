"""Cost of a rolling session summary as a session grows. A session of N user turns (each with a number, so each
is a summary line) is written 20 turns at a time with ``summary_every=20`` (hash embedder: the summary is what
is timed, not embeddings); reported per N: the mean time of the ``add`` calls that wrote a summary in the last
100 turns minus the same calls' time without summaries (``summary_every=0``), and whether the newest turn is in
the final summary. Writes bench/results/summary_scale.json. Run: python bench/summary_scale.py"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from anchormem import Memory, Settings


def _turns(start: int, n: int) -> list[dict]:
    return [{"role": "user", "content": f"Ticket {i} to Lisbon cost {100 + i} euros."} for i in range(start, start + n)]


def _tail_add_ms(n: int, every: int) -> tuple[float, str]:
    with Memory(":memory:", embedder="hash", cache=False,
                settings=Settings(summary_every=every, labeller="offline")) as m:
        times = []
        for start in range(0, n, 20):
            t = time.perf_counter()
            m.add(_turns(start, 20), user_id="u", session_id="s1")
            if start >= n - 100:
                times.append(time.perf_counter() - t)
        text = next((x.text for x in m.get_all(user_id="u", filters={"kind": "summary"})), "")
        return 1000 * statistics.fmean(times), text


def main() -> None:
    rows = []
    for n in (200, 1000, 2000):
        with_s, text = _tail_add_ms(n, 20)
        without, _ = _tail_add_ms(n, 0)
        rows.append({"turns": n, "add_20_turns_ms": round(with_s, 1), "add_20_turns_no_summary_ms": round(without, 1),
                     "summary_ms": round(with_s - without, 1),
                     "newest_turn_in_summary": f"Ticket {n - 1} to Lisbon" in text})
        print(rows[-1])
    out = Path(__file__).parent / "results/summary_scale.json"
    out.write_text(json.dumps({"benchmark": "summary_scale", "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
