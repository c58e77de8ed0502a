"""The ``anchormem`` CLI, driven through typer's CliRunner against a temp db with the hash embedder."""

from __future__ import annotations

import json

import pytest

from anchormem import Memory
from anchormem.cli import app
from anchormem.importers import parse, parse_locomo_date

from cli_helpers import hash_cli_env, invoke, invoke_json, runner  # noqa: F401 - hash_cli_env: a fixture

pytestmark = pytest.mark.usefixtures("hash_cli_env")
run, run_json = invoke, invoke_json


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "cli.db")


def test_add_then_search_json_returns_the_memory(db):
    events = run_json(db, "add", "I adopted a cat named Pixel last week.", "--user", "alice",
                      "--session", "s1", "--timestamp", "2024-03-20T20:00:00Z", "--meta", "topic=pets",
                      "--meta", "n=3")
    assert len(events) == 1
    ev = events[0]
    assert ev["event"] == "ADD"
    mem = ev["memory"]
    assert mem["text"] == "I adopted a cat named Pixel last week."
    assert mem["user_id"] == "alice" and mem["session_id"] == "s1"
    assert mem["created_at"].startswith("2024-03-20T20:00:00")
    assert mem["metadata"] == {"topic": "pets", "n": 3}
    assert mem["event_time"].startswith("2024-03-11")  # "last week" against the turn's own date

    hits = run_json(db, "search", "cat Pixel", "--user", "alice")
    assert [h["memory"]["id"] for h in hits] == [mem["id"]]
    assert hits[0]["score"] > 0
    assert hits[0]["explain"]["bm25_rank"] == 1

    # another user sees nothing
    assert run_json(db, "search", "cat Pixel", "--user", "bob") == []
    # filter on the metadata key, JSON filter language
    assert len(run_json(db, "search", "cat", "--user", "alice", "--filter", '{"topic": "pets"}')) == 1
    assert run_json(db, "search", "cat", "--user", "alice", "--filter", '{"topic": "work"}') == []


def test_human_output_and_get_list_update_history(db):
    res = run(db, "add", "My sister Lena lives in Toronto.", "--user", "alice")
    assert res.exit_code == 0 and "ADD" in res.output
    mid = run_json(db, "list", "--user", "alice")[0]["id"]

    res = run(db, "search", "Lena Toronto", "--user", "alice", "--explain")
    assert res.exit_code == 0
    assert "per-signal scores" in res.output and mid[:8] in res.output

    got = run_json(db, "get", mid)
    assert got["text"] == "My sister Lena lives in Toronto."

    upd = run_json(db, "update", mid, "My sister Lena lives in Montreal now.", "--reason", "moved")
    assert upd["text"] == "My sister Lena lives in Montreal now."
    hist = run_json(db, "history", mid)
    assert [h["event"] for h in hist] == ["ADD", "UPDATE"]
    assert hist[1]["old_text"] == "My sister Lena lives in Toronto."
    assert hist[1]["reason"] == "moved"
    res = run(db, "history", mid)  # 80 columns (no terminal): one block per version, no column cut
    assert res.exit_code == 0 and "v2 UPDATE" in res.output, res.output
    assert "  old: My sister Lena lives in Toronto." in res.output and "  reason: moved" in res.output

    res = run(db, "forget-memory", mid)
    assert res.exit_code == 0
    res = run(db, "get", mid)
    assert res.exit_code == 2
    assert mid in res.output and "Traceback" not in res.output


def test_ask_unrelated_question_abstains(db):
    run_json(db, "add", "I ran the Lisbon half marathon in 1:52:40.", "--user", "alice")
    ans = run_json(db, "ask", "What is the name of my dentist?", "--user", "alice")
    assert ans["abstained"] is True
    assert ans["citations"] == []
    assert ans["answer"] == "I have no record of that."
    res = run(db, "ask", "What is the name of my dentist?", "--user", "alice")
    assert res.exit_code == 0 and "I have no record of that." in res.output

    ans = run_json(db, "ask", "What was my half marathon time in Lisbon?", "--user", "alice")
    assert ans["abstained"] is False
    assert ans["citations"][0]["quote"] == "I ran the Lisbon half marathon in 1:52:40."


