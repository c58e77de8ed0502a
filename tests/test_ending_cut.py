"""Issue #22: an ending or a replacement closes only what it ends (anchormem.facts.cuts). The open claim made for
an old sentence covers the statement or the list item it ends, so a memory that says other things too becomes
partly superseded (its other facts stay current and citable); a past read returns the whole turn as it was."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem.facts.claims import claim_words, current_view, starts_statement, strip_spans
from anchormem.facts.cuts import ended_words
from anchormem.types import Claim, MemoryItem

T1 = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)
T2 = T1 + timedelta(days=60)


def _item(text: str, claims: list[Claim] = ()) -> MemoryItem:
    return MemoryItem(id="m1", text=text, user_id="u", created_at=T1, valid_from=T1, claims=list(claims))


@pytest.mark.parametrize("sentence, word, ended", [
    # one statement: the clause after has no subject of its own, it goes with the ended one
    ("我在学钢琴，每周上一节课。", "钢琴", "我在学钢琴，每周上一节课。"),
    ("I'm in Austin, been here five years, I also run a bakery.", "Austin", "I'm in Austin, been here five years"),
    # another thing said without a subject (another_statement: 顺便) stays
    ("我在一家银行当柜员，顺便在准备考研。", "银行", "我在一家银行当柜员"),
    # one item of a list: the item alone (en, zh, mixed)
    ("I pay for Spotify Premium, Disney+ and the NYT app.", "Disney+", "Disney+"),
    ("我订了爱奇艺、Netflix和Spotify。", "Netflix", "Netflix"),
    ("我在Google上班, and I'm learning piano on weekends.", "piano", "I'm learning piano on weekends"),
    # a piece said in the other language is a statement of its own (a mixed turn)
    ("I work as a nurse at Mercy, 每天晚上都要打两个小时游戏。", "游戏", "每天晚上都要打两个小时游戏"),
])
def test_what_an_ending_closes(sentence, word, ended):
    assert ended_words(sentence, sentence, _item(sentence), word=word) == ended


def test_a_piece_stating_another_current_claim_is_never_closed():
    text = "我叫小王，在银行上班，每天抽一包烟。"
    claims = [Claim(fact_id=f, slot=s, value=v, said_at=T1, valid_from=T1, span=sp) for f, s, v, sp in
              [("f1", "user|name", "小王", "我叫小王"), ("f2", "user|employer", "银行", "在银行上班")]]
    assert ended_words(text, text, _item(text, claims), word="抽") == "每天抽一包烟"
    # without those claims, an ending runs back to the statement of who the speaker is (the name), never into it
    assert ended_words(text, text, _item(text), word="抽", ending="烟戒了") == "在银行上班，每天抽一包烟"
    short = "我是开出租车的，每天晚上都要喝两杯啤酒。"  # ended by "酒我戒了": the job stays
    assert ended_words(short, short, _item(short), word="酒", ending="酒我戒了，快半年没碰了。") == "每天晚上都要喝两杯啤酒"
    # matched by meaning, no shared word given: the one piece holding a content term of the ending (酒, in 啤酒)
    assert ended_words(short, short, _item(short), word="", whole=True, ending="酒我戒了") == "每天晚上都要喝两杯啤酒"
    assert ended_words(short, short, _item(short), word="酒我", ending="酒我戒了") == "每天晚上都要喝两杯啤酒"  # glued


def test_claim_words_take_the_statement_holding_the_value():
    assert claim_words("I work at Apple in Cupertino, love the campus, also coach a kids' soccer team.", "Apple") == \
        "I work at Apple in Cupertino, love the campus"
    assert claim_words("I live in Dublin and drive an old red Volvo.", "Dublin") == "I live in Dublin"
    assert claim_words("I live in Shanghai, 在一家外企做HR。", "Shanghai") == "I live in Shanghai"
    assert claim_words("房租一个月三千五，押一付三，跟对象合租，水电另算。", "三千五") == "房租一个月三千五，押一付三，跟对象合租，水电另算。"


def test_starts_statement_and_list_tidy():
    assert [starts_statement(p) for p in ("and I'm a nurse", "我在学钢琴", "每周上一节课", "been here")] == \
        [True, True, False, False]
    assert strip_spans("我订了爱奇艺、Netflix和Spotify。", ["Netflix"]) == "我订了爱奇艺和Spotify。"


def _add(m, text, when, user="u"):
    return list(m.add(text, user_id=user, timestamp=when))


def _sup(evs):
    return [e.memory.text for e in evs if e.event == "SUPERSEDE"]


def test_an_ending_closes_the_whole_statement_and_a_past_read_returns_the_turn(mem_e5):
    _add(mem_e5, "我在学钢琴，每周上一节课。", T1)
    evs = _add(mem_e5, "钢琴课停了，太贵了，最近也没练。", T2)
    assert _sup(evs) == ["我在学钢琴，每周上一节课。"]  # one event: its memory, closed as a whole with its claim
    block = mem_e5.context(user_id="u", session_id="s", query="我还在学钢琴吗？", show_ids=False).text
    assert "钢琴课停了" in block and "每周上一节课" not in block  # (it was shown as current: only 学钢琴 closed)
    hits = mem_e5.search("我在学钢琴吗", user_id="u", as_of=T1 + timedelta(days=1))
    assert [(h.memory.kind, h.memory.text) for h in hits[:1]] == [("utterance", "我在学钢琴，每周上一节课。")]


def test_an_ending_leaves_the_other_facts_of_the_turn_current(mem_e5):
    first = _add(mem_e5, "I'm Dana, I work as a nurse and I'm learning Japanese on Duolingo every night.", T1)
    evs = _add(mem_e5, "Dropped Japanese, I just don't have the energy for it anymore.", T2)
    assert _sup(evs) == ["I'm learning Japanese on Duolingo every night"]
    turn = mem_e5.get(first[0].memory.id)
    assert turn.valid_to is None and turn.state == "partly_superseded"
    assert current_view(turn).text == "I'm Dana, I work as a nurse."
    assert mem_e5.ask("What is my job?", user_id="u").text == 'On 2024-01-01, you said: "I\'m Dana, I work as a nurse."'
    hits = mem_e5.search("Japanese", user_id="u", as_of=T1 + timedelta(days=1))
    assert hits[0].memory.text == "I'm Dana, I work as a nurse and I'm learning Japanese on Duolingo every night."


def test_an_ending_naming_one_item_of_a_list_closes_that_item(mem_e5):
    first = _add(mem_e5, "I pay for Spotify Premium, Disney+ and the NYT app.", T1)
    evs = _add(mem_e5, "Axed Disney+, nobody in this house watched it.", T2)
    assert _sup(evs) == ["Disney+"]
    turn = mem_e5.get(first[0].memory.id)
    # the item out is marked (facts.claims.elided: a quote with words taken out never reads as verbatim)
    assert turn.valid_to is None and current_view(turn).text == "I pay for Spotify Premium, … and the NYT app."
    assert mem_e5.ask("Do I pay for Spotify?", user_id="u").citations[0].text == \
        "I pay for Spotify Premium, … and the NYT app."
    assert mem_e5.ask("Do I still have Disney+?", user_id="u").citations[0].text.startswith("Axed Disney+")


def test_a_chinese_list_item_and_a_chinese_statement_with_another_thing(mem_e5):
    first = _add(mem_e5, "我订了爱奇艺、Netflix和Spotify。", T1, user="a")
    assert _sup(_add(mem_e5, "Netflix我退订了。", T2, user="a")) == ["Netflix"]
    assert current_view(mem_e5.get(first[0].memory.id)).text == "我订了爱奇艺…和Spotify。"
    first = _add(mem_e5, "我在一家银行当柜员，顺便在准备考研。", T1, user="b")
    # quitting ends the job and the employer (一家银行 is read as the employer: fix19)
    assert _sup(_add(mem_e5, "银行的工作我辞了，全职备考。", T2, user="b")) == ["我在一家银行", "我在一家银行当柜员"]
    assert current_view(mem_e5.get(first[0].memory.id)).text == "我…顺便在准备考研。"  # (its sentence's subject)
    assert mem_e5.ask("我在准备什么考试？", user_id="b").text == "2024-01-01，你说过：“我…顺便在准备考研。”"


@pytest.mark.parametrize("original,cut,shown", [
    ("我上周从腾讯辞职了，现在在字节跳动做产品经理。", "我上周从腾讯辞职了， 做产品经理。", "我上周从腾讯辞职了，…做产品经理。"),  # fresh20 D6
    ("Hi, I'm Chen Wei. I live in Shenzhen with my wife Mei and our son Leo, who is 6.",
     "Hi, I'm Chen Wei. with my wife Mei and our son Leo, who is 6.",
     "Hi, I'm Chen Wei. … with my wife Mei and our son Leo, who is 6."),
    ("Hi, I'm Sam. I live in Lisbon. I work as a nurse.", "Hi, I'm Sam. I work as a nurse.",
     "Hi, I'm Sam. I work as a nurse."),  # a whole sentence out: the rest reads as said
    ("I'm Dana, I work as a nurse and I'm learning Japanese.", "I'm Dana, I work as a nurse.",
     "I'm Dana, I work as a nurse."),  # a sentence's tail out
])
def test_a_cut_inside_what_is_left_is_marked(original, cut, shown):
    from anchormem.facts.claims import elided
    assert elided(original, cut) == shown
