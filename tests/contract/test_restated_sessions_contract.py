"""A restatement in another session belongs to that session too (issue 22): one memory, two sources."""

from __future__ import annotations

T1, T2 = "2024-01-10T10:00:00Z", "2024-02-10T10:00:00Z"


def test_a_sentence_said_in_two_sessions_is_one_memory_of_both(mem):
    a = mem.add("My favourite band is Radiohead and I saw them twice.", user_id="u", session_id="s1", timestamp=T1)
    b = mem.add("My favourite band is Radiohead and I saw them twice.", user_id="u", session_id="s2", timestamp=T2)
    ids_a = {e.memory.id for e in a}
    assert {e.event for e in b} == {"NOOP"} and {e.memory.id for e in b} == ids_a
    one = mem.get(next(iter(ids_a)))
    assert len(one.source_message_ids) == 2
    assert {m.id for m in mem.get_all(user_id="u", session_id="s2")} == ids_a
    assert {m.id for m in mem.get_all(user_id="u", session_id="s1")} == ids_a
    assert ids_a & {h.memory.id for h in mem.search("Radiohead", user_id="u", session_id="s2")}


def test_deleting_one_session_keeps_the_memory_for_the_other(mem):
    mem.add("I live in Lisbon.", user_id="u", session_id="s1", timestamp=T1)
    mem.add("Only said in the first session: the code is 4512.", user_id="u", session_id="s1", timestamp=T1)
    again = mem.add("I live in Lisbon.", user_id="u", session_id="s2", timestamp=T2)
    kept_id = again[0].memory.id
    s2_turn = [m["id"] for m in mem.store.messages(mem._scope("u"), session_id="s2")]
    mem.delete_all(user_id="u", session_id="s1", purge=True)
    kept = mem.get(kept_id)
    assert kept.source_message_ids == s2_turn and kept.session_id == "s2"
    assert [m.text for m in mem.get_all(user_id="u")] == ["I live in Lisbon."]
    assert [m.id for m in mem.get_all(user_id="u", session_id="s2")] == [kept_id]
    assert mem.get_all(user_id="u", session_id="s1") == []
    assert [m["session_id"] for m in mem.store.messages(mem._scope("u"))] == ["s2"]  # only s1's turns purged
    assert [h.event for h in mem.history(kept_id)][-1] == "UNCITE"
