"""The LLM fact extractor inside ``Memory.add``, against the scripted fake OpenAI server: grounded facts are
kept, invented ones are rejected and counted, broken replies retry once then fail loudly with nothing stored."""

from __future__ import annotations

import json

import pytest

from anchormem import Memory
from anchormem.config import Settings
from anchormem.errors import ConfigError, LLMParseError
from anchormem.llms import OpenAICompatLLM
from anchormem.testing.fake_llm import FakeLLMServer


def _facts(*items) -> str:
    return json.dumps({"facts": [dict(zip(("entity", "attribute", "value", "polarity", "confidence",
                                           "source_quote"), it)) for it in items]}, ensure_ascii=False)


def _mem(tmp_path, srv, **settings):
    # the scripts answer the fact extractor's calls; the LLM labeller has its own tests (test_llm_labeller.py)
    return Memory(str(tmp_path / "m.db"), embedder="hash", settings=Settings(**{"labeller": "offline", **settings}),
                  llm=OpenAICompatLLM(srv.base_url, "fake", max_retries=0))


def test_grounded_facts_kept_invented_ones_rejected(tmp_path):
    reply = _facts(("user", "home_city", "Lisbon", 1, 1.0, "I moved to Lisbon last month"),
                   ("user", "employer", "Initech", 1, 1.0, "I moved to Lisbon last month"),   # invented value
                   ("user", "cat_name", "Tom", 1, 1.0, "My cat is called Tom"))             # quote not said
    with FakeLLMServer([reply]) as srv, _mem(tmp_path, srv) as m:
        evs = m.add("I moved to Lisbon last month.", user_id="A", timestamp="2024-05-01T00:00:00Z")
        assert [(e.event, e.memory.kind, e.memory.fact.extractor, e.memory.fact.value) for e in evs] == [
            ("ADD", "fact", "llm", "Lisbon")]
        assert {k: m.stats[k] for k in ("facts_extracted", "facts_rejected")} == {"facts_extracted": 1, "facts_rejected": 2}
        # the model saw the user's turn, and nothing it made up was stored anywhere
        assert "I moved to Lisbon last month." in srv.requests[0]["messages"][1]["content"]
        dump = json.dumps(m.export(user_id="A"), ensure_ascii=False)
        assert "Initech" not in dump and "Tom" not in dump


def test_llm_facts_take_the_speakers_name_and_supersede(tmp_path):
    replies = [_facts(("user", "home_city", "Boston", 1, 1.0, "I live in Boston.")),
               _facts(("user", "home_city", "Denver", 1, 1.0, "I just moved to Denver."))]
    with FakeLLMServer(replies) as srv, _mem(tmp_path, srv) as m:
        m.add([{"role": "user", "name": "Caroline", "content": "I live in Boston."}], user_id="B",
              timestamp="2024-01-01T00:00:00Z")
        evs = m.add([{"role": "user", "name": "Caroline", "content": "I just moved to Denver."}], user_id="B",
                    timestamp="2024-02-01T00:00:00Z")
        assert [(e.event, e.memory.text) for e in evs] == [("ADD", "I just moved to Denver."),
                                                           ("SUPERSEDE", "I live in Boston.")]
        assert evs[0].memory.fact.entity == "Caroline"


@pytest.mark.parametrize("first,second,supersedes", [
    (("brother", "Tom", "My brother is Tom."), ("brother", "a doctor", "My brother is a doctor."), False),
    (("brother", "a doctor", "My brother is a doctor."), ("brother", "a nurse", "My brother is a nurse now."), True),
])
def test_llm_facts_about_a_person_are_typed_by_their_value(tmp_path, first, second, supersedes):
    replies = [_facts(("user", a, v, 1, 1.0, q)) for a, v, q in (first, second)]
    with FakeLLMServer(replies) as srv, _mem(tmp_path, srv) as m:
        one = m.add(first[2], user_id="A", timestamp="2024-01-01T00:00:00Z")
        evs = m.add(second[2], user_id="A", timestamp="2024-02-01T00:00:00Z")
        assert [e.memory.fact.attribute for e in one + evs[:1]] == [
            "brother_name" if first[1] == "Tom" else "brother_occupation", "brother_occupation"]
        assert [(e.event, e.memory.text) for e in evs] == [("ADD", second[2])] + (
            [("SUPERSEDE", first[2])] if supersedes else [])
        assert sorted(x.text for x in m.get_all(user_id="A")) == sorted([second[2]] + ([] if supersedes else
                                                                                    [first[2]]))


def test_c9_lone_surrogate_is_repaired_or_reported(tmp_path):
    """Case C9: a broken escape inside an otherwise valid list: facts kept, never a silent empty success."""
    text = "我上个月搬到 City C，new job at Company K 上周一开始。"  # (a date ahead would be a plan: no fact)
    reply = ('{"facts": [{"entity": "user", "attribute": "home_city", "value": "City C", "polarity": 1, '
             '"confidence": 1.0, "source_quote": "我上个月搬到 City C \\ud83d"}, {"entity": "user", "attribute": '
             '"employer", "value": "Company K", "polarity": 1, "confidence": 1.0, "source_quote": '
             '"new job at Company K 上周一开始。"}]}')
    with FakeLLMServer([reply, reply]) as srv, _mem(tmp_path, srv) as m:
        evs = m.add(text, user_id="A")
        facts = sorted(e.memory.fact.value for e in evs if e.memory.kind == "fact")
        assert facts == ["City C", "Company K"]
        assert len(srv.requests) == 1


def test_broken_replies_retry_once_then_raise_and_store_nothing(tmp_path):
    with FakeLLMServer(["Sorry, I cannot help.", "still not json"]) as srv, _mem(tmp_path, srv) as m:
        with pytest.raises(LLMParseError, match="after 2 attempts"):
            m.add("My cat is called Tom.", user_id="A")
        assert len(srv.requests) == 2
        assert m.get_all(user_id="A") == []


@pytest.mark.parametrize("reply, want", [
    ('Here are the facts I extracted:\n{"facts": [{"entity": "user", "attribute": "cat_name", "value": "Mochi", '
     '"polarity": 1, "confidence": 1.0, "source_quote": "My cat is called Mochi."}]}', ["Mochi"]),
    ('```json\n{"facts": [{"entity": "user", "attribute": "cat_name", "value": "Mochi", "polarity": 1, '
     '"confidence": 1.0, "source_quote": "My cat is called Mochi."}]}\n```\nLet me know if you need more.',
     ["Mochi"]),
    ('{"facts": []}\nNote: nothing with {braces} here.', []),
])
def test_c12_reply_formats_through_add(tmp_path, reply, want):
    with FakeLLMServer([reply]) as srv, _mem(tmp_path, srv) as m:
        evs = m.add("My cat is called Mochi.", user_id="A")
        assert [e.memory.fact.value for e in evs if e.memory.fact] == want
        # with no fact, the turn itself is still kept verbatim
        assert [e.memory.text for e in evs] == ["My cat is called Mochi."]


def test_rules_mode_makes_no_llm_call_and_llm_mode_needs_an_llm(tmp_path):
    with FakeLLMServer([]) as srv, _mem(tmp_path, srv, fact_extractor="rules") as m:
        assert [e.memory.fact.extractor for e in m.add("My cat is called Tom.", user_id="A")] == ["rules"]
        assert srv.requests == []
    with Memory(str(tmp_path / "n.db"), embedder="hash", llm=None, settings=Settings(fact_extractor="llm")) as m:
        with pytest.raises(ConfigError, match="needs an LLM"):
            m.add("My cat is called Tom.", user_id="A")
