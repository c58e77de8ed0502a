"""Consolidation never makes a memory unanswerable (issue 22): ages on the user's own timeline; an archived memory
is reached through the summary that rolled it up, and cited."""

from __future__ import annotations

from anchormem import Memory


def _mem():
    m = Memory(":memory:", embedder="hash", llm=None)
    m.add([{"role": "user", "content": "My sister Ana is getting married in Porto on 14 June 2023."},
           {"role": "assistant", "content": "The São João festival fills Porto that month."}], user_id="u", session_id="s1",
          timestamp="2023-01-10T10:00:00Z")
    m.add("I adopted a cat named Miso.", user_id="u", session_id="s2", timestamp="2023-03-10T10:00:00Z")
    return m


def test_archiving_age_is_measured_on_the_users_timeline_not_the_wall_clock():
    with _mem() as m:
        rep = m.consolidate(user_id="u")  # the wall clock is years later; the user's latest turn is 2023-03-10
        texts = {x.text: x.tier for x in m.get_all(user_id="u", filters={"tier": {"in": ["warm", "cold"]}})
                 if x.kind != "summary"}
        assert texts == {"My sister Ana is getting married in Porto on 14 June 2023.": "cold",
                         "The São João festival fills Porto that month.": "cold", "I adopted a cat named Miso.": "warm"}
        assert len(rep.archived) == 2


def test_an_archived_memory_stays_citable_through_its_summary():
    with _mem() as m:
        m.consolidate(user_id="u")
        ans = m.ask("Where is my sister getting married?", user_id="u")
        assert ans.text == 'On 2023-01-10, you said: "My sister Ana is getting married in Porto on 14 June 2023."'
        assert [c.tier for c in ans.citations] == ["cold"]
