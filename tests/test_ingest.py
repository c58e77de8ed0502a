"""The write path pieces: input validation, chit-chat, classification, chunking, unknown message keys."""

from __future__ import annotations

import warnings
from datetime import datetime, timedelta, timezone

import pytest

from anchormem import InvalidInputError, Memory, Settings
from anchormem.ingest.classify import content_hash, is_chitchat, is_question
from anchormem.ingest.normalize import check_text, normalize_messages
from anchormem.text.segment import chunk_text

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("text", ["ok thanks, bye!", "好的谢谢，拜拜", "Thanks, Mel!", "Okay!", "嗯嗯，收到",
                                  "haha thank you so much", "👍", "haha that's funny", "谢谢你的帮助！", "no worries",
                                  "Thanks for your help!", "That's amazing!", "太好了，谢谢！", "Glad to hear that!"])
def test_chitchat_detected(text):
    assert is_chitchat(text) is True


@pytest.mark.parametrize("text", ["ok, my flight is at 9", "Thanks, I moved to Berlin.", "好的，我明天去北京",
                                  "Mel is my sister.", "I am happy with my new job.", "I'm good at chess.",
                                  "It's my birthday.", "I help my mom every day."])
def test_content_is_not_chitchat(text):
    assert is_chitchat(text) is False


def test_chitchat_stores_nothing(mem):
    for text in ("ok thanks, bye!", "好的谢谢，拜拜", "Thanks, Mel!", "hi"):
        assert [(e.event, e.reason) for e in mem.add(text, user_id="A")] == [("SKIP", "chit-chat: nothing to remember")]
    assert mem.get_all(user_id="A") == []
    assert mem.search("thanks bye", user_id="A") == []


def test_questions_and_hashes():
    assert is_question("Can you explain how to reverse a linked list?") is True
    assert is_question("你今天去哪里了？") is True
    assert is_question("I went to the park.") is False
    h = content_hash("My tea is oolong.", kind="utterance", source="user", speaker=None)
    assert h == content_hash("  my TEA is   oolong ", kind="utterance", source="user", speaker=None)
    assert h != content_hash("My tea is oolong.", kind="assistant", source="assistant", speaker=None)


def test_check_text_rules():
    assert check_text("caf\u0065\u0301", what="t", max_chars=10) == "café"
    assert check_text(b"\xe4\xbd\xa0\xe5\xa5\xbd", what="t", max_chars=10) == "你好"
    assert check_text("a\x00b", what="t", max_chars=10) == "a b"
    for bad in ("", " \n", b"\xff", "x\udc80", 3):
        with pytest.raises(InvalidInputError):
            check_text(bad, what="t", max_chars=10)
    with pytest.raises(InvalidInputError, match="over the limit of 10"):
        check_text("x" * 11, what="t", max_chars=10)


def test_normalize_messages_timestamps_keep_offset():
    msgs = normalize_messages([{"role": "user", "content": "hi there", "timestamp": "2025-07-25T07:00:00+08:00"},
                               {"role": "assistant", "content": "hello"}], default_time=T0, max_chars=100)
    assert msgs[0].timestamp == datetime(2025, 7, 24, 23, tzinfo=timezone.utc)
    assert msgs[0].timestamp.utcoffset() == timedelta(hours=8)
    assert msgs[1].timestamp == T0 and msgs[1].role == "assistant"


def test_unknown_message_keys_are_ignored_with_a_warning():
    with pytest.warns(UserWarning, match="ignoring unknown keys kind, session_id"):
        msgs = normalize_messages([{"kind": "note", "session_id": "s1", "content": "likes hiking"}],
                                  default_time=T0, max_chars=100)
    assert [(m.role, m.content) for m in msgs] == [("user", "likes hiking")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        normalize_messages([{"role": "user", "content": "plain"}], default_time=T0, max_chars=100)


def test_chunking_long_turns(mem):
    sentences = [f"Sentence number {i} talks about topic {i} in some detail." for i in range(30)]
    text = " ".join(sentences)
    chunks = chunk_text(text, 200)
    assert all(len(c) <= 200 for c in chunks) and " ".join(chunks) == text
    evs = mem.add(text, user_id="A")
    assert [e.memory.text for e in evs] == chunk_text(text, 600)
    assert len({e.memory.source_message_ids[0] for e in evs}) == 1
    assert all(e.memory.source_text == text for e in evs)


def test_max_message_chars_from_settings(tmp_path):
    with Memory(str(tmp_path / "s.db"), embedder="hash", settings=Settings(max_message_chars=200)) as m:
        m.add("x" * 200, user_id="A")
        with pytest.raises(InvalidInputError, match="500 characters is over the limit of 200"):
            m.add("y" * 500, user_id="A")
        assert [len(x.text) for x in m.get_all(user_id="A")] == [200]


def test_an_over_long_query_names_the_query_limit_not_the_message_limit(tmp_path):
    """A query over ``max_query_chars`` is refused with that setting's name (it used to say max_message_chars)."""
    with Memory(str(tmp_path / "q.db"), embedder="hash", settings=Settings(max_query_chars=50)) as m:
        m.add("I keep my savings at the bank.", user_id="A")
        with pytest.raises(InvalidInputError, match=r"query: 60 characters is over the limit of 50 \(shorten the "
                                                    r"query, or raise max_query_chars\)"):
            m.search("b" * 60, user_id="A")
        with pytest.raises(InvalidInputError, match="raise max_query_chars"):
            m.context(user_id="A", session_id="s", query="b" * 60, budget_tokens=200)
        assert [h.memory.text for h in m.search("savings bank", user_id="A")] == ["I keep my savings at the bank."]


def test_system_turns_are_not_stored(mem):
    evs = mem.add([{"role": "system", "content": "You are a helpful assistant. Always answer briefly."},
                   {"role": "user", "content": "I moved to Lisbon."}], user_id="A")
    assert [e.memory.text for e in evs] == ["I moved to Lisbon."]
    assert [m["role"] for m in mem.export(user_id="A")["messages"]] == ["user"]


@pytest.mark.parametrize("text", ["Wow! What got you into running?", "Thanks! Do you have any tips?",
                                  "Can you suggest me a movie?", "好啊！你周末去哪儿了？"])
def test_asks_only_turns(text):
    from anchormem.ingest.classify import asks_only

    assert asks_only(text) is True


@pytest.mark.parametrize("text", ["I walked 8,000 steps today! Can you believe it?", "我今天走了八千步。你呢？",
                                  "That's interesting. Do you have any tips?", "I love jazz.", ""])
def test_turns_that_state_something_are_not_asks_only(text):
    from anchormem.ingest.classify import asks_only

    assert asks_only(text) is False


@pytest.mark.parametrize("text", ["Will do! Have a great day.", "Is a mole zoanthrope and a master of ninja arts."])
def test_a_question_word_without_a_question_mark_is_not_asking(text):
    from anchormem.ingest.classify import asks_only

    assert is_question(text) is True  # the turn's kind reads the first word
    assert asks_only(text) is False
