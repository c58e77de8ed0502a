"""Memora harness (anchormem.eval.memora) on a small synthetic week in Memora's format, and the paired bootstrap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchormem.errors import InvalidInputError
from anchormem.eval.memora import carries, format_table, load_memora, run_memora
from anchormem.eval.paired import paired_bootstrap

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "memora" / "weekly"


def _session(sid: int, date: str, turns: list[tuple[str, str, bool]]) -> dict:
    return {"session_id": sid, "date": date, "persona": "p", "session_type": "activity", "operation": "add",
            "conversation": [{"turn": i + 1, "speaker": who, "message": text, "share_memory": share}
                             for i, (who, text, share) in enumerate(turns)]}


def _write(root: Path, persona: str, sessions: list[dict], questions: dict) -> None:
    conv = root / persona / "conversations"
    conv.mkdir(parents=True)
    for s in sessions:
        (conv / f"session_{s['session_id']:04d}.json").write_text(json.dumps(s))
    (root / persona / f"evaluation_questions_{persona}.json").write_text(json.dumps(
        {"persona": persona, "questions": questions}))


@pytest.fixture
def week(tmp_path: Path) -> Path:
    u, a = "user_agent", "ai_agent"
    sessions = [
        _session(1, "2025-06-01", [(u, "Please add buy groceries to my todo list.", True), (a, "Added.", False)]),
        _session(2, "2025-06-01", [(u, "The weather is lovely today, isn't it?", False), (a, "It is!", False)]),
        _session(3, "2025-06-02", [(u, "I finished buying groceries, take it off the todo list.", True)]),
        _session(4, "2025-06-03", [(u, "Add renew passport to my todo list please.", True)]),
        _session(5, "2025-06-04", [(u, "I spent 12.50 dollars on lunch at the noodle bar.", True)]),
    ]
    questions = {
        "remembering": [{"question_id": "todo_1", "question": "What tasks remain on my todo list?",
                         "memory_evidence": {"remaining_tasks": [{"value": "Renew passport", "session_id": 4}]},
                         "forgetting_evidence": {"forgotten_items": [{"value": "Buy groceries", "session_id": 3}]}}],
        "reasoning": [{"question_id": "food_1", "question": "How much did I spend on lunch?",
                       "memory_evidence": {"food_expenses": [{"amount": 12.5, "session_id": 5}]}}],
        "recommending": [],
    }
    _write(tmp_path, "alpha_persona", sessions, questions)
    _write(tmp_path, "zeta_persona", sessions[:2] + sessions[3:4], {
        "remembering": [{"question_id": "todo_2", "question": "Is renew passport on my todo list?",
                         "memory_evidence": {"session_history": [4]}}],
        "reasoning": [], "recommending": []})
    return tmp_path


def test_carries_matches_content_words_and_numbers():
    assert carries("I need to BUY some groceries today", "Buy groceries")
    assert not carries("I bought milk", "Buy groceries")
    assert carries("walked 8,000 steps", "8000")
    assert not carries("anything at all", "the of")  # a value of stop words only never matches


def test_load_maps_gold_sessions_turns_and_retired_values(week):
    data = load_memora(week)
    assert [p["persona"] for p in data] == ["alpha_persona", "zeta_persona"] and data[1]["index"] == 1
    todo, food = data[0]["questions"]
    assert (todo["task"], todo["gold"], todo["gold_turns"]) == ("remembering", [4], [(4, 1)])
    assert todo["retired"] == [3] and todo["retired_values"] == ["Buy groceries"]
    assert todo["current_values"] == ["Renew passport"]
    assert food["gold"] == [5] and food["retired_values"] == []
    assert data[1]["questions"][0]["gold"] == [4]  # session_history counts as gold
    with pytest.raises(InvalidInputError):
        load_memora(week / "alpha_persona" / "conversations")


def test_run_reports_recall_per_task_split_and_reuses_the_store(week, tmp_path):
    db = str(tmp_path / "m.db")
    r = run_memora(week, embedder="hash", recipe=["bm25", "hybrid_rrf"], ks=(1, 5), db_path=db, details=True)
    assert r["personas"] == 2 and r["questions"] == 3 and r["turns"] == 8  # user turns only, by default
    assert r["split"] == {"tune": ["alpha_persona", "zeta_persona"], "heldout": []}
    bm25 = r["runs"]["bm25"]
    lunch = next(q for q in bm25["questions"] if q["question_id"] == "food_1")
    assert lunch["session"] == {"1": 1.0, "5": 1.0} and lunch["turn"]["1"] == 1.0
    row = bm25["tables"]["all"]["by_task"]["remembering"]
    assert row["n"] == 2 and row["session_recall@5"] == 1.0
    assert bm25["tables"]["all"]["overall"]["n_retired"] == 1
    assert bm25["tables"]["heldout"]["overall"]["n"] == 0
    assert "| bm25 | all | **overall** | 3 |" in format_table(r)
    again = run_memora(week, embedder="hash", recipe="bm25", ks=(1, 5), db_path=db)
    assert sorted(again["ingest_reused"]) == ["alpha_persona", "zeta_persona"] and again["memories"] == r["memories"]
    assert again["runs"]["bm25"]["tables"]["all"] == bm25["tables"]["all"]


def test_paired_bootstrap_difference_and_interval():
    out = paired_bootstrap([1, 1, 1, 0] * 25, [0, 1, 1, 0] * 25, n_resamples=500)
    assert out["n"] == 100 and out["diff"] == pytest.approx(0.25) and out["a"] == pytest.approx(0.75)
    assert 0.1 < out["low"] < 0.25 < out["high"] < 0.4 and out["p_le_0"] == 0.0
    same = paired_bootstrap([0.5] * 10, [0.5] * 10)
    assert same["diff"] == same["low"] == same["high"] == 0.0
    with pytest.raises(InvalidInputError):
        paired_bootstrap([1, 0], [1])
    with pytest.raises(InvalidInputError):
        paired_bootstrap([], [])


@pytest.mark.skipif(not DATA.exists(), reason=f"Memora data not found at {DATA}")
def test_real_data_counts_match_the_readme():
    data = load_memora(DATA)
    qs = [q for p in data for q in p["questions"]]
    assert (len(qs), sum(len(q["gold"]) for q in qs), sum(len(q["retired"]) for q in qs),
            sum(len(q["gold_turns"]) for q in qs)) == (150, 840, 221, 1155)


def test_bench_paired_and_groups_skip_splits_a_persona_subset_lacks():
    """bench/memora.py on a persona subset (no held-out persona, a group with none of the run's personas) reports the
    parts it has instead of failing on an empty paired comparison."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_memora", Path(__file__).resolve().parents[1] / "bench" /
                                                  "memora.py")
    bm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bm)

    def q(score: float) -> dict:
        return {"persona": "alpha", "split": "tune", "task": "remembering", "session": {"5": score, "10": 1.0},
                "turn": {"5": 0.0, "10": 1.0}}

    res = {"all_personas": ["alpha", "beta", "gamma"],
           "runs": {"anchored": {"questions": [q(1.0), q(0.0)]}, "bm25": {"questions": [q(0.0), q(0.0)]}}}
    p = bm.paired(res, "anchored")["bm25"]
    assert sorted(p) == ["all", "tune"]
    assert p["tune"]["session_recall@5"]["diff"] == -0.5 and p["tune"]["session_recall@5"]["n"] == 2
    g = bm.by_group(res, "anchored", "0-0,1-2")
    assert list(g["bm25"]) == ["0-0"] and g["bm25"]["0-0"]["n"] == 2
    assert g["anchored"]["0-0"]["all/session_recall@5"] == 0.5