def test_import_json_chat(db, tmp_path):
    chat = [
        {"session_id": "s1", "timestamp": "2024-05-06T12:00:00Z", "messages": [
            {"role": "user", "content": "我对花生过敏。"},
            {"role": "assistant", "content": "好的，我会记住，推荐外卖时避开花生。"},
            {"role": "user", "content": "谢谢"},
        ]},
        {"session_id": "s2", "messages": [
            {"role": "user", "content": "I bought an e-bike for 3200 yuan.", "timestamp": "2024-05-22T11:00:00Z"},
        ]},
    ]
    f = tmp_path / "chat.json"
    f.write_text(json.dumps(chat, ensure_ascii=False), encoding="utf-8")
    out = run_json(db, "import", str(f), "--user", "lin")
    assert out["batches"] == 2 and out["messages"] == 4
    assert out["ADD"] == 3  # "谢谢" is chit-chat
    assert out["users"] == ["lin"]
    items = run_json(db, "list", "--user", "lin")
    assert [(m["text"], m["session_id"], m["source"]) for m in items] == [
        ("我对花生过敏。", "s1", "user"),
        ("好的，我会记住，推荐外卖时避开花生。", "s1", "assistant"),
        ("I bought an e-bike for 3200 yuan.", "s2", "user"),
    ]
    assert items[0]["created_at"].startswith("2024-05-06T12:00:00")
    # importing again only finds duplicates
    again = run_json(db, "import", str(f), "--user", "lin")
    assert again["ADD"] == 0 and again["NOOP"] == 3

    # {"messages": [...]} and JSONL shapes
    f2 = tmp_path / "msgs.json"
    f2.write_text(json.dumps({"messages": [{"role": "user", "content": "I live in Hangzhou."}]}), encoding="utf-8")
    assert run_json(db, "import", str(f2), "--user", "u2")["ADD"] == 1
    f3 = tmp_path / "msgs.jsonl"
    f3.write_text('{"role": "user", "content": "I swim on Tuesdays."}\n\n'
                  '{"role": "user", "content": "I drink green tea now."}\n', encoding="utf-8")
    res = run_json(db, "import", str(f3), "--user", "u3")
    assert res["ADD"] == 2 and res["batches"] == 1


LOCOMO = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Caroline", "dia_id": "D1:1", "text": "I went to a LGBTQ support group yesterday."},
                {"speaker": "Melanie", "dia_id": "D1:2", "text": "That's great! I painted a sunrise last week.",
                 "blip_caption": "a painting of a sunrise over a lake", "img_url": ["http://x"]},
            ],
            "session_2_date_time": "10:37 am on 27 June, 2023",
            "session_2": [
                {"speaker": "Melanie", "dia_id": "D2:1", "text": "We went camping with the kids."},
            ],
            "session_3_date_time": "9:00 am on 1 July, 2023",
        },
        "qa": [],
    }
]


def test_import_locomo(db, tmp_path):
    f = tmp_path / "locomo.json"
    f.write_text(json.dumps(LOCOMO), encoding="utf-8")
    out = run_json(db, "import", str(f), "--format", "locomo")
    assert out == {"batches": 2, "messages": 3, "ADD": 3, "NOOP": 0, "chitchat": 0, "users": ["conv-x"]}
    items = run_json(db, "list", "--user", "conv-x")
    assert [(m["speaker"], m["session_id"], m["created_at"][:19]) for m in items] == [
        ("Caroline", "session_1", "2023-05-08T13:56:00"),
        ("Melanie", "session_1", "2023-05-08T13:56:00"),
        ("Melanie", "session_2", "2023-06-27T10:37:00"),
    ]
    assert items[0]["event_time"].startswith("2023-05-07")  # "yesterday" against the session date
    assert items[1]["text"].endswith("[photo: a painting of a sunrise over a lake]")  # captioner lead dropped
    assert items[0]["metadata"] == {"sample_id": "conv-x", "session": 1}
    # --user overrides the sample id; detection works without --format
    out = run_json(db, "import", str(f), "--user", "carol")
    assert out["users"] == ["carol"] and out["ADD"] == 3


