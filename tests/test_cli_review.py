"""``anchormem review`` and ``anchormem due``/``done`` through typer's CliRunner (hash embedder)."""

from __future__ import annotations

import json

from functools import partial

import pytest

from cli_helpers import hash_cli_env, invoke  # noqa: F401 - hash_cli_env: a fixture

pytestmark = pytest.mark.usefixtures("hash_cli_env")
run = partial(invoke, json_out=True)


def test_review_cycle(tmp_path):
    db = str(tmp_path / "r.db")
    assert run(db, "add", "My phone number is 555-0100.", "--user", "al").exit_code == 0
    held = json.loads(run(db, "add", "My phone number is 555-0199.", "--user", "al").stdout)
    assert [e["event"] for e in held] == ["REVIEW"]
    listed = json.loads(run(db, "review", "list", "--user", "al").stdout)
    assert [(i["id"], i["status"]) for i in listed] == [(held[0]["review_id"], "pending")]
    assert "sensitive" in listed[0]["reason"]
    table = run(db, "review", "list", json_out=False)
    assert table.exit_code == 0 and "555-0199" in table.stdout
    applied = json.loads(run(db, "review", "approve", held[0]["review_id"]).stdout)
    assert [(e["event"], e["memory"]["text"]) for e in applied] == [
        ("ADD", "My phone number is 555-0199."), ("SUPERSEDE", "My phone number is 555-0100.")]
    again = run(db, "review", "approve", held[0]["review_id"])
    assert again.exit_code == 2 and "already approved" in again.stderr
    bad = run(db, "review", "list", "--status", "maybe")
    assert bad.exit_code == 2 and "--status" in bad.stderr
    assert json.loads(run(db, "review", "list").stdout) == []
    assert len(json.loads(run(db, "review", "list", "--status", "all").stdout)) == 1


def test_due_and_done(tmp_path):
    db = str(tmp_path / "d.db")
    assert run(db, "add", "Remind me to renew my passport.", "--user", "al").exit_code == 0
    assert run(db, "add", "I will call the bank tomorrow.", "--user", "al",
               "--timestamp", "2024-05-22T10:00:00Z").exit_code == 0
    due = json.loads(run(db, "due", "--user", "al").stdout)
    assert [(d["text"], (d["event_time"] or "")[:10]) for d in due] == [
        ("I will call the bank tomorrow.", "2024-05-23"), ("Remind me to renew my passport.", "")]
    assert [d["text"] for d in json.loads(run(db, "due", "--user", "al", "--no-undated").stdout)] == [
        "I will call the bank tomorrow."]
    done = json.loads(run(db, "done", due[0]["id"], "--reason", "called").stdout)
    assert done["valid_to"] is not None
    table = run(db, "due", "--user", "al", json_out=False)
    assert table.exit_code == 0 and "passport" in table.stdout and "bank" not in table.stdout
