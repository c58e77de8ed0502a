"""Issue #22 (fresh13): a plan that comes true, a restated place that is no move, a maybe that is no change.

- "下个月搬去温哥华" is a plan (no change); "搬完了，温哥华天气真好" / "Done moving!" / 入职了 say it came true without the
  value: the latest open plan of that action becomes the current claim from the completion's time, superseding the
  old one (anchormem.facts.plans.completed_attributes, facts.reconcile._realised; words: data/lang/*/plans.json).
- "我现在住在苏州工业园区" after "Moved again, Suzhou this time!" names the current place (a part of it, in the other
  script): a restatement, never a move (anchormem.facts.places.same_place).
- "明年可能会跳槽去阿里吧，还没想好" is a maybe: no change, nothing queued for review (anchormem.facts.plans.maybe);
  a pending-review note is shown only on answers about the slot under review (anchormem.answering.pending).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from anchormem.facts.places import same_place
from anchormem.facts.plans import completed_attributes, maybe, plan_facts_of
from anchormem.facts.model import Fact

T = datetime(2026, 3, 1, 9, tzinfo=timezone.utc)


@pytest.fixture
def mem(mem_det):
    return mem_det


def _story(m, turns, user="u"):
    """Add (day, text) turns; the events of each add as (event, text, fact value)."""
    out = []
    for i, (day, text) in enumerate(turns):
        evs = m.add(text, user_id=user, session_id=f"s{i}", timestamp=T + timedelta(days=day))
        out.append([(e.event, e.memory.text, e.memory.fact.value if e.memory.fact else None) for e in evs])
    return out


def _current(m, attribute, user="u"):
    return sorted(f.fact.value for f in m.get_all(user_id=user) if f.fact and f.fact.attribute == attribute)


@pytest.mark.parametrize("text,attrs", [
    ("搬完了，温哥华天气真好", ("home_city",)),
    ("Done moving! Loving it here.", ("home_city",)),
    ("signed the lease", ("home_city",)),
    ("今天入职了，好累", ("employer", "occupation")),
    ("First day at the new job today!", ("employer", "occupation")),
    ("It's official!", ()),
])
def test_completion_words_name_the_action(text, attrs):
    assert completed_attributes(text) == attrs


@pytest.mark.parametrize("text", ["还没搬完", "Not done moving yet, boxes everywhere.", "入职了吗？",
                                  "can't wait to be moved in", "等搬完了再说", "I had lunch with Tom."])
def test_no_completion(text):
    assert completed_attributes(text) is None


def test_a_chinese_plan_with_a_date_is_scheduled_and_its_completion_restates_it(mem):
    evs = _story(mem, [(0, "I live in Toronto."), (10, "下个月搬去温哥华"), (45, "搬完了，温哥华天气真好")])
    # a plan whose date resolves is scheduled: current from that date, closing the old home then
    assert evs[1] == [("ADD", "下个月搬去温哥华", "温哥华"), ("SUPERSEDE", "I live in Toronto.", "Toronto")]
    assert evs[2] == [("ADD", "搬完了，温哥华天气真好", None), ("NOOP", "下个月搬去温哥华", "温哥华")]
    assert _current(mem, "home_city") == ["温哥华"]
    (fact,) = [m for m in mem.get_all(user_id="u") if m.fact and m.fact.attribute == "home_city"]
    assert fact.valid_from == datetime(2026, 4, 1, tzinfo=timezone.utc)  # "下个月" of 2026-03-11
    assert mem.ask("Where do I live?", user_id="u", as_of=T + timedelta(days=20)).citations[0].text == \
        "I live in Toronto."
    ans = mem.ask("Where do I live?", user_id="u")
    assert ans.citations[0].text == "搬完了，温哥华天气真好"
    assert ans.text.startswith('On 2026-04-15, you said: "搬完了，温哥华天气真好" '
                               '(the plan of 2026-03-11 came true: "下个月搬去温哥华")')
    past = mem.ask("搬去温哥华之前我住在哪里？", user_id="u")
    assert past.citations[0].text == "I live in Toronto."


def test_an_undated_plan_comes_true_without_its_value(mem):
    evs = _story(mem, [(0, "I live in Toronto."), (10, "I'm moving to Vancouver next spring."),
                       (120, "Done moving! Loving it here.")])
    assert [e[0] for e in evs[1]] == ["ADD"] and evs[1][0][2] is None  # no date resolves: a plan, no schedule
    assert ("SUPERSEDE", "I live in Toronto.", "Toronto") in evs[2]
    assert _current(mem, "home_city") == ["Vancouver"]
    assert mem.ask("Where did I live before?", user_id="u").citations[0].text == "I live in Toronto."


def test_a_job_plan_with_a_date_is_scheduled(mem):
    evs = _story(mem, [(0, "我在字节工作。"), (10, "下周一去美团报到"), (20, "今天入职了，好累")])
    assert evs[1] == [("ADD", "下周一去美团报到", "美团"), ("SUPERSEDE", "我在字节工作。", "字节")]
    assert evs[2] == [("ADD", "今天入职了，好累", None), ("NOOP", "下周一去美团报到", "美团")]
    assert _current(mem, "employer") == ["美团"]
    start = datetime(2026, 3, 16, tzinfo=timezone.utc)  # 下周一 of Wednesday 2026-03-11
    assert [m.valid_from for m in mem.get_all(user_id="u") if m.fact and m.fact.value == "美团"] == [start]
    assert mem.ask("我在哪里工作？", user_id="u", as_of=start - timedelta(hours=1)).citations[0].text == "我在字节工作。"


def test_a_scheduled_move_not_done_before_its_date_still_holds_from_it(mem):
    _story(mem, [(0, "I live in Toronto."), (10, "I'm moving to Vancouver next month."),
                 (20, "Not done moving yet, boxes everywhere.")])
    assert mem.ask("Where do I live?", user_id="u", as_of=T + timedelta(days=25)).citations[0].text == \
        "I live in Toronto."
    assert _current(mem, "home_city") == ["Vancouver"]  # read after 2026-04-01


def test_a_scheduled_move_overtaken_by_another(mem):
    evs = _story(mem, [(0, "I live in Toronto."), (10, "I'm moving to Vancouver next month."),
                       (20, "I moved to Seattle."), (40, "Done moving!")])
    assert ("SUPERSEDE", "I'm moving to Vancouver next month.", "Vancouver") in evs[2]  # said later: it wins
    assert _current(mem, "home_city") == ["Seattle"]


def test_a_scheduled_move_called_off_restores_the_home(mem):
    evs = _story(mem, [(0, "I live in Toronto."), (10, "I'm moving to Paris next month."),
                       (20, "Actually the Paris move is off, we decided to stay.")])
    assert ("SUPERSEDE", "I'm moving to Paris next month.", "Paris") in evs[2]
    assert ("ADD", "I live in Toronto.", "Toronto") in evs[2]  # the home it was to replace holds again
    assert _current(mem, "home_city") == ["Toronto"]
    assert mem.ask("Where do I live?", user_id="u").citations[0].text == "I live in Toronto."


@pytest.mark.parametrize("turns", [
    [(0, "I live in Toronto."), (10, "I'm moving to Vancouver next spring."),
     (20, "Not done moving yet, boxes everywhere.")],
    [(0, "I live in Toronto."), (20, "Done moving! Loving it here.")],  # no plan: nothing to realise
    [(0, "I live in Toronto."), (10, "I'm moving to Vancouver next spring."), (20, "I moved to Seattle."),
     (40, "Done moving!")],  # the plan was overtaken by a later statement: not open
])
def test_no_open_plan_no_change(mem, turns):
    evs = _story(mem, turns)
    assert all(e[0] != "SUPERSEDE" or e[2] == "Toronto" and "Seattle" in turns[-2][1] for e in evs[-1])
    assert "Vancouver" not in _current(mem, "home_city")


@pytest.mark.parametrize("a,b,same", [
    ("Suzhou", "苏州工业园区", True), ("苏州", "苏州工业园区", True), ("Toronto", "downtown Toronto", True),
    ("Vancouver", "温哥华", True), ("York", "New York", False), ("南京", "苏州", False), ("Paris", "Berlin", False),
])
def test_same_place(a, b, same):
    assert same_place(a, b) is same and same_place(b, a) is same


def test_a_restated_place_in_the_other_script_is_no_move(mem):
    evs = _story(mem, [(0, "我住在武汉。"), (10, "我搬到南京了。"), (40, "I moved to Suzhou."),
                       (50, "我现在住在苏州工业园区")])
    assert evs[3] == [("ADD", "我现在住在苏州工业园区", None),
                      ("NOOP", "I moved to Suzhou.", "Suzhou")]  # the words kept, no move
    assert _current(mem, "home_city") == ["Suzhou"]
    assert mem.ask("Where did I live before Suzhou?", user_id="u").citations[0].text == "我搬到南京了。"


def test_a_maybe_is_no_change_and_not_reviewed(mem):
    evs = _story(mem, [(0, "我住在杭州，在网易工作。"), (10, "明年可能会跳槽去阿里吧，还没想好")])
    assert evs[1] == [("ADD", "明年可能会跳槽去阿里吧，还没想好", None)]
    assert mem.store.list_reviews("default", "u", "pending") == []
    assert _current(mem, "employer") == ["网易"]
    assert "阿里" not in mem.ask("我在哪里工作？", user_id="u").text


@pytest.mark.parametrize("first,then", [("I live in Lisbon.", "Maybe I'll move to Rome."),
                                         ("I work at Google.", "Maybe I'll join Stripe next year, not sure yet."),
                                         ("我在网易工作。", "明年可能会跳槽去阿里吧")])
def test_maybes_retire_nothing_and_queue_nothing(mem, first, then):
    evs = _story(mem, [(0, first), (30, then)])
    assert [e[0] for e in evs[1]] == ["ADD"] and evs[1][0][2] is None
    assert mem.store.list_reviews("default", "u", "pending") == []


@pytest.mark.parametrize("sentence,value,is_maybe", [
    ("明年可能会跳槽去阿里吧，还没想好", "阿里", True),  # undecided
    ("I'll join Stripe next year, haven't decided.", "Stripe", True),
    ("明年可能去成都", "成都", True),  # a hedge on a date ahead
    ("可能会去阿里", "阿里", True),  # a hedge on what will happen
    ("Maybe I'll join Stripe.", "Stripe", True),
    ("I'll join Stripe.", "Stripe", False),
    ("I live in Lisbon.", "Lisbon", False),
    ("I moved to Berlin, not sure yet if I'll stay.", "Berlin", False),  # the undecided is not the move
    ("我可能住在成都", "成都", False),  # a hedge on the present: confidence, not a maybe
    ("We're in Phoenix for now, husband's in the Air Force so who knows how long.", "Phoenix", False),
])
def test_maybe(sentence, value, is_maybe):
    f = Fact(attribute="employer", value=value, source_span=sentence, clause=re.split(r"[，,]", sentence)[0])
    assert maybe(f, T) is is_maybe


def test_a_maybe_is_no_plan_to_realise():
    assert plan_facts_of("明年可能会搬去成都吧，还没想好", T) == []
    assert [(f.attribute, f.value) for f in plan_facts_of("下个月搬去温哥华", T)] == [("home_city", "温哥华")]


def test_a_pending_note_only_on_the_slot_under_review(mem):
    mem.add("我住在杭州，在网易工作。我的手机号是13800000000。", user_id="p", timestamp=T)
    ev = mem.add("我的手机号换成13900000000了。", user_id="p", timestamp=T + timedelta(days=3))
    assert [e.event for e in ev] == ["REVIEW"]
    home = mem.ask("我住在哪里？", user_id="p")
    assert "待审核" not in home.text and "杭州" in home.citations[0].text
    phone = mem.ask("我的手机号是多少？", user_id="p")
    assert "（改为13900000000的更改待审核）" in phone.text
    block = mem.context(user_id="p", session_id="s", query="我住在哪里？", show_ids=False)
    assert "杭州" in block.text and "待审核" not in block.text
    block = mem.context(user_id="p", session_id="s", query="我的手机号是多少？", show_ids=False)
    assert "改为13900000000的更改待审核" in block.text


def test_the_completion_turn_is_not_cited_as_the_value(mem):
    """"Done moving!" carries the realised plan's claim but names no city: the slot evidence for "Where do I live?"
    is the plan that states it, even when the completion turn is the search hit (sched13b, issue #22 item 4)."""
    from anchormem.answering.slot_evidence import slot_evidence
    from anchormem.types import Hit, Scope

    _story(mem, [(0, "I live in Toronto."), (10, "I'm moving to Vancouver next month."),
                 (45, "Done moving! Loving it here.")])
    rows = {it.text: it for it in mem.get_all(user_id="u")}
    done = rows["Done moving! Loving it here."]
    assert [c.value for c in done.claims] == ["Vancouver"]  # it carries the claim
    got = slot_evidence("Where do I live?", mem.store, Scope(user_id="u"), hits=[Hit(memory=done, score=1.0)])
    assert [m.text for m in got] == ["I'm moving to Vancouver next month."]
