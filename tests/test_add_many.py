"""Memory.add_many: add's semantics in batches, precomputed vectors checked and normalised, one transaction per
batch (a failure inside one leaves nothing of it), everything validated before the first write."""

from __future__ import annotations

import numpy as np
import pytest

from anchormem import Memory
from anchormem.errors import InvalidInputError, StoreError
from anchormem.ingest.pipeline import embedding_text


def _log():
    t = "2024-01-0{}T10:0{}:00Z"
    return [
        {"role": "user", "content": "I live in Berlin.", "timestamp": t.format(1, 0), "name": "Ann"},
        {"role": "user", "content": "I adopted a cat named Pixel.", "timestamp": t.format(1, 1), "name": "Ann"},
        {"role": "assistant", "content": "A cat is lovely company.", "timestamp": t.format(1, 2)},
        {"role": "user", "content": "ok thanks", "timestamp": t.format(1, 3)},
        {"role": "user", "content": "I work as a nurse at the city hospital.", "timestamp": t.format(2, 0)},
        {"role": "user", "content": "I live in Berlin.", "timestamp": t.format(2, 1), "name": "Ann"},
        {"role": "user", "content": "I moved to Munich.", "timestamp": t.format(3, 0), "name": "Ann"},
        {"role": "user", "content": "I have to renew my passport by Friday.", "timestamp": t.format(3, 1)},
    ]


def _state(m: Memory, user: str = "ann"):
    return sorted((x.kind, x.text, x.valid_to is None, x.fact.slot if x.fact else None, x.created_at.isoformat())
                  for x in m.get_all(user_id=user, include_superseded=True))


def _events(evs):
    out: dict[str, int] = {}
    for e in evs:
        out[e.event] = out.get(e.event, 0) + 1
    return out


