"""Other people's facts as their own claims, endings of a category, a pet gone said by the names left (issue #22)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem.facts.keys import category_members, in_category, person_key
from anchormem.facts.rules import extract_from_text
from anchormem.facts.subjects import person_owner, without_name

T1 = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


def _facts(text: str) -> list[tuple[str, str, str, int]]:
    return [(f.entity, f.attribute, f.value, f.polarity) for f in extract_from_text(text)]


def _add(m, texts: list[str], user: str = "u") -> list[list[tuple[str, str, str]]]:
    out = []
    for i, t in enumerate(texts):
        evs = m.add(t, user_id=user, session_id=f"s{i}", timestamp=T1 + timedelta(days=30 * i))
        out.append([(e.event, e.memory.fact.slot, e.memory.fact.value) for e in evs if e.memory.fact is not None])
    return out


# -- whose claim -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("clause,owner", [
    ("My sister Mei just moved to Beijing.", ("Mei", "sister")),
    ("我妹妹小美住在成都。", ("小美", "妹妹")),
    ("我朋友Tom搬到Sydney了。", ("Tom", "朋友")),
    ("My wife just started at Stripe, she's thrilled.", ("user", "wife")),
    ("我老公跳槽去阿里了。", ("user", "husband")),
    ("Mom finally moved to York", ("user", "mother")),
    ("Tom just moved to Seattle.", ("Tom", "")),
    ("小美搬到杭州了。", ("小美", "")),
    ("The office moved to Kings Cross.", ("", "")),
    ("I moved to Paris.", ("", "")),
])
def test_person_owner_reads_whose_action_a_clause_states(clause, owner):
    assert person_owner(clause) == owner


def test_a_name_beside_a_relation_is_taken_out_for_the_persons_rules():
    assert without_name("My sister Mei lives in Chengdu.") == "My sister lives in Chengdu."
    assert without_name("我妹妹小美住在成都。") == "我妹妹住在成都。"
    assert without_name("我老公跳槽去阿里了。") == "我老公跳槽去阿里了。"  # 跳槽 is no name
    assert person_key("哥") == "哥哥" and person_key("妹") == "妹妹"


@pytest.mark.parametrize("text,want", [
    ("My sister Mei lives in Chengdu.", [("Mei", "home_city", "Chengdu", 1)]),
    ("My wife works at Google.", [("user", "wife_employer", "Google", 1)]),
    ("My wife just started at Stripe, she's thrilled.", [("user", "wife_employer", "Stripe", 1)]),
    ("My brother left Google and joined Stripe.", [("user", "brother_employer", "Stripe", 1)]),
    ("我老公在腾讯上班。", [("user", "husband_employer", "腾讯", 1)]),
    ("我老公跳槽去阿里了。", [("user", "husband_employer", "阿里", 1)]),
    ("我姐搬到深圳了。", [("user", "姐姐_home_city", "深圳", 1)]),
    ("My bestie moved to Denver.", [("user", "bestie_home_city", "Denver", 1)]),
    # not a fact of anyone's now: a visit, a hypothetical, a thing's move, a friend's ending
    ("My sister is visiting Rome next week.", []),
    ("My dad might move to Dublin someday.", []),
    ("The office moved to Kings Cross.", []),
    ("我闺蜜不吃肉了。", []),
])
def test_someone_elses_facts_are_read_as_that_persons(text, want):
    assert _facts(text) == want


def test_a_persons_change_supersedes_their_own_claim_only(mem_det):
    evs = _add(mem_det, ["I live in Toronto.", "My sister Mei lives in Chengdu.", "My sister Mei just moved to Beijing."])
    assert evs[2] == [("ADD", "mei|home_city", "Beijing"), ("SUPERSEDE", "mei|home_city", "Chengdu")]
    cur = {m.fact.slot: m.fact.value for m in mem_det.get_all(user_id="u", filters={"kind": "fact"})
           if m.valid_to is None}
    assert cur == {"user|home_city": "Toronto", "mei|home_city": "Beijing"}


@pytest.mark.parametrize("texts,change", [
    (["我住在上海。", "我妹妹住在成都。", "我妹妹上个月搬到北京了。"], [("ADD", "user|妹妹_home_city", "北京"),
                                                         ("SUPERSEDE", "user|妹妹_home_city", "成都")]),
    (["I work at a bakery.", "My wife works at Google.", "My wife just started at Stripe."],
     [("ADD", "user|wife_employer", "Stripe"), ("SUPERSEDE", "user|wife_employer", "Google")]),
    (["我老公在Amazon上班。", "我在学校当老师。", "My husband just joined Microsoft."],
     [("ADD", "user|husband_employer", "Microsoft"), ("SUPERSEDE", "user|husband_employer", "Amazon")]),
    # one person said two ways: a relation alone closes the claim of the person named beside it, and the reverse
    (["I live in Lisbon.", "My brother Rui lives in Porto.", "My brother moved to Faro."],
     [("ADD", "user|brother_home_city", "Faro"), ("SUPERSEDE", "rui|home_city", "Porto")]),
    (["I live in Lisbon.", "My sister lives in Chengdu.", "My sister Mei just moved to Beijing."],
     [("ADD", "mei|home_city", "Beijing"), ("SUPERSEDE", "user|sister_home_city", "Chengdu")]),
])
def test_relatives_changes_read_their_own_slot(mem_det, texts, change):
    evs = _add(mem_det, texts)
    assert evs[2] == change
    mine = [m for m in mem_det.get_all(user_id="u", filters={"kind": "fact"}) if m.fact.slot.startswith("user|")
            and m.fact.attribute in ("home_city", "employer", "occupation")]
    assert mine and all(m.valid_to is None for m in mine)  # the speaker's own claims never move


def test_two_named_friends_are_two_people(mem_det):
    evs = _add(mem_det, ["My friend Tom lives in Austin.", "My friend Kara lives in Miami.", "My friend just moved to Boston."])
    assert evs[2] == [("ADD", "user|friend_home_city", "Boston")]  # which friend is unknown: neither is closed
    evs = _add(mem_det, ["My friend Tom lives in Austin.", "My friend Kara lives in Miami.", "Tom just moved to Seattle."],
               user="v")
    assert evs[2] == [("ADD", "tom|home_city", "Seattle"), ("SUPERSEDE", "tom|home_city", "Austin")]


def test_a_broader_relation_and_a_narrower_one_stay_two_people(mem_det):
    evs = _add(mem_det, ["I live in Oslo.", "My sister lives in Vancouver.", "我姐姐搬到多伦多了。"])
    assert evs[2] == [("ADD", "user|姐姐_home_city", "多伦多")]


# -- endings of a category -------------------------------------------------------------------------------------------

def test_category_members_in_both_languages():
    meat = category_members("meat")
    assert {"steak", "bacon", "红烧肉", "牛排"} <= meat and "meat" not in meat
    assert in_category("steak", meat) and in_category("grass-fed steak", meat) and in_category("红烧肉", meat)
    caffeine = category_members("caffeine")
    assert in_category("latte", caffeine) and in_category("拿铁", caffeine)  # through coffee, a category itself
    assert in_category("拿铁", category_members("咖啡")) and not in_category("tea", category_members("coffee"))
    assert category_members("steak") == frozenset() and not in_category("sci-fi", meat)


@pytest.mark.parametrize("texts,closed", [
    (["I love steak.", "I don't eat meat anymore."], "user|likes:steak"),
    (["I drink a latte every morning.", "I've given up caffeine completely."], "user|does:latte"),
    (["我每天早上喝一杯拿铁。", "我戒咖啡了。"], "user|does:拿铁"),
    (["I love steak.", "I hate the office's meat pies."], None),
    (["I love steak.", "My girlfriend doesn't eat meat anymore."], None),
    (["我最爱吃红烧肉。", "我闺蜜不吃肉了。"], None),
    (["I drink a latte every morning.", "I quit smoking for good."], None),
])
def test_an_ending_of_a_category_ends_its_members_only(mem_det, texts, closed):
    evs = _add(mem_det, texts)
    sup = [slot for ev, slot, _ in evs[1] if ev == "SUPERSEDE"]
    assert sup == ([closed] if closed else [])


def test_a_reader_also_likes_other_things_after_an_ending(mem_det):
    _add(mem_det, ["I drink a latte every morning.", "I also love reading sci-fi.", "I've given up caffeine completely."])
    cur = sorted(m.fact.slot for m in mem_det.get_all(user_id="u", filters={"kind": "fact"}) if m.valid_to is None)
    assert cur == ["user|does:caffeine", "user|likes:read sci-fi"]


# -- a pet gone, said by the names left --------------------------------------------------------------------------------

def test_a_pet_gone_said_by_the_remaining_names_replaces_the_names_and_the_count(mem_det):
    evs = _add(mem_det, ["我养了两只狗，来福和旺财。", "来福走丢了，现在只剩旺财了。"])
    assert evs[0] == [("ADD", "user|dog_names", "来福和旺财"), ("ADD", "user|count:dog", "两只狗")]
    assert evs[1] == [("ADD", "user|count:dog", "一只狗"), ("SUPERSEDE", "user|count:dog", "两只狗"),  # (the one
                      ("ADD", "user|dog_names", "旺财"), ("SUPERSEDE", "user|dog_names", "来福和旺财")]  # left: en17)
    ans = mem_det.ask("我的狗叫什么名字？", user_id="u")
    assert ans.citations and ans.citations[0].text == "来福走丢了，现在只剩旺财了。"


def test_a_question_about_a_relative_reads_the_claim_of_the_person_named_beside_it(mem_det):
    _add(mem_det, ["I live in Toronto.", "My sister Mei lives in Chengdu.", "My sister Mei just moved to Beijing."])
    from anchormem.answering.slot_evidence import slot_evidence
    from anchormem.types import Scope

    got = slot_evidence("Where does my sister live?", mem_det.store, Scope(tenant="default", user_id="u"))
    assert [m.text for m in got] == ["My sister Mei just moved to Beijing."]
    ans = mem_det.ask("Where does my sister live?", user_id="u")
    assert ans.citations[0].text == "My sister Mei just moved to Beijing."
    assert mem_det.ask("Where do I live?", user_id="u").citations[0].text == "I live in Toronto."