def test_importer_units():
    assert parse_locomo_date("1:56 pm on 8 May, 2023").isoformat() == "2023-05-08T13:56:00+00:00"
    assert parse_locomo_date("12:05 am on 1 January, 2024").isoformat() == "2024-01-01T00:05:00+00:00"
    batches = parse('[{"role": "human", "text": "hi there, I am Ann", "speaker": "Ann"}]', "json", user_id="u")
    assert batches == [({"user_id": "u"}, [{"role": "user", "content": "hi there, I am Ann", "name": "Ann"}])]


def test_export_is_valid_json_with_the_memories(db, tmp_path):
    run_json(db, "add", "I moved to Lisbon in March.", "--user", "alice")
    run_json(db, "add", "My budget for Japan is 3,000 euros.", "--user", "alice")
    run_json(db, "add", "Bob's secret.", "--user", "bob")
    res = run(db, "export", "--user", "alice")
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["format"] == "anchormem.export/1"
    assert data["user_id"] == "alice"
    assert sorted(m["text"] for m in data["memories"]) == ["I moved to Lisbon in March.",
                                                            "My budget for Japan is 3,000 euros."]
    assert all(len(data["history"][m["id"]]) == 1 for m in data["memories"])
    out = tmp_path / "alice.json"
    res = run(db, "export", "--user", "alice", "-o", str(out))
    assert res.exit_code == 0
    assert json.loads(out.read_text(encoding="utf-8"))["memories"] == data["memories"]


def test_forget_needs_user_and_confirmation(db):
    run_json(db, "add", "I moved to Lisbon in March.", "--user", "alice")
    run_json(db, "add", "I like jazz.", "--user", "bob")
    res = run(db, "forget")
    assert res.exit_code == 2
    assert "needs --user" in res.output and "Traceback" not in res.output
    res = run(db, "forget", "--user", "alice", input="n\n")
    assert res.exit_code == 1
    assert len(run_json(db, "list", "--user", "alice")) == 1
    res = run(db, "forget", "--user", "alice", input="y\n")
    assert res.exit_code == 0
    assert run_json(db, "list", "--user", "alice") == []
    assert [m["text"] for m in run_json(db, "list", "--user", "bob")] == ["I like jazz."]
    counts = run_json(db, "forget", "--user", "bob", "--yes", "--purge")
    assert counts.get("memories") == 1


def test_json_after_the_command_and_a_declined_forget_in_json(db):
    run_json(db, "add", "I moved to Lisbon in March.", "--user", "alice")
    res = run(db, "list", "--user", "alice", "--json")  # --json after the command, as most CLIs accept
    assert res.exit_code == 0, res.output
    assert [m["text"] for m in json.loads(res.stdout)] == ["I moved to Lisbon in March."]
    res = run(db, "add", "--user", "alice", "--", "--json")  # after --, a text like any other
    assert res.exit_code == 0 and "--json" in res.stdout and not res.stdout.lstrip().startswith("[")
    res = run(db, "forget", "--user", "alice", input="n\n", json_out=True)
    assert res.exit_code == 1
    assert json.loads(res.stdout) == {
        "error": {"type": "Aborted", "message": "not confirmed, nothing deleted (pass --yes)"}}
    assert len(run_json(db, "list", "--user", "alice")) == 2
    for answer in ("", "maybe\n"):  # no answer at all (stdin closed) or anything but y/yes: declined, JSON only
        res = run(db, "forget", "--user", "alice", input=answer, json_out=True)
        assert res.exit_code == 1 and json.loads(res.stdout)["error"]["type"] == "Aborted"
    assert len(run_json(db, "list", "--user", "alice")) == 2


