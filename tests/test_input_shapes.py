"""Shapes callers get wrong: ``search``/``ask`` ``context`` (bytes turns, generators, blank turns, a bare string,
OpenAI-style messages) and ``update`` ``labels`` (a bare string). Each mistake is refused with an InvalidInputError
that names the problem; bytes are read as strict UTF-8 (as ``add`` and ``search`` read them), nothing is dropped
silently but turns without conversation text (tool steps, an image alone)."""

from __future__ import annotations

import pytest

from anchormem import InvalidInputError, Memory

PHONE = ["My phone has been really slow lately.", "I want to buy a new phone."]


@pytest.fixture
def m():
    mem = Memory(":memory:", embedder="hash", llm=None, cache=False)
    mem.add("I went apple picking with the kids.", user_id="u", session_id="fruit")
    mem.add("My Apple phone froze after the update.", user_id="u", session_id="phone")
    yield mem
    mem.close()


def _anchor_source(hits):
    return hits[0].explain["anchor"]["query_label_source"]


def test_a_generator_of_turns_is_the_same_conversation_as_a_list(m):
    as_list = m.search("how is the apple?", user_id="u", context=list(PHONE))
    as_gen = m.search("how is the apple?", user_id="u", context=(t for t in PHONE))
    as_tuple = m.search("how is the apple?", user_id="u", context=tuple(PHONE))
    assert _anchor_source(as_list) == "query+context"
    for other in (as_gen, as_tuple):  # scores move a little: each search bumps the hits' access counts
        assert [h.memory.id for h in other] == [h.memory.id for h in as_list]
        for h, ref in zip(other, as_list):
            a, b = h.explain["anchor"], ref.explain["anchor"]
            assert (a["query_labels"], a["query_label_source"]) == (b["query_labels"], b["query_label_source"])
            assert a["context_sim"] == pytest.approx(b["context_sim"], abs=1e-6)


def test_the_hot_cache_keys_a_generator_conversation_by_its_turns():
    mem = Memory(":memory:", embedder="hash", llm=None)  # cache on
    mem.add("My Apple phone froze after the update.", user_id="u")
    first = mem.search("apple", user_id="u", context=(t for t in PHONE))
    again = mem.search("apple", user_id="u", context=list(PHONE))
    assert [h.memory.id for h in again] == [h.memory.id for h in first]
    assert mem.stats["cache_search_hits"] == 1
    mem.close()


@pytest.mark.parametrize("turns, index", [([PHONE[0].encode(), PHONE[1]], 0),
                                          ([PHONE[0], bytearray(PHONE[1].encode())], 1),
                                          ([PHONE[0], {"role": "user", "content": PHONE[1].encode()}], 1)])
def test_a_bytes_turn_is_read_as_utf8_as_add_and_search_read_bytes(m, turns, index):
    as_str = m.search("how is the apple?", user_id="u", context=list(PHONE))
    as_bytes = m.search("how is the apple?", user_id="u", context=turns)
    assert [h.memory.id for h in as_bytes] == [h.memory.id for h in as_str]
    assert as_bytes[0].memory.text == "My Apple phone froze after the update."
    assert as_bytes[0].explain["anchor"]["query_labels"] == as_str[0].explain["anchor"]["query_labels"]
    bad = list(turns)
    bad[index] = b"\xff\xfe slow" if not isinstance(turns[index], dict) else {"role": "user", "content": b"\xffslow"}
    for call in (m.search, m.ask):
        with pytest.raises(InvalidInputError, match=rf"context\[{index}\]: not valid UTF-8"):
            call("apple?", user_id="u", context=bad)


def test_openai_content_parts_and_image_only_turns_in_the_conversation(m):
    parts = [{"role": "user", "content": [{"type": "text", "text": PHONE[0]},
                                          {"type": "image_url", "image_url": {"url": "data:,"}}]},
             {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}]},  # no text
             {"role": "developer", "content": "Answer briefly."},
             {"role": "user", "content": [{"type": "input_text", "text": PHONE[1]}]}]
    hits = m.search("how is the apple?", user_id="u", context=parts)
    alone = m.search("how is the apple?", user_id="u", context=[*PHONE[:1], {"role": "system",
                                                                            "content": "Answer briefly."}, PHONE[1]])
    assert [h.memory.id for h in hits] == [h.memory.id for h in alone]
    assert hits[0].memory.text == "My Apple phone froze after the update."


@pytest.mark.parametrize("blank, index", [([""], 0), (["My phone is slow.", "   "], 1), (["\n\t"], 0),
                                          ([{"role": "user", "content": " "}], 0)])
def test_a_blank_turn_is_refused_instead_of_silently_turning_anchoring_off(m, blank, index):
    with pytest.raises(InvalidInputError) as exc:
        m.search("how is the apple?", user_id="u", context=blank)
    assert f"context[{index}]" in str(exc.value) and "blank" in str(exc.value)


