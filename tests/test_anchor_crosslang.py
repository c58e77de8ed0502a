"""Cross-language anchoring (issue #23): a conversation in one language picks the sense of a query word said in the
other (real model, a fresh user; a Chinese conversation about fruit, the query "apples"; 银行 asked in an English
conversation about savings). Anchoring reorders only: the other sense stays in the list, below."""

from __future__ import annotations

import pytest

from anchor_helpers import sessions_memory

SESSIONS = {
    "fruit": ["I bought a bag of apples at the farmers market, they were so sweet.",
              "Made an apple pie with the apples from grandma's tree.", "Bananas are cheaper this week."],
    "tech": ["My Apple laptop keeps overheating, maybe I need a new MacBook.",
             "Apple announced the new iPhone, I might upgrade.", "The phone battery dies by noon."],
    "river": ["We had a picnic on the river bank last Sunday.", "The bank of the river was flooded after the storm."],
    "money": ["I opened a savings account at the bank downtown.", "The bank charged me a fee for the wire transfer."],
    "misc": ["My sister moved to Berlin.", "I walked the dog in the park."],
}
FRUIT_ZH = ["我最近想多吃水果，超市里的水果太贵了。", "周末想去果园摘点新鲜的。"]
PHONE_ZH = ["我的手机又卡了，想换个新的。", "电脑也该升级了。"]
SAVINGS_EN = ["I need to save more money, interest rates are so low.", "The wire fee was crazy."]
RIVER_ZH = ["周末我们去河边钓鱼吧。", "河水涨得很高。"]


@pytest.fixture(scope="module")
def mem():
    yield from sessions_memory(SESSIONS)


def _sessions(mem, query, conversation, limit=5):
    hits = mem.search(query, user_id="u", context=[{"role": "user", "content": t} for t in conversation], limit=limit)
    return [h.memory.session_id for h in hits]


@pytest.mark.parametrize("query, conversation, sense, other", [
    ("apples", FRUIT_ZH, "fruit", "tech"),
    ("What did I say about apples?", FRUIT_ZH, "fruit", "tech"),
    ("apple", PHONE_ZH, "tech", "fruit"),
    ("bank", RIVER_ZH, "river", "money"),
])
def test_a_chinese_conversation_picks_the_sense_of_an_english_word(mem, query, conversation, sense, other):
    got = _sessions(mem, query, conversation)
    assert len(got) == 5
    assert got[:2] == [sense, sense]
    assert other not in got[:2]


def test_an_english_conversation_picks_the_sense_of_a_chinese_word(mem):
    got = _sessions(mem, "银行", SAVINGS_EN)
    assert got[:2] == ["money", "money"]
    assert "river" in got  # the river bank is below, not gone