@pytest.mark.parametrize("flt, msg", [
    ('{"no_such_key": 1}', "unknown filter key 'no_such_key'"),
    ('{"source": {"near": "user"}}', "unknown operator 'near'"),
    ("{not json", "--filter is not valid JSON"),
    ('["source"]', "must be a JSON object"),
])
def test_invalid_filter_exits_2_with_message(db, flt, msg):
    run_json(db, "add", "I moved to Lisbon in March.", "--user", "alice")
    for cmd in (["search", "Lisbon"], ["list"]):
        res = run(db, *cmd, "--user", "alice", "--filter", flt)
        assert res.exit_code == 2, res.output
        assert msg in res.output
        assert res.output.startswith("error:")
        assert "Traceback" not in res.output


def test_other_errors_exit_2(db, tmp_path):
    assert run(db, "add", "   ", "--user", "alice").exit_code == 2
    assert run(db, "add", "hello there", "--user", "alice", "--role", "robot").exit_code == 2
    assert run(db, "add", "I like tea.", "--user", "alice", "--timestamp", "not a date").exit_code == 2
    res = run(db, "import", str(tmp_path / "missing.json"), "--user", "alice")
    assert res.exit_code == 2 and "missing.json" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text("{oops", encoding="utf-8")
    res = run(db, "import", str(bad), "--user", "alice")
    assert res.exit_code == 2 and "not valid JSON" in res.output


def test_reindex_switches_embedder(db):
    run_json(db, "add", "I moved to Lisbon in March.", "--user", "alice")
    out = run_json(db, "reindex", "--embedder", "hash-64")
    assert out["memories"] == 1
    assert out["old_embedder"] == {"name": "hash-256", "dim": 256}
    assert out["embedder"] == {"name": "hash-64", "dim": 64}
    # the default (hash-256) no longer matches: a clear error, exit 2
    res = run(db, "search", "Lisbon", "--user", "alice")
    assert res.exit_code == 2 and "reindex" in res.output
    with Memory(db, embedder="hash-64") as mem:
        hits = mem.search("Lisbon March", user_id="alice")
        assert [h.memory.text for h in hits] == ["I moved to Lisbon in March."]
        assert hits[0].explain["dense"] > 0.3


def test_import_rejects_binary_file(db, tmp_path):
    f = tmp_path / "bin.json"
    f.write_bytes(b"\xff\xfe\x00garbage")
    res = run(db, "import", str(f), "--user", "alice")
    assert res.exit_code == 2 and res.output.startswith("error:")


def test_eval_locomo_on_a_tiny_file(db, tmp_path):
    sample = json.loads(json.dumps(LOCOMO))
    sample[0]["qa"] = [
        {"question": "What did Melanie paint?", "answer": "a sunrise", "evidence": ["D1:2"], "category": 4},
        {"question": "Where did Melanie go with the kids?", "answer": "camping", "evidence": ["D2:1"],
         "category": 4},
    ]
    f = tmp_path / "locomo10.json"
    f.write_text(json.dumps(sample), encoding="utf-8")
    res = run(db, "eval", "locomo", "--data", str(f), "--k", "1,5", "--no-audit", "--embedder", "hash",
              "--conversations", "1")
    assert res.exit_code == 0, res.output
    assert "| R@1 | R@5 |" in res.stdout
    assert "2 questions" in res.stdout
    out = run_json(db, "eval", "locomo", "--data", str(f), "--k", "5", "--no-audit", "--embedder", "hash")
    assert out["questions"] == 2 and out["conversations"] == 1 and list(out["ks"]) == [5]
    res = run(db, "eval", "locomo", "--data", str(tmp_path / "nope.json"))
    assert res.exit_code == 2 and "is not a file" in res.output
    res = run(db, "eval", "locomo", "--data", str(f), "--k", "a,b")
    assert res.exit_code == 2 and "--k" in res.output


