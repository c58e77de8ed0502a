"""MemoryBank harness (anchormem.eval.memorybank) and its hand-labelled gold, on the real dataset (../shared) with the
hash embedder: the gold points at real turns in both languages, and a 1-user slice finds a known answer on top."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from anchormem.cli import app
from anchormem.errors import InvalidInputError
from anchormem.eval.memorybank import DEV_USERS, default_gold, format_table, load_memorybank, run_memorybank

REPO = Path(__file__).resolve().parents[1]
GOLD = REPO / "bench" / "data" / "memorybank_gold.json"
DATA = REPO.parent / "shared" / "datasets" / "memorybank"
needs_data = pytest.mark.skipif(not (DATA / "en" / "memory_bank_en.json").is_file(), reason="no MemoryBank data")


def test_gold_file_shape():
    g = json.loads(GOLD.read_text(encoding="utf-8"))
    assert "cf61c419" in g["about"]["dataset"] and "by reading" in g["about"]["labelled_by"]
    qs = g["questions"]
    assert len(qs) == 100 and len({q["id"] for q in qs}) == 100
    assert [u["split"] for u in g["users"]] == ["dev"] * DEV_USERS + ["heldout"] * 5
    # one question is unanswerable in English only (no en chat on 2023-05-05 for user 6)
    assert [q["id"] for q in qs if q["unanswerable"]["en"]] == ["mb06-4"]
    assert not any(q["unanswerable"]["cn"] for q in qs)
    assert sum("dated" in q["tags"] for q in qs) == 35 and sum("yes_no" in q["tags"] for q in qs) == 7
    assert sum(len(q["evidence"]["en"]) for q in qs) == 107 and sum(len(q["evidence"]["cn"]) for q in qs) == 108
    assert default_gold() == str(GOLD)


@needs_data
def test_gold_points_at_real_turns_in_both_languages():
    data = load_memorybank(DATA, GOLD)
    assert [len(data[lang]) for lang in ("en", "cn")] == [15, 15]
    assert data["en"][0]["name"] == "Emily" and data["cn"][0]["name"] == "张曼婷"
    assert data["en"][4]["name"] == "Jason"  # the file spells it " Jason ": trimmed
    for lang in ("en", "cn"):
        for p in data[lang]:
            for q in p["questions"]:
                for d, t in q["evidence"] + q["also"]:
                    assert t < len(p["history"][d]), (lang, q["id"], d, t)
    # Sunny's last day: the English file lacks the first Chinese turn, so the same turn has index 0 (en), 1 (cn)
    sunny_en, sunny_cn = data["en"][3]["history"]["2023-05-06"], data["cn"][3]["history"]["2023-05-06"]
    assert "yoga or meditation" in sunny_en[0]["query"] and "瑜伽" in sunny_cn[1]["query"]
    lib = {lang: next(q for q in data[lang][0]["questions"] if q["id"] == "mb00-1") for lang in ("en", "cn")}
    assert lib["en"]["evidence"] == lib["cn"]["evidence"] == [("2023-05-01", 0)]
    assert "One Hundred Years of Solitude" in data["en"][0]["history"]["2023-05-01"][0]["query"]
    assert "百年孤独" in data["cn"][0]["history"]["2023-05-01"][0]["query"]


@needs_data
def test_one_user_slice_finds_the_library_novel_on_top():
    r = run_memorybank(DATA, embedder="hash", recipe=["bm25", None], users=[0], ks=(1, 5, 10), details=True)
    assert r["langs"] == ["en", "cn"] and r["split"] == {"dev": ["Emily"], "heldout": []}
    assert r["counts"]["en"]["turns"] == r["counts"]["cn"]["turns"] == 49
    assert r["counts"]["en"]["questions"] == 7 and r["counts"]["en"]["memories"] > 49
    default = next(n for n in r["runs"] if n != "bm25")
    assert len(r["runs"]) == 2 and default == f"default ({r['runs'][default]['recipe']['name']})"
    for run in r["runs"].values():
        for lang in ("en", "cn"):
            t = run["tables"][lang]
            assert t["all"] == t["dev"] and t["heldout"]["n"] == 0 and t["all"]["n"] == 7
            assert 0.0 <= t["all"]["recall@1"] <= t["all"]["recall@5"] <= t["all"]["recall@10"] <= 1.0
            assert t["all"]["hit@10"] >= t["all"]["recall@10"]
    for q in r["runs"]["bm25"]["questions"]:
        if q["id"] == "mb00-1":  # "When I was studying in the library, I read a novel. What was its name?"
            assert q["ranked"][0] == ["2023-05-01", 0] and q["first_rank"] == 1 and q["recall"]["1"] == 1.0
    assert "| bm25 | cn | dev | 7 |" in format_table(r)
    # question kinds from the gold: Emily's "On May 4th, ..." and "I mentioned on May 2nd ..." are dated
    assert r["runs"]["bm25"]["by_tag"]["en"]["dated"]["n"] == 2
    assert r["runs"]["bm25"]["by_tag"]["cn"]["answer_by_assistant"]["n"] == 1  # the painters it recommended


@needs_data
def test_unanswerable_questions_are_left_out():
    r = run_memorybank(DATA, embedder="hash", recipe="bm25", users=[6], langs=["en"])
    assert r["unanswerable"] == {"en": ["mb06-4"]} and r["counts"]["en"]["questions"] == 6
    assert r["runs"]["bm25"]["tables"]["en"]["all"]["n"] == 6


def test_bad_inputs_raise(tmp_path):
    with pytest.raises(InvalidInputError):
        run_memorybank(tmp_path, gold=GOLD, embedder="hash")  # no dataset files
    with pytest.raises(InvalidInputError):
        run_memorybank(tmp_path, gold=tmp_path / "none.json", embedder="hash")
    with pytest.raises(InvalidInputError):
        load_memorybank(tmp_path, GOLD, langs=["fr"])
    with pytest.raises(InvalidInputError):
        run_memorybank(tmp_path, gold=GOLD, ks=(0,), embedder="hash")


@needs_data
def test_cli_json(tmp_path):
    res = CliRunner().invoke(app, ["--db", str(tmp_path / "x.db"), "--json", "eval", "memorybank", "--data",
                                   str(DATA), "--embedder", "hash", "--recipes", "bm25", "--users", "0",
                                   "--langs", "cn"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["langs"] == ["cn"] and out["runs"]["bm25"]["tables"]["cn"]["all"]["n"] == 7
