"""Three gates on the change readers (issue #22, lead17): a Chinese wish or request before a change verb states no
change (cues.json ``intent_before_change``); a home or an employer is no word for a person (slot_types.json
``persons_not_values``); an old clause that is only its value once masked ("太贵了。" -> "<NAME>了。") is never
matched by meaning (relative.json ``bare_fillers``). Wordings here differ from the trial that found them."""

import pytest

from anchormem import Memory
from anchormem.facts.changes import blocked
from anchormem.facts.model import Fact
from anchormem.facts.relative import _bare
from anchormem.facts.value_types import type_failure

T = ["2025-01-05T09:00:00+08:00", "2025-02-05T09:00:00+08:00", "2025-03-05T09:00:00+08:00",
     "2025-04-05T09:00:00+08:00"]


@pytest.mark.parametrize("clause, want", [
    ("这阵子特别想跳槽", True), ("真的很打算搬到成都去", True), ("我妈天天催我戒", True), ("朋友劝我辞职", True),
    ("我想了一晚上，还是离职了", False), ("我从联想跳槽到了小米", False), ("我想我妈了", False),
    ("我已经辞职了", False), ("回想起来离开是对的", False),
])
def test_a_wish_or_request_before_a_change_verb_is_no_change(clause, want):
    assert blocked(clause) is want


@pytest.mark.parametrize("attribute, value, why", [
    ("home_city", "个儿子", "person noun"), ("home_city", "两个孩子", "person noun"),
    ("employer", "the roommate", "person noun"), ("home_city", "我表姐", "pronoun"),
    ("employer", "Hugo Boss", ""), ("home_city", "朋友家", ""), ("home_city", "杭州滨江区", ""),
    ("employer", "a bakery", ""),
])
def test_a_home_or_an_employer_is_no_person_word(attribute, value, why):
    assert type_failure(Fact(attribute=attribute, value=value)) == why


@pytest.mark.parametrize("text, want", [
    ("<NAME>了。", True), ("<NAME> lol.", True), ("<NUM>!", True),
    ("住<NAME>", False), ("I work at <NAME>", False), ("一年<NUM>", False),
])
def test_a_clause_that_is_only_its_masked_value_has_no_topic(text, want):
    assert _bare(text) is want


def test_a_wish_to_quit_keeps_the_job_and_a_new_baby_keeps_the_home():
    m = Memory(":memory:")
    m.add("我在杭州住，在一家物流公司当调度员。", user_id="u", timestamp=T[0])
    ev = m.add("这阵子特别想辞职，天天加班。", user_id="u", timestamp=T[1])
    assert [e.event for e in ev] == ["ADD"]
    ev = m.add("家里刚添了个宝宝，是个儿子，叫豆豆。", user_id="u", timestamp=T[2])
    assert "SUPERSEDE" not in [e.event for e in ev]
    facts = {(it.fact.attribute, it.fact.value) for it in m.get_all(user_id="u") if it.fact is not None}
    assert ("home_city", "杭州") in facts and ("occupation", "调度员") in facts
    assert not any(v.endswith("儿子") for _, v in facts)


def test_an_employer_change_retires_no_remark_of_another_turn():
    m = Memory(":memory:")
    m.add("我在一家外企做会计。", user_id="u", timestamp=T[0])
    m.add("停车费一个月800，太离谱了。", user_id="u", timestamp=T[1])
    m.add("想辞职想了好久，烦。", user_id="u", timestamp=T[2])
    ev = m.add("我跳槽到字节了，还是做会计。", user_id="u", timestamp=T[3])
    gone = [e.memory.text for e in ev if e.event == "SUPERSEDE"]
    assert gone and all("离谱" not in g for g in gone)
    assert all("离谱" not in it.text for it in m.get_all(user_id="u") if it.fact is not None)


@pytest.mark.parametrize("first, later, question, kept", [
    ("I live in Galway and coach the under-12 hurling team.", "Settled into Limerick now, the new flat is tiny.",
     "Which team do I coach?", "hurling"),
    ("I earn about forty thousand a year at the aquarium.", "Got my raise, forty-six thousand now!",
     "How much do I earn?", "forty-six"),
])
def test_a_value_ends_where_its_clause_goes_on(first, later, question, kept):
    """A place read too far ("Galway and coach ...") ends at the coordinated verb; an amount's words end before
    "at the aquarium": superseding the value leaves the rest of the turn said (claims.value_head, value_clause)."""
    m = Memory(":memory:")
    m.add(first, user_id="u", timestamp=T[0])
    m.add(later, user_id="u", timestamp=T[2])
    old = next(it for it in m.get_all(user_id="u", include_superseded=True) if it.text == first)
    assert old.state == "partly_superseded"
    assert kept in m.ask(question, user_id="u").citations[0].text