def test_read_commands_refuse_a_missing_database(tmp_path):
    missing = tmp_path / "nowhere" / "typo.db"
    for args in (["list", "--user", "maya"], ["search", "lisbon", "--user", "maya"], ["ask", "where?", "--user", "maya"],
                 ["export", "--user", "maya"]):
        res = run(str(missing), *args)
        assert res.exit_code == 2, (args, res.output)
        assert "no database at" in res.output
    assert not missing.parent.exists()
    res = run(str(missing), "add", "I moved to Lisbon.", "--user", "maya")  # nor does add create the folder
    assert res.exit_code == 2 and "does not exist" in res.output and not missing.parent.exists()
    missing.parent.mkdir()
    res = run(str(missing), "add", "I moved to Lisbon.", "--user", "maya")
    assert res.exit_code == 0 and missing.exists()


def test_relabel_and_anchored_search_with_context(db):
    run_json(db, "add", "We had a picnic on the bank of the river.", "--user", "alice", "--session", "river")
    run_json(db, "add", "I opened a savings account at the bank.", "--user", "alice", "--session", "money")
    assert run_json(db, "relabel", "--user", "alice") == {"relabelled": 2}
    assert run_json(db, "relabel") == {"relabelled": 2}
    hits = run_json(db, "search", "What did I say about the bank?", "--user", "alice", "--recipe", "anchored",
                    "--context", "My stock portfolio lost money.", "-c", "I need a better interest rate.")
    assert hits[0]["memory"]["text"] == "I opened a savings account at the bank."
    assert hits[0]["explain"]["anchor"]["query_label_source"] == "query+context"
    assert "context_sim" in hits[0]["explain"]["anchor"]
    res = run(db, "relabel", "--user", "alice")
    assert res.exit_code == 0 and "relabelled 2 memories" in res.output
    res = run(db, "search", "What did I say about the bank?", "--user", "alice", "--recipe", "anchored",
              "--context", "My stock portfolio lost money.", "--explain")
    assert res.exit_code == 0 and "anchoring: query labels" in res.output and "(query+context)" in res.output
    assert "context" in res.output and hits[0]["memory"]["id"][:8] in res.output
    res = run(db, "search", "bank", "--user", "alice", "--explain")  # the default recipe anchors, without a conversation
    assert res.exit_code == 0 and "per-signal scores" in res.output and "anchoring: query labels" in res.output
    assert "(query+context)" not in res.output
    res = run(db, "search", "bank", "--user", "alice", "--explain", "--recipe", "hybrid_rrf")  # plain hybrid
    assert res.exit_code == 0 and "per-signal scores" in res.output and "anchoring" not in res.output


def test_json_errors_are_a_json_document_on_stdout(db):
    run_json(db, "add", "I like jazz.", "--user", "bob")
    res = run(db, "get", "nope", json_out=True)
    assert res.exit_code == 2
    assert json.loads(res.stdout) == {"error": {"type": "NotFoundError", "message": "no memory 'nope'"}}
    res = run(db, "get", "nope")  # without --json: only the red line
    assert res.exit_code == 2 and res.stdout == "" and "no memory" in res.output


