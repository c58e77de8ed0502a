"""Bytes of a ``POST /v1/ask`` response with and without ``?include=candidates`` (issue 26: "~10 KB for a one-line
answer"). The store holds a small everyday profile (12 memories of one user); each question is asked both ways
over the in-process app (FastAPI TestClient, the ``hash`` embedder: sizes do not depend on the model).

    python bench/ask_response_size.py            # prints a table, writes bench/results/ask_response_size.json

"with candidates" is what every answer returned before (the scored candidate hits in full); "answer only" is the
default now (text, citations, abstained).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from fastapi.testclient import TestClient

from anchormem.server.app import create_app
from anchormem.server.keys import KeyStore

FACTS = [
    "I moved to Lisbon last month.", "My sister Ana lives in Berlin and works as a nurse.",
    "I am allergic to peanuts.", "My favourite tea is oolong.", "I bought a red bicycle for commuting.",
    "My dentist appointment is on Friday at 10am.", "I work as a data engineer at a logistics company.",
    "我女儿叫朵朵，今年五岁。", "我最喜欢的茶是龙井。", "My phone number is 555-0100.",
    "We are planning a trip to Kyoto in April.", "I run 5 km every morning before work.",
]
QUESTIONS = ["Where did I move?", "What am I allergic to?", "What is my favourite tea?", "我女儿叫什么名字？",
             "When is my dentist appointment?", "Where does my sister live?"]


def main() -> dict:
    keys = KeyStore(":memory:")
    key = keys.create("acme", "reader", name="bench")[1]
    writer = keys.create("acme", "writer", name="seed")[1]
    app = create_app(":memory:", embedder="hash", keys=keys, rate_limit=None)
    rows = []
    with TestClient(app) as c:
        for text in FACTS:
            c.post("/v1/memories", json={"messages": text, "user_id": "maya", "timestamp": "2025-03-10T09:00:00Z"},
                   headers={"Authorization": f"Bearer {writer}"}).raise_for_status()
        auth = {"Authorization": f"Bearer {key}"}
        for q in QUESTIONS:
            body = {"query": q, "user_id": "maya"}
            plain = c.post("/v1/ask", json=body, headers=auth)
            full = c.post("/v1/ask", json=body, params={"include": "candidates"}, headers=auth)
            rows.append({"question": q, "answer_only_bytes": len(plain.content),
                         "with_candidates_bytes": len(full.content),
                         "candidates": len(full.json()["candidates"]), "citations": len(plain.json()["citations"])})
    out = {"memories": len(FACTS), "questions": rows,
           "median_answer_only_bytes": statistics.median(r["answer_only_bytes"] for r in rows),
           "median_with_candidates_bytes": statistics.median(r["with_candidates_bytes"] for r in rows)}
    for r in rows:
        print(f"{r['question'][:34]:<36}{r['answer_only_bytes']:>8}{r['with_candidates_bytes']:>10}"
              f"{r['citations']:>4}{r['candidates']:>4}")
    print(f"median bytes: answer only {out['median_answer_only_bytes']}, "
          f"with candidates {out['median_with_candidates_bytes']}")
    path = Path(__file__).parent / "results" / "ask_response_size.json"
    path.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":
    main()
