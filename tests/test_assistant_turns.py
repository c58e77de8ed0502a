"""Assistant turns with nothing of their own (anchormem.ingest.echo, fix19): acknowledgements and echoes of the
user's words are not stored and ``add`` reports each as a NOOP with a reason; an assistant turn that adds
information (an answer, a booking number, a recommendation) is kept, ``source="assistant"``, never a user fact."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem.ingest.echo import ECHO_REASON, adds_nothing, new_content

T1 = datetime(2024, 5, 1, 9, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("user,reply", [
    ("I moved to Berlin last month", "Got it, I'll remember that you moved to Berlin!"),
    ("I moved to Berlin last month", "You moved to Berlin last month."),
    ("Can you help me plan a dinner?", "Sure, happy to help with that. Anything else?"),
    ("I'm allergic to peanuts.", "Thanks for letting me know, I'll keep that in mind."),
    ("我搬到上海了", "好的，已经帮你记下了～"),
    ("我搬到上海了，在一家银行上班", "收到！你搬到上海了，还在银行上班。"),
    ("我在一家银行做风控", "好的，了解了！还有什么需要帮忙的吗？"),
    ("下周三提醒我交房租", "没问题，下周三提醒你交房租。"),
])
def test_acknowledgements_and_echoes_add_nothing(user: str, reply: str) -> None:
    assert new_content(reply, [user]) == []
    assert adds_nothing(reply, [user])


@pytest.mark.parametrize("user,reply,new", [
    ("Book me a table for two tonight.", "Done: a table at Nobu at 7pm, confirmation 88213.",
     ["nobu", "7pm", "confirmation", "88213"]),
    ("What is the capital of Australia?", "The capital of Australia is Canberra.", ["canberra"]),
    ("帮我订明天的票", "你的订单号是 A1234。", ["订单号", "a1234"]),
])
def test_an_assistant_turn_with_information_has_content_of_its_own(user: str, reply: str, new: list[str]) -> None:
    assert new_content(reply, [user]) == new


def test_add_reports_an_acknowledgement_as_a_noop_with_its_reason_and_stores_it_not(mem) -> None:
    events = mem.add([{"role": "user", "content": "I moved to Berlin last month"},
                      {"role": "assistant", "content": "Got it, I'll remember that you moved to Berlin!"}],
                     user_id="u", timestamp=T1)
    assert [(e.event, e.memory.source) for e in events] == [("ADD", "user"), ("NOOP", "assistant")]
    assert events[1].reason == ECHO_REASON
    assert [m.text for m in mem.get_all(user_id="u")] == ["I moved to Berlin last month"]
    hits = mem.search("Where do I live?", user_id="u")
    assert [h.memory.text for h in hits] == ["I moved to Berlin last month"]
    assert "remember that you moved" not in mem.context(user_id="u", query="Where do I live?").text


def test_an_acknowledgement_in_its_own_add_is_tested_against_the_stored_user_turn(mem) -> None:
    mem.add("我搬到上海了", user_id="u", session_id="s", timestamp=T1)
    events = mem.add([{"role": "assistant", "content": "收到！你搬到上海了。"}], user_id="u", session_id="s",
                     timestamp=T1)
    assert [(e.event, e.reason) for e in events] == [("NOOP", ECHO_REASON)]
    assert [m.text for m in mem.get_all(user_id="u")] == ["我搬到上海了"]


def test_an_assistant_answer_is_kept_as_the_assistants_and_is_no_user_fact(mem) -> None:
    events = mem.add([{"role": "user", "content": "Book me a table for two tonight."},
                      {"role": "assistant", "content": "Done: a table at Nobu at 7pm, confirmation 88213."}],
                     user_id="u", timestamp=T1)
    kept = [e.memory for e in events if e.memory.source == "assistant"]
    assert [(e.event, m.text, m.role, m.fact) for e, m in zip(events[1:], kept)] == [
        ("ADD", "Done: a table at Nobu at 7pm, confirmation 88213.", "assistant", None)]
    assert mem.search("confirmation number", user_id="u")[0].memory.text.endswith("confirmation 88213.")
