"""CPU per ``Memory.ask`` and ``Memory.context`` (no LLM) on a ``bench/keyword_scale.py`` store: the read paths
around search, to catch a read that walks the scope (search14: ``previous_messages``, the user summary).

    PYTHONPATH=<tree>/src python bench/ask_context_cpu.py 100000      # --work: /work/wt/ks (the stores' folder)

Opens a private copy of ``sqlite_<n>`` with the lookup embedder, warms up, then times 20 synthetic queries each
(``time.process_time``) and prints the p50 per call.
"""
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent; sys.path.insert(0, str(HERE)); sys.path.insert(0, str(HERE / "peers"))
import numpy as np, keyword_scale, synth
from anchormem import Memory
n = int(sys.argv[1]); work = Path("/work/wt/ks")
vectors = np.load(sorted(work.glob("vectors_*.npy"))[-1], mmap_mode="r")
tmp = Path(tempfile.mkdtemp(prefix="s14ask_")); shutil.copytree(work / f"sqlite_{n}", tmp / "db")
emb = keyword_scale._Lookup()
mem = Memory(str(tmp / "db" / "anchormem.db"), embedder=emb, llm=None, cache=False)
qs, qv = synth.make_queries(vectors, n, 40, seed=n)
for q, v in zip(qs, qv): emb.table[q["text"].strip()] = v
mem.search(qs[0]["text"], user_id="u0"); mem.ask(qs[1]["text"], user_id="u0"); mem.context(query=qs[2]["text"], user_id="u0")
for name, fn in (("ask", lambda q: mem.ask(q, user_id="u0")), ("context", lambda q: mem.context(query=q, user_id="u0"))):
    cpu = []
    for q in qs[5:25]:
        t0 = time.process_time(); fn(q["text"]); cpu.append(time.process_time() - t0)
    cpu.sort(); print(f"== {name} p50 ms {1000*cpu[len(cpu)//2]:.2f}")

mem.close(); shutil.rmtree(tmp, ignore_errors=True)
