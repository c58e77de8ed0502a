"""The write-path hallucination check and the answers mode of ``eval locomo`` on one real LoCoMo conversation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from anchormem.cli import app
from anchormem.eval.hallucination import run_hallucination

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "locomo" / "locomo10.json"
# evaluations on a real LoCoMo conversation: `pytest -m slow` (CI runs them in a step of their own)
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not DATA.is_file(), reason=f"LoCoMo data not found at {DATA}")]


def test_no_unsupported_fact_is_stored_even_when_the_llm_invents():
    r = run_hallucination(str(DATA), conversations=1, embedder="hash", invent_every=3)
    rules, llm = r["runs"]["rules"], r["runs"]["llm"]
    assert r["conversations"] == 1 and rules["turns"] == llm["turns"] == 419
    assert rules["stored_facts"] > 0 and rules["unsupported_stored"] == 0
    assert llm["unsupported_stored"] == 0
    # every invented fact was proposed to the write path and rejected by the grounding check
    assert llm["invented_proposed"] > 50
    assert llm["facts_rejected_by_grounding"] == llm["invented_proposed"]
    assert llm["stored_facts"] == rules["stored_facts"]  # the honest part of the replies matches the rules


def test_cli_eval_grounding_and_answers_json(monkeypatch):
    monkeypatch.delenv("ANCHORMEM_PATH", raising=False)
    runner = CliRunner()
    res = runner.invoke(app, ["--json", "eval", "grounding", "--data", str(DATA), "--conversations", "1",
                              "--embedder", "hash", "--invent-every", "10"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert {m: r["unsupported_stored"] for m, r in out["runs"].items()} == {"rules": 0, "llm": 0}
    res = runner.invoke(app, ["--json", "eval", "locomo", "--answers", "--data", str(DATA), "--conversations",
                              "1", "--embedder", "hash"])
    assert res.exit_code == 0, res.output
    ans = json.loads(res.stdout)
    assert len(ans["curve"]) >= 5
    assert 0.0 <= ans["at_default"]["abstain_rate"] <= 1.0 if "abstain_rate" in ans["at_default"] else True


def test_abstention_held_out_split_and_curve_matches_the_default():
    from anchormem.errors import InvalidInputError
    from anchormem.eval.grounding import run_abstention
    from anchormem.eval.locomo import normalize_evidence

    sample = json.loads(DATA.read_text(encoding="utf-8"))[1]
    expected = sum(1 for qa in sample["qa"] if int(qa["category"]) == 5 or normalize_evidence(qa.get("evidence")))
    from anchormem.answering.evidence import AnswerConfig

    tau = AnswerConfig().min_coverage
    r = run_abstention(str(DATA), only=[2], embedder="hash", thresholds=[tau])
    assert r["conversations"] == 1 and r["conversation_numbers"] == [2] and r["questions"] == expected
    # the swept curve re-selects from the recorded features (pairs included): at the default threshold it is ask
    at = {k: v for k, v in r["curve"][0].items() if k != "threshold"}
    assert r["curve"][0]["threshold"] == tau and at == r["at_default"]
    with pytest.raises(InvalidInputError):
        run_abstention(str(DATA), only=[0, 2], embedder="hash")