def test_same_memories_and_events_as_add_whatever_the_batch_size():
    with Memory(":memory:", embedder="hash", llm=None, cache=False) as one:
        want_events = _events(one.add(_log(), user_id="ann"))
        want = _state(one)
    for size in (1, 3, 500):
        with Memory(":memory:", embedder="hash", llm=None, cache=False) as m:
            got = m.add_many(_log(), user_id="ann", batch_size=size, return_events=True)
            assert _state(m) == want
            assert got["messages"] == 8 and got["batches"] == -(-8 // size) and got["skipped"] == 0
            assert {k: v for k, v in got.items() if k.isupper() and v} == want_events
            assert _events(got["events"]) == want_events
    assert want_events["SUPERSEDE"] >= 1 and want_events["NOOP"] == 1  # Berlin closed by Munich; Berlin said twice


def test_precomputed_vectors_are_normalised_and_stored_for_each_messages_memories():
    log = _log()
    with Memory(":memory:", embedder="hash", llm=None, cache=False) as m:
        raw = m.embedder.embed_documents([embedding_text(x["content"], x.get("name")) for x in log]) * 3.0
        got = m.add_many(log, user_id="ann", vectors=raw.astype(np.float64), return_events=True)
        added = [e.memory for e in got["events"] if e.event.startswith("ADD")]
        vecs = m.store.get_vectors(m.tenant, [it.id for it in added])
        by_text = {x["content"]: i for i, x in enumerate(log)}
        for it in added:
            want = raw[by_text[it.source_text]] / np.linalg.norm(raw[by_text[it.source_text]])
            np.testing.assert_allclose(vecs[it.id], want, atol=1e-6)
        assert m.search("Where does Ann live?", user_id="ann", limit=3)  # searchable through the public API


@pytest.mark.parametrize("bad, why", [
    (lambda n, d: np.zeros((n, d), dtype=np.float32) + 1, None),  # fine: the control
    (lambda n, d: np.ones((n - 1, d)), "shape"),
    (lambda n, d: np.ones((n, d + 1)), "shape"),
    (lambda n, d: np.ones(n * d), "shape"),
    (lambda n, d: np.where(np.eye(n, d) > 0, np.nan, 1.0), "NaN or infinite"),
    (lambda n, d: np.where(np.eye(n, d) > 0, np.inf, 1.0), "NaN or infinite"),
    (lambda n, d: np.vstack([np.zeros((1, d)), np.ones((n - 1, d))]), "all zeros"),
    (lambda n, d: np.full((n, d), "x"), "dtype"),
    (lambda n, d: np.ones((n, d), dtype=complex), "dtype"),
    (lambda n, d: [[object()] * d] * n, "dtype"),
])
def test_bad_vectors_are_refused_before_anything_is_written(bad, why):
    with Memory(":memory:", embedder="hash", llm=None, cache=False) as m:
        n, d = len(_log()), m.embedder.dim
        if why is None:
            assert m.add_many(_log(), user_id="ann", vectors=bad(n, d))["ADD"] > 0
            return
        with pytest.raises(InvalidInputError, match=why):
            m.add_many(_log(), user_id="ann", vectors=bad(n, d), batch_size=2)
        assert m.get_all(user_id="ann") == [] and m.store.count_messages(m._scope("ann")) == 0


def test_a_bad_message_anywhere_stops_the_call_before_the_first_batch():
    log = _log() + [{"role": "user", "content": "   "}]
    with Memory(":memory:", embedder="hash", llm=None, cache=False) as m:
        with pytest.raises(InvalidInputError, match="message 8"):
            m.add_many(log, user_id="ann", batch_size=2)
        log[-1] = {"role": "user", "content": "fine", "metadata": {"k": object()}}
        with pytest.raises(InvalidInputError, match="message 8"):
            m.add_many(log, user_id="ann", batch_size=2)
        assert m.get_all(user_id="ann") == []
        for size in (0, -1, True, 1001, "2"):
            with pytest.raises(InvalidInputError, match="batch_size"):
                m.add_many(_log(), user_id="ann", batch_size=size)
        for msgs in ([], "I like tea.", {"role": "user", "content": "x"}, [1]):
            with pytest.raises(InvalidInputError):
                m.add_many(msgs, user_id="ann")


def test_a_failure_inside_a_batch_rolls_that_batch_back_and_keeps_the_earlier_ones(tmp_path):
    log = [{"role": "user", "content": f"I visited museum number {i} today.", "timestamp": f"2024-02-{i + 1:02d}"}
           for i in range(9)]
    log[7]["content"] = "BOOM I visited a museum today."  # the second memory of the third batch fails to insert
    with Memory(str(tmp_path / "m.db"), embedder="hash", llm=None, cache=False) as m:
        m.store._conn().execute(  # a failure inside the store's transaction, whatever code path writes the row
            "CREATE TRIGGER boom BEFORE INSERT ON memories WHEN NEW.text LIKE 'BOOM%' "
            "BEGIN SELECT RAISE(ABORT, 'injected failure'); END")
        ticks: list[tuple[int, int]] = []
        with pytest.raises(StoreError, match="injected failure") as err:
            m.add_many(log, user_id="ann", batch_size=3, on_progress=lambda *a: ticks.append(a))
        assert "2 batch(es) before this one stay written (6 of 9 messages)" in " ".join(err.value.__notes__)
        assert ticks == [(3, 9), (6, 9)]  # cumulative (done, total)
        kept = sorted(x.text for x in m.get_all(user_id="ann"))
        assert kept == sorted(x["content"] for x in log[:6])  # nothing of messages 6-8, not even message 6
        assert m.store.count_messages(m._scope("ann")) == 6  # their source turns rolled back with them
        assert {h.event for x in m.get_all(user_id="ann") for h in m.history(x.id)} == {"ADD"}


def test_untimed_messages_take_their_neighbours_time_across_batches():
    log = [{"role": "user", "content": "I adopted a cat named Pixel.", "timestamp": "2024-05-01T09:00:00Z"},
           {"role": "user", "content": "I bought a red bicycle."},
           {"role": "user", "content": "I started learning the violin."},
           {"role": "user", "content": "I planted tomatoes in the garden.", "timestamp": "2024-06-01T09:00:00Z"},
           {"role": "user", "content": "I painted the kitchen blue."}]
    with Memory(":memory:", embedder="hash", llm=None, cache=False) as a, \
            Memory(":memory:", embedder="hash", llm=None, cache=False) as b:
        a.add(log, user_id="ann")
        b.add_many(log, user_id="ann", batch_size=2)
        assert _state(a) == _state(b)
        days = {x.text: x.created_at.date().isoformat() for x in b.get_all(user_id="ann")}
        assert days["I started learning the violin."] == "2024-05-01"
        assert days["I painted the kitchen blue."] == "2024-06-01"


def test_batches_also_respect_max_add_chars_and_tool_steps_are_skipped():
    log = [{"role": "user", "content": f"I read book number {i} about {'history ' * 5}."} for i in range(6)]
    log.insert(2, {"role": "tool", "tool_call_id": "c1", "content": "{}"})
    with Memory(":memory:", embedder="hash", llm=None, cache=False, max_add_chars=140) as m:
        got = m.add_many(log, user_id="ann", vectors=np.ones((7, m.embedder.dim)))
        assert got["batches"] == 3 and got["messages"] == 6 and got["skipped"] == 1 and got["ADD"] == 6


def test_chitchat_turns_are_counted_not_silently_dropped():
    with Memory(":memory:", embedder="hash", llm=None, cache=False) as m:
        got = m.add_many(["ok thanks", "你好", "hi", "I moved to Berlin last month."], user_id="ann", batch_size=2)
        assert (got["messages"], got["chitchat"], got["ADD"] >= 1, got["batches"]) == (4, 3, True, 2)
        texts = {x.text for x in m.get_all(user_id="ann")}
        assert "I moved to Berlin last month." in texts and not texts & {"ok thanks", "你好", "hi"}
