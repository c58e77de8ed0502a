"""Query rewriting: the question's date boosts memories of that time; cross-language keywords; LLM phrasings."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from anchormem import Memory
from anchormem.config import Settings
from anchormem.llms import OpenAICompatLLM
from anchormem.retrieval.config import SearchConfig
from anchormem.retrieval.rewrite import expand_terms, llm_queries, time_window
from anchormem.testing.fake_llm import FakeLLMServer


def test_time_window_and_expansion_units():
    now = datetime(2024, 5, 22, 12, tzinfo=timezone.utc)
    assert time_window("what did I do last week?", now) == (datetime(2024, 5, 13, tzinfo=timezone.utc),
                                                             datetime(2024, 5, 19, 23, 59, 59, tzinfo=timezone.utc))
    assert time_window("上个月我去了哪里？", now)[0] == datetime(2024, 4, 1, tzinfo=timezone.utc)
    assert time_window("where do I live?", now) is None
    assert expand_terms(["live"])[:5] == ["live", "住", "住哪", "住在", "住在哪"]  # the live group (answers.json)
    assert {"公寓", "搬家", "定居"} <= set(expand_terms(["live"]))
    assert "home" in expand_terms(["住"]) and "住" not in expand_terms(["住"])[1:]
    assert expand_terms(["violin"]) == ["violin"]  # no group: unchanged


def test_date_in_question_boosts_memories_of_that_time():
    with Memory(":memory:", embedder="hash") as m:
        m.add("I went hiking in the Alps.", user_id="u", timestamp="2023-04-10T10:00:00Z")
        may = m.add("I went hiking near the lake.", user_id="u", timestamp="2023-05-20T10:00:00Z")[0].memory
        hits = m.search("Where did I go hiking in May 2023?", user_id="u")
        assert hits[0].memory.id == may.id
        assert [h.explain["time_match"] for h in hits] == [True, False]
        off = m.search("Where did I go hiking in May 2023?", user_id="u",
                       recipe=SearchConfig(query_rewrite="off"))
        assert all("time_match" not in h.explain for h in off)
        assert hits[0].score > [h for h in off if h.memory.id == may.id][0].score


def test_english_question_finds_a_chinese_memory_by_keyword():
    with Memory(":memory:", embedder="hash") as m:
        zh = m.add("我上周三刚搬到杭州，月租4500元。", user_id="u")[0].memory
        m.add("I repaired the bicycle chain.", user_id="u")
        kw = SearchConfig(dense_weight=0.0, lexical_weight=1.0)  # keyword signal only
        hits = m.search("where do I live", user_id="u", recipe=kw)  # the turn or its home fact's clause
        assert len(hits) == 1 and hits[0].memory.source_message_ids == zh.source_message_ids
        assert m.search("where do I live", user_id="u", recipe=kw.model_copy(update={"query_rewrite": "off"})) == []


def test_llm_phrasings_are_fused_and_a_broken_reply_is_ignored():
    replies = [json.dumps({"queries": ["pet cat name", "cat called"]}), "not json at all"]
    with FakeLLMServer(replies) as srv:
        llm = OpenAICompatLLM(srv.base_url, "fake", max_retries=0)
        assert llm_queries(llm, "What is my kitty called?") == ["pet cat name", "cat called"]
        assert llm_queries(llm, "What is my kitty called?") == []
    with FakeLLMServer([json.dumps({"queries": ["cat Pixel name"]})]) as srv:
        with Memory(":memory:", embedder="hash", llm=OpenAICompatLLM(srv.base_url, "fake", max_retries=0),
                    settings=Settings(fact_extractor="rules", summary_every=0, labeller="offline")) as m:
            cat = m.add("My cat is called Pixel.", user_id="u")[0].memory
            m.add("I bought new shoes.", user_id="u")
            cfg = SearchConfig(query_rewrite="llm", dense_weight=0.0, lexical_weight=1.0)
            hits = m.search("What is my kitty's name?", user_id="u", recipe=cfg)
            assert hits and hits[0].memory.id == cat.id  # only the LLM's phrasing shares words with it
            assert srv.requests[-1]["messages"][1]["content"] == "What is my kitty's name?"