def test_tool_steps_of_an_openai_message_list_are_left_out_of_the_conversation(m):
    """A chat's messages passed as they are: the tool call (content None) and the tool's result are not turns; the
    text turns anchor the query exactly as the same turns alone do."""
    messages = [{"role": "user", "content": PHONE[0]},
                {"role": "assistant", "content": None,
                 "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "{\"model\": \"X12\"}"},
                {"role": "user", "content": PHONE[1]}]
    hits = m.search("how is the apple?", user_id="u", context=messages)
    alone = m.search("how is the apple?", user_id="u", context=list(PHONE))
    assert [h.memory.text for h in hits] == [h.memory.text for h in alone]
    assert hits[0].memory.text == "My Apple phone froze after the update."
    assert _anchor_source(hits) == _anchor_source(alone)
    assert _anchor_source(hits).startswith("query+context")
    with pytest.raises(InvalidInputError, match=r"context\[0\] content"):  # content None without a tool call
        m.search("how is the apple?", user_id="u", context=[{"role": "assistant", "content": None}])


def test_no_conversation_is_none_or_an_empty_list(m):
    for none in (None, [], (), iter([])):
        hits = m.search("how is the apple?", user_id="u", context=none)
        # the default recipe anchors the query by its own words (or the recent session), with no conversation
        assert hits and not hits[0].explain["anchor"]["query_label_source"].startswith("query+context")
        assert "context_sim" not in hits[0].explain["anchor"]


@pytest.mark.parametrize("bare", ["My phone is slow.", b"My phone is slow."])
def test_a_bare_string_context_is_refused_with_the_fix(m, bare):
    with pytest.raises(InvalidInputError) as exc:
        m.search("apple", user_id="u", context=bare)
    msg = str(exc.value)
    assert "context must be a list of turns" in msg and type(bare).__name__ in msg and "context=[" in msg


@pytest.mark.parametrize("bad, what", [(42, "int"), ({"role": "user", "content": "hi"}, "dict")])
def test_a_context_that_is_not_a_list_of_turns_is_refused(m, bad, what):
    with pytest.raises(InvalidInputError) as exc:
        m.search("apple", user_id="u", context=bad)
    assert "context must be a list of turns" in str(exc.value) and what in str(exc.value)


def test_a_turn_of_the_wrong_type_is_named(m):
    with pytest.raises(InvalidInputError) as exc:
        m.search("apple", user_id="u", context=["fine", 3])
    assert "context[1]" in str(exc.value) and "int" in str(exc.value)


# ---------------------------------------------------------------- labels
def test_a_bare_string_label_is_refused_with_the_fix(m):
    item = m.get_all(user_id="u")[0]
    with pytest.raises(InvalidInputError) as exc:
        m.update(item.id, labels="travel")
    msg = str(exc.value)
    assert "labels must be a list" in msg and "not a bare str" in msg and "labels=['travel']" in msg
    assert m.get(item.id).labels == item.labels  # nothing changed
    with pytest.raises(InvalidInputError, match="labels must be a list.*not a bare bytes"):
        m.update(item.id, "new text", labels=b"travel")
    assert m.get(item.id).text == item.text


def test_a_single_label_dict_is_refused_naming_its_type(m):
    item = m.get_all(user_id="u")[0]
    with pytest.raises(InvalidInputError, match=r"labels must be a list .*got dict"):
        m.update(item.id, labels={"domain": "travel"})


def test_a_list_with_a_domain_name_sets_the_label(m):
    item = m.get_all(user_id="u")[0]
    out = m.update(item.id, labels=["travel"])
    assert [(lab.domain, lab.primary, lab.set_by) for lab in out.labels] == [("travel", True, "hand")]
    assert [(lab.domain, lab.set_by) for lab in m.get(item.id).labels] == [("travel", "hand")]


def test_a_path_that_is_no_path_and_an_unknown_context_option_are_clear_errors(tmp_path):
    from pathlib import Path

    from anchormem import Memory
    from anchormem.errors import ConfigError, InvalidInputError

    with pytest.raises(ConfigError, match="path: a file path .* got int"):
        Memory(123, embedder="hash")
    assert not Path("123").exists()
    with Memory(tmp_path / "m.db", embedder="hash") as m:  # (os.PathLike is a path)
        assert m.path == str(tmp_path / "m.db")
        m.add("I live in Lisbon.", user_id="x", session_id="s")
        with pytest.raises(InvalidInputError, match="unknown option foo; the options are buffer, memory_limit"):
            m.context(user_id="x", session_id="s", query="home", foo=1)
        assert m.context(user_id="x", session_id="s", query="home", memory_limit=3).used_tokens > 0