@pytest.mark.parametrize("argv, message", [
    (["search"], "Missing argument 'query'."),
    (["search", "jazz"], "Missing option '--user' / '-u'."),
    (["search", "jazz", "--user", "bob", "--bogus"], "No such option: --bogus"),
    (["search", "jazz", "--user", "bob", "--limit", "many"], "Invalid value for '--limit'"),
    (["frobnicate"], "No such command 'frobnicate'."),
])
def test_json_usage_errors_are_a_json_document_on_stdout(db, argv, message):
    run_json(db, "add", "I like jazz.", "--user", "bob")  # a --json run before: no state leaks into the next
    res = run(db, *argv, json_out=True)
    assert res.exit_code == 2
    err = json.loads(res.stdout)["error"]
    assert err["type"] == "UsageError" and err["message"].startswith(message), err
    assert "Usage: anchormem" in res.stderr and message in res.stderr  # click's usage lines stay on stderr
    res = run(db, *argv)  # without --json: the usage lines only, nothing on stdout
    assert res.exit_code == 2 and res.stdout == "" and message in res.stderr


def test_a_bad_root_option_with_json_is_a_json_error(db):
    res = runner.invoke(app, ["--json", "--nope", "list"])
    assert res.exit_code == 2
    assert json.loads(res.stdout) == {"error": {"type": "UsageError", "message": "No such option: --nope"}}
    res = runner.invoke(app, ["--db", db, "list", "--user", "bob", "--json"])  # --json after the command counts
    assert res.exit_code == 2 and json.loads(res.stdout)["error"]["message"].startswith("no database at ")


def test_explain_shows_which_memory_a_current_value_succeeds(db):
    first = "Hi, I'm Sam. I live in Lisbon and I work as a nurse at Santa Maria hospital."
    run(db, "add", first, "--user", "sam", "--timestamp", "2024-01-05T10:00:00Z")
    run(db, "add", "I moved to Berlin last month.", "--user", "sam", "--timestamp", "2024-04-05T10:00:00Z")
    old = next(r for r in run_json(db, "list", "--user", "sam") if r["text"] == first)
    hits = run_json(db, "search", "Lisbon", "--user", "sam", "--explain", "--limit", "3")
    succ = [h for h in hits if h["explain"].get("successor_of")]
    assert succ and succ[0]["memory"]["text"] == "I moved to Berlin last month."
    assert succ[0]["explain"]["successor_of"] == old["id"]
    res = run(db, "search", "Lisbon", "--user", "sam", "--explain", "--limit", "3")
    assert res.exit_code == 0 and "succeeds" in res.output


def test_dates_shown_on_the_users_calendar(db, monkeypatch):
    run(db, "add", "I adopted a cat named Pixel.", "--user", "li", "--timestamp", "2024-03-20T23:30:00Z")
    assert "2024-03-20" in run(db, "list", "--user", "li").output
    monkeypatch.setenv("ANCHORMEM_TIMEZONE", "Asia/Shanghai")
    out = run(db, "list", "--user", "li").output
    assert "2024-03-21" in out and "2024-03-20" not in out


def test_search_table_marks_a_partly_superseded_hit(db):
    """fresh27 D16: after a move, the old home's turn ties with the new one in score; the table says which holds."""
    run(db, "add", "I live in Halifax and work as a pharmacist.", "--user", "kim", "--timestamp", "2025-01-02T09:00:00Z")
    run(db, "add", "I moved to Calgary last month.", "--user", "kim", "--timestamp", "2025-05-02T09:00:00Z")
    out = runner.invoke(app, ["--db", db, "search", "Halifax pharmacist Calgary", "--user", "kim"], env={"COLUMNS": "160"}).output
    rows = [ln for ln in out.splitlines() if "Halifax" in ln or "Calgary" in ln]
    assert any("Halifax" in r and "partly superseded" in r for r in rows), out
    assert any("Calgary" in r and "current" in r for r in rows), out
    # a search whose hits all hold now has no state column
    run(db, "add", "I live in Regina.", "--user", "lee", "--timestamp", "2025-01-02T09:00:00Z")
    out = runner.invoke(app, ["--db", db, "search", "Regina", "--user", "lee"], env={"COLUMNS": "160"}).output
    assert "Regina" in out and "state" not in out
