"""Export / import on SQLite: document validation, re-embedding with another embedder, the CLI round trip,
mem0's export shape, and a property test of the round trip. The cross-backend contract (round trip equality,
search, as_of, conflicts) is in tests/contract/test_portable_contract.py."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from anchormem import InvalidInputError, Memory, ScopeError
from anchormem.cli import app
from anchormem.importers import detect_format
from anchormem.memory import EXPORT_FORMAT
from anchormem.portable import MEM0_CONFIDENCE, ExportDocument
from anchormem.types import Label, Scope


def without(doc: dict, *keys: str) -> dict:
    return {k: v for k, v in doc.items() if k not in keys}


@pytest.fixture
def doc(mem) -> dict:
    """A small rich export: a superseded fact, an update, metadata, a Chinese turn with a speaker."""
    mem.add("I live in Berlin.", user_id="maya", timestamp="2024-01-01T10:00:00Z")
    mem.add("I moved to Munich.", user_id="maya", timestamp="2024-03-01T10:00:00Z")
    tea = mem.add("I drink green tea every morning.", user_id="maya", timestamp="2024-03-03T07:00:00Z",
                  metadata={"channel": "app"})[0].memory.id
    mem.update(tea, "I drink oolong tea every morning.", reason="switched")
    mem.add([{"role": "user", "content": "我上周三刚搬到杭州，月租4500元。", "name": "林晓"}], user_id="maya",
            session_id="s2", timestamp="2024-05-06T21:00:00+08:00")
    data = mem.export(user_id="maya")
    assert data["format"] == EXPORT_FORMAT and len(data["memories"]) == 6  # the 杭州 turn: utterance, home, rent
    return data


@pytest.fixture
def fresh(tmp_path):
    m = Memory(str(tmp_path / "fresh.db"), embedder="hash")
    yield m
    m.close()


def _empty(m: Memory, user: str = "maya") -> bool:
    return m.get_all(user_id=user, include_superseded=True) == [] and m.store.messages(Scope(user_id=user)) == []


# ================================================================ validation
def _mutate(path: str, value):
    def apply(d: dict) -> dict:
        d = copy.deepcopy(d)
        keys = path.split(".")
        target = d
        for k in keys[:-1]:
            target = target[int(k)] if isinstance(target, list) else target[k]
        last = keys[-1]
        if value is KeyError:
            del target[last]
        else:
            target[last] = value
        return d
    return apply


BAD = [
    (_mutate("format", "anchormem.export/2"), r"unknown export format 'anchormem\.export/2'"),
    (_mutate("memories.0.created_at", KeyError), r"memories\.0\.created_at: Field required"),
    (_mutate("memories.1.confidence", "high"), r"memories\.1\.confidence: Input should be a valid number"),
    (_mutate("memories.0.role", "robot"), r"memories\.0\.role: Input should be 'user', 'assistant' or 'system'"),
    (_mutate("memories.0.colour", "blue"), r"memories\.0\.colour: Extra inputs are not permitted"),
    (_mutate("memories.2.text", "  "), r"memories\.2\.text: text is empty"),
    (_mutate("memories.0.user_id", "noor"), r"belongs to user 'noor', the export is of 'maya'"),
    (_mutate("messages.0.timestamp", "last Tuesday"), r"messages\.0\.timestamp"),
    (_mutate("memories", {"a": 1}), r"memories: Input should be a valid list"),
    (_mutate("user_id", KeyError), r"user_id: Field required"),
]


@pytest.mark.parametrize("mutate, message", BAD)
def test_malformed_documents_raise_clear_errors_and_write_nothing(doc, fresh, mutate, message):
    with pytest.raises(InvalidInputError, match=message):
        fresh.import_memories(mutate(doc))
    assert _empty(fresh) and _empty(fresh, "noor")


def test_history_and_duplicate_ids_are_checked(doc, fresh):
    bad = copy.deepcopy(doc)
    bad["history"]["not-a-memory"] = []
    with pytest.raises(InvalidInputError, match="history of memory 'not-a-memory', which is not in 'memories'"):
        fresh.import_memories(bad)
    bad = copy.deepcopy(doc)
    bad["memories"].append(bad["memories"][0])
    with pytest.raises(InvalidInputError, match=f"memory id '{doc['memories'][0]['id']}' is listed twice"):
        fresh.import_memories(bad)
    bad = copy.deepcopy(doc)
    first = next(iter(bad["history"]))
    bad["history"][first].append(bad["history"][first][0])
    with pytest.raises(InvalidInputError, match="repeats a version"):
        fresh.import_memories(bad)
    assert _empty(fresh)


def test_bad_arguments_and_shapes(doc, fresh):
    with pytest.raises(InvalidInputError, match="on_conflict must be 'error', 'skip' or 'new_ids'"):
        fresh.import_memories(doc, on_conflict="overwrite")
    with pytest.raises(InvalidInputError, match="format must be"):
        fresh.import_memories(doc, format="csv")
    with pytest.raises(ScopeError, match="user_id"):
        fresh.import_memories(doc, user_id="  ")
    with pytest.raises(InvalidInputError, match="not an export"):
        fresh.import_memories({"memories": []})
    with pytest.raises(InvalidInputError, match="an anchormem export is a JSON object, got list"):
        fresh.import_memories([doc], format="anchormem")
    assert _empty(fresh)


def test_the_schema_accepts_exactly_what_export_writes(doc):
    parsed = ExportDocument.model_validate(doc)
    assert json.loads(parsed.model_dump_json())["memories"] == doc["memories"]
    assert ExportDocument.model_validate(json.loads(json.dumps(doc))).history.keys() == doc["history"].keys()


# ================================================================ round trips on SQLite
def test_round_trip_with_another_embedder(doc, tmp_path):
    """Vectors are not in the document: a store on another embedder re-embeds (dim 64 instead of 256)."""
    with Memory(str(tmp_path / "small.db"), embedder="hash-64") as other:
        other.import_memories(doc)
        again = other.export(user_id="maya")
        assert again["embedder"] == {"name": "hash-64", "dim": 64} != doc["embedder"]
        assert without(again, "exported_at", "embedder") == without(doc, "exported_at", "embedder")
        hit = other.search("I moved to Munich.", user_id="maya", recipe="dense", limit=1)[0]
        assert hit.memory.text == "I moved to Munich." and hit.explain["dense"] == pytest.approx(1.0, abs=1e-5)


def test_same_file_other_user_conflicts_because_ids_are_unique_per_file(mem, doc):
    with pytest.raises(InvalidInputError, match="already exists"):
        mem.import_memories(doc, user_id="noor")
    assert _empty(mem, "noor")


def test_json_text_round_trip_and_reimport_skip(doc, fresh):
    text = json.dumps(doc, ensure_ascii=False)
    fresh.import_memories(json.loads(text))
    assert without(fresh.export(user_id="maya"), "exported_at") == without(doc, "exported_at")
    counts = fresh.import_memories(json.loads(text), on_conflict="skip")
    assert counts["memories"] == 0 and counts["skipped_memories"] == len(doc["memories"])
    assert counts["skipped_messages"] == len(doc["messages"])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.lists(st.tuples(
    st.sampled_from(["I live in Lisbon.", "I moved to Porto.", "我喜欢绿茶。", "We met Ana on 3 May 2023.",
                     "Remind me to pay rent next Monday.", "我下周三去上海出差。", "The cat is called Pixel."]),
    st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2026, 1, 1),
                 timezones=st.just(timezone.utc)),
    st.sampled_from([None, "s1", "会话2"]),
    st.sampled_from([None, "Ana", "林晓"])), min_size=1, max_size=6))
def test_round_trip_property(turns):
    """Any sequence of adds (facts that supersede, commitments, Chinese, speakers, sessions) round-trips."""
    with Memory(":memory:", embedder="hash") as a, Memory(":memory:", embedder="hash") as b:
        for text, when, session, name in sorted(turns, key=lambda t: t[1]):
            a.add([{"role": "user", "content": text, "name": name}] if name else text, user_id="u",
                  session_id=session, timestamp=when)
        data = a.export(user_id="u")
        b.import_memories(json.loads(json.dumps(data)))
        assert without(b.export(user_id="u"), "exported_at") == without(data, "exported_at")


# ================================================================ CLI
runner = CliRunner()


def cli(db: str, *args: str) -> dict | list:
    res = runner.invoke(app, ["--db", db, "--json", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_cli_export_then_import_round_trips(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    monkeypatch.delenv("ANCHORMEM_PATH", raising=False)
    a, b, f = str(tmp_path / "a.db"), str(tmp_path / "other.db"), tmp_path / "f.json"
    cli(a, "add", "I live in Berlin.", "--user", "u", "--timestamp", "2024-01-01T10:00:00Z")
    cli(a, "add", "I moved to Munich.", "--user", "u", "--timestamp", "2024-03-01T10:00:00Z")
    cli(a, "add", "我上周三刚搬到杭州。", "--user", "u", "--session", "s1", "--meta", "channel=app")
    assert cli(a, "export", "--user", "u", "-o", str(f))["memories"] == 3
    assert detect_format(f.name, f.read_text(encoding="utf-8")) == "anchormem"
    counts = cli(b, "import", str(f))
    # history: 3 ADD, Munich closing Berlin and 杭州 (a move: home_city) closing Munich
    assert counts["memories"] == 3 and counts["messages"] == 3 and counts["history"] == 5
    original = json.loads(f.read_text(encoding="utf-8"))
    assert without(cli(b, "export", "--user", "u"), "exported_at") == without(original, "exported_at")
    res = runner.invoke(app, ["--db", b, "import", str(f)])
    assert res.exit_code == 2 and "already exists" in res.output
    assert cli(b, "import", str(f), "--on-conflict", "skip")["skipped_memories"] == 3
    moved = cli(b, "import", str(f), "--format", "anchormem", "--user", "noor", "--on-conflict", "skip")
    assert moved["memories"] == 0  # ids are unique per SQLite file: another user of the same file conflicts


def test_cli_imports_a_mem0_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    f = tmp_path / "mem0.json"
    f.write_text(json.dumps({"results": MEM0}), encoding="utf-8")
    assert detect_format(f.name, f.read_text(encoding="utf-8")) == "mem0"
    db = str(tmp_path / "m.db")
    assert cli(db, "import", str(f), "--format", "mem0", "--user", "alex")["memories"] == 3
    assert [m["text"] for m in cli(db, "list", "--user", "alex")][0] == "Prefers window seats on long flights"


# ================================================================ mem0
MEM0 = [  # mem0 get_all() items (OSS and platform fields), oldest first by created_at
    {"id": "a1b2c3d4-0000-4000-8000-000000000001", "memory": "Prefers window seats on long flights",
     "hash": "5d41402abc4b2a76b9719d911017c592", "metadata": {"category": "travel", "tags": ["flights", "seat"],
                                                               "source app": "ios"},
     "created_at": "2024-06-30T09:15:00.250000-07:00", "updated_at": "2024-07-02T10:00:00-07:00",
     "user_id": "alex", "agent_id": "travel-bot", "run_id": "trip-42", "actor_id": "Alex", "role": "user"},
    {"id": "a1b2c3d4-0000-4000-8000-000000000002", "memory": "Travelling to Paris next month", "hash": "x",
     "metadata": None, "created_at": "2024-07-25T23:57:00.108347-07:00", "updated_at": None, "user_id": "alex",
     "categories": ["travel", "plans"], "expiration_date": "2024-12-31", "score": 0.42},
    {"id": "a1b2c3d4-0000-4000-8000-000000000003", "memory": "对花生过敏", "user_id": "alex",
     "created_at": "2024-08-01T08:00:00+08:00", "immutable": True},
]


def test_mem0_mapping(fresh):
    counts = fresh.import_memories({"results": MEM0})
    assert counts == {"messages": 0, "memories": 3, "history": 3, "entities": counts["entities"],
                      "reviews": 0, "skipped_messages": 0, "skipped_memories": 0, "skipped_reviews": 0}
    seats, paris, peanuts = fresh.get_all(user_id="alex", include_superseded=True, show_expired=True)
    assert seats.text == "Prefers window seats on long flights"
    assert (seats.agent_id, seats.session_id, seats.speaker, seats.role) == ("travel-bot", "trip-42", "Alex", "user")
    assert (seats.kind, seats.source, seats.confidence) == ("utterance", "external", MEM0_CONFIDENCE)
    assert seats.metadata == {"category": "travel", "tags": '["flights", "seat"]', "source_app": "ios",
                              "mem0_id": "a1b2c3d4-0000-4000-8000-000000000001"}
    assert seats.created_at == seats.valid_from == datetime(2024, 6, 30, 16, 15, 0, 250000, tzinfo=timezone.utc)
    assert seats.updated_at == datetime(2024, 7, 2, 17, 0, tzinfo=timezone.utc)
    assert seats.source_message_ids == [] and seats.valid_to is None
    assert all(isinstance(lb, Label) for lb in seats.labels) and seats.labels
    # "next month" said on 25 July (-07:00) is August on the writer's calendar
    assert paris.event_time == datetime(2024, 8, 1, 7, 0, tzinfo=timezone.utc)
    assert paris.expires_at == datetime(2024, 12, 31, tzinfo=timezone.utc)
    assert paris.metadata == {"categories": '["travel", "plans"]', "mem0_id": "a1b2c3d4-0000-4000-8000-000000000002"}
    assert peanuts.created_at == datetime(2024, 8, 1, 0, 0, tzinfo=timezone.utc) and peanuts.agent_id is None
    hist = fresh.history(peanuts.id)
    assert [(h.version, h.event, h.new_text, h.actor) for h in hist] == [(1, "ADD", "对花生过敏", "import")]
    assert fresh.search("花生", user_id="alex", recipe="bm25")[0].memory.id == peanuts.id
    assert fresh.search("window seats", user_id="alex", recipe="dense")[0].memory.id == seats.id


def test_mem0_bare_list_user_override_and_errors(fresh):
    counts = fresh.import_memories(MEM0[2:], user_id="sam")
    assert counts["memories"] == 1 and [m.text for m in fresh.get_all(user_id="sam")] == ["对花生过敏"]
    assert fresh.get_all(user_id="alex") == []
    with pytest.raises(InvalidInputError, match="mem0 item 0 has no user_id"):
        fresh.import_memories([{"id": "z", "memory": "likes jazz"}], format="mem0")
    with pytest.raises(InvalidInputError, match=r"mem0 item 1: memory: Field required"):
        fresh.import_memories([{"memory": "ok", "user_id": "a"}, {"id": "q", "user_id": "a"}])
    with pytest.raises(InvalidInputError, match="not a mem0 export"):
        fresh.import_memories({"memories": []}, format="mem0")
    with pytest.raises(InvalidInputError, match="mem0 id 'd' is listed twice"):
        fresh.import_memories([{"id": "d", "memory": "a", "user_id": "a"}, {"id": "d", "memory": "b",
                                                                             "user_id": "a"}])
    assert fresh.get_all(user_id="a") == []


def test_docs_list_every_field_of_the_format():
    """docs/portable.md names every field the schema has, so the documented format cannot drift from the code."""
    from pathlib import Path

    from anchormem.portable import ExportHistory, ExportMemory, ExportMessage, ExportReview

    text = (Path(__file__).resolve().parents[1] / "docs" / "portable.md").read_text(encoding="utf-8")
    for model in (ExportDocument, ExportMemory, ExportHistory, ExportMessage, ExportReview):
        missing = [f for f in model.model_fields if f"`{f}`" not in text]
        assert missing == [], f"{model.__name__}: {missing}"


def test_new_ids_copy_a_user_into_another_user_of_the_same_store(mem, doc):
    """on_conflict="new_ids": the export's ids are taken in this file, so every row gets a new id and every
    reference follows (fresh20 D10: the README's "into another user" line imported nothing with "skip")."""
    with pytest.raises(InvalidInputError, match="already exists"):
        mem.import_memories(doc, user_id="lee")
    counts = mem.import_memories(doc, user_id="lee", on_conflict="new_ids")
    assert counts["memories"] == 6 and counts["skipped_memories"] == 0
    maya = mem.get_all(user_id="maya", include_superseded=True)
    lee = mem.get_all(user_id="lee", include_superseded=True)
    assert sorted(it.text for it in lee) == sorted(it.text for it in maya)
    assert not {it.id for it in lee} & {it.id for it in maya}
    ids = {it.id for it in lee}
    closed = [it for it in lee if it.superseded_by]
    assert closed and all(it.superseded_by in ids for it in closed)  # the supersede link points into the copy
    assert all(c.fact_id in ids for it in lee for c in it.claims)
    for q in ("Where do I live?", "Where did I live before?", "What tea do I drink?"):
        assert [c.text for c in mem.ask(q, user_id="lee").citations] == \
            [c.text for c in mem.ask(q, user_id="maya").citations]
    assert [h.event for h in mem.history(next(it.id for it in lee if it.text.startswith("I drink")))] == \
        [h.event for h in mem.history(next(it.id for it in maya if it.text.startswith("I drink")))]
    assert len(mem.get_all(user_id="maya", include_superseded=True)) == 6  # the original is untouched


def test_new_ids_is_for_anchormem_exports(fresh):
    with pytest.raises(InvalidInputError, match="new_ids' applies to anchormem exports"):
        fresh.import_memories([{"id": "m1", "memory": "I like tea", "user_id": "u"}], on_conflict="new_ids")
