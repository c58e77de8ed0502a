"""Function words are no query terms: a Chinese token jieba joins from function characters (还有, 都是) is one too, so
the evidence test does not ask a memory to hold it (anchormem.text.tokenize)."""

from __future__ import annotations

from datetime import datetime, timezone

from anchormem import Memory
from anchormem.text.tokenize import query_terms


def test_compounds_of_function_characters_are_no_terms():
    assert query_terms("我还有视频会员吗？") == ["视频", "会员"]
    assert query_terms("我还是黄金会员吗？") == ["黄金会员"]
    assert query_terms("这是什么") == []
    assert query_terms("我的猫叫什么名字") == ["猫叫", "名字"]  # content words stay


def test_a_still_question_is_answered_by_the_ending():
    m = Memory(":memory:")
    m.add("我订了视频会员。", user_id="u", timestamp=datetime(2024, 1, 1, tzinfo=timezone.utc))
    m.add("我把视频会员退订了。", user_id="u", timestamp=datetime(2024, 3, 1, tzinfo=timezone.utc))
    ans = m.ask("我还有视频会员吗？", user_id="u")
    assert (ans.abstained, [c.text for c in ans.citations]) == (False, ["我把视频会员退订了。"])
    m.close()
