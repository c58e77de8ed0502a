"""Issue #22: addresses and preferences that change, one behaviour in English, Chinese and mixed turns.

A move said with a street address gives the new home city (the address's town) and the home address; the address
also stands against the user's current shipping / delivery address, held for review (addresses are sensitive),
and approving it replaces them. A preference of a kind (contact channel, courier, language, seat) is one slot per
kind: a later one supersedes it, whatever language either is in. Sentences here are our own, not the issue's.
"""

from __future__ import annotations

import pytest

from anchormem import Memory
from anchormem.facts import extract_facts_rules
from anchormem.facts.addresses import moved_to_address, street_address
from anchormem.facts.preferences import preference_facts

T = ["2024-03-01T09:00:00Z", "2024-04-01T09:00:00Z", "2024-05-01T09:00:00Z"]


def _facts(text: str) -> dict[str, str]:
    return {f.attribute: f.value for f in extract_facts_rules(text)}


@pytest.mark.parametrize("text, full, city", [
    ("Ship it to 221 Baker Street, London please.", "221 Baker Street, London", "London"),
    ("It's 9 Mill Ln, Bath.", "9 Mill Ln, Bath", "Bath"),
    ("收件地址：杭州市西湖区文三路478号", "杭州市西湖区文三路478号", "杭州"),
    ("地址是中山路12号", "中山路12号", ""),
])
def test_street_address_keeps_its_town(text, full, city):
    got = street_address(text)
    assert got is not None and (got.text, got.city) == (full, city)


@pytest.mark.parametrize("text", ["I moved to Bristol.", "我搬到杭州了。", "We moved to Cork last year."])
def test_a_town_is_no_street_address(text):
    assert moved_to_address(text) is None


@pytest.mark.parametrize("text, facts", [
    ("My billing address is 3 Hill Road, Bath.", {"billing_address": "3 Hill Road, Bath"}),
    ("We relocated to 18 Castle Way, Durham in May.", {"address": "18 Castle Way, Durham", "home_city": "Durham"}),
    ("我们上个月搬到了南京市鼓楼区中山路12号。", {"address": "南京市鼓楼区中山路12号", "home_city": "南京"}),
    ("我搬到中山路12号了。", {"address": "中山路12号"}),  # a street is no home city
    ("I just moved to 5 Quay Street, 厦门.", {"address": "5 Quay Street, 厦门", "home_city": "厦门"}),
])
def test_address_facts(text, facts):
    got = _facts(text)
    for attr, value in facts.items():
        assert got.get(attr) == value, got
    if "address" in facts and "home_city" not in facts:
        assert "home_city" not in got


@pytest.mark.parametrize("before, move, city, note", [
    ("My postal address is 3 Hill Road, Bath.", "We relocated to 18 Castle Way, Durham last month.", "Durham",
     "a change to 18 Castle Way, Durham is pending review"),
    ("我的收货地址是南京市鼓楼区中山路12号。", "我们上个月搬到了苏州市姑苏区人民路8号。", "苏州", "改为苏州市姑苏区人民路8号的更改待审核"),
    ("My delivery address is 3 Hill Road, Bath.", "我搬到苏州市姑苏区人民路8号了。", "苏州",
     "a change to 苏州市姑苏区人民路8号 is pending review"),
])
def test_move_with_address_sets_city_and_holds_the_address(before, move, city, note):
    with Memory(":memory:", embedder="hash") as m:
        m.add(before, user_id="u", timestamp=T[0])
        ev = m.add(move, user_id="u", timestamp=T[1])
        kinds = {(e.event, e.memory.fact.attribute if e.memory.fact else None) for e in ev}
        assert ("REVIEW", "address") in kinds and ("ADD", "home_city") in kinds, kinds
        [home] = [e.memory for e in ev if e.memory.fact and e.memory.fact.attribute == "home_city"]
        assert home.fact.value == city
        [r] = m.review_queue(user_id="u")
        old = [x for x in m.get_all(user_id="u") if x.text == before]
        assert len(old) == 1 and old[0].id in r.targets
        question = "我的收货地址是什么？" if before.startswith("我") else \
            f"What is my {before.split()[1]} address?"
        ctx = m.context(user_id="u", query=question).text
        assert note in ctx
        ans = m.ask(question, user_id="u")  # the current address until the change is approved, with the note
        assert ans.citations[0].text == before and note in ans.text
        done = m.approve(r.id)
        assert ("SUPERSEDE", before) in {(e.event, e.memory.text) for e in done}
        assert m.get(old[0].id).valid_to is not None


def test_move_to_a_town_leaves_the_address_alone():
    with Memory(":memory:", embedder="hash") as m:
        m.add("My delivery address is 3 Hill Road, Bath.", user_id="u", timestamp=T[0])
        ev = m.add("I moved to Leicester.", user_id="u", timestamp=T[1])
        assert [(e.event, e.memory.fact.attribute) for e in ev] == [("ADD", "home_city")]
        assert m.review_queue(user_id="u") == []


@pytest.mark.parametrize("text, attr, value", [
    ("I'd rather have texts than calls.", "prefers:contact", "texts"),
    ("Please switch me to FedEx.", "prefers:courier", "FedEx"),
    ("I'd prefer an aisle seat on long flights.", "prefers:seat", "aisle seat"),
    ("Going forward, please use WhatsApp.", "prefers:contact", "WhatsApp"),
    ("以后都走中通吧。", "prefers:courier", "中通"),
    ("我比较喜欢用微信联系。", "prefers:contact", "微信"),
    ("以后请用 DHL 寄给我。", "prefers:courier", "DHL"),
    ("Please use 顺丰 from now on.", "prefers:courier", "顺丰"),
])
def test_preference_reads(text, attr, value):
    assert (attr, value) in [(a, v) for a, v, _ in preference_facts(text)]
    assert _facts(text).get(attr) == value


@pytest.mark.parametrize("text", ["I prefer tea.", "Do you prefer email?", "If I preferred DHL I'd say so.",
                                  "I answered calls instead of meetings all day."])
def test_no_preference_slot(text):
    assert not any(a.startswith("prefers:") for a in _facts(text))


@pytest.mark.parametrize("before, after, question, now, old", [
    ("Please contact me by text message only.", "I'd rather have emails than texts now.",
     "How do I prefer to be contacted?", "emails", "text message"),
    ("我一般用中通。", "以后改用韵达吧，中通老是丢件。", "我喜欢用哪家快递？", "韵达", "中通"),
    ("我一般用中通。", "Please switch me to DHL.", "Which courier do I prefer?", "DHL", "中通"),
    ("我一般用中通。", "以后改用韵达吧，中通老是丢件。", "Which courier do I prefer?", "韵达", "中通"),  # EN question, ZH facts
    ("I prefer UPS for parcels.", "以后请用顺丰, UPS太贵了。", "我喜欢用哪家快递？", "顺丰", None),
])
def test_preference_change_supersedes(before, after, question, now, old):
    with Memory(":memory:", embedder="hash") as m:
        m.add(before, user_id="u", timestamp=T[0])
        ev = m.add(after, user_id="u", timestamp=T[1])
        assert ("SUPERSEDE", before) in {(e.event, e.memory.text) for e in ev}, [(e.event, e.memory.text) for e in ev]
        ans = m.ask(question, user_id="u")
        assert not ans.abstained and now in ans.citations[0].text
        assert all(c.text != before for c in ans.citations)


def test_context_marks_the_held_address_of_a_turn_whose_home_moved():
    """A turn stating the home and the shipping address: the move closes the home; the line left shows the address
    with its pending change, asked about the city or not."""
    with Memory(":memory:", embedder="hash") as m:
        m.add("I live in Bath. My shipping address is 3 Hill Road, Bath.", user_id="u", timestamp=T[0])
        m.add("We relocated to 18 Castle Way, Durham last month.", user_id="u", timestamp=T[1])
        ctx = m.context(user_id="u", query="Which city do I live in?").text
        line = next(x for x in ctx.splitlines() if "3 Hill Road" in x)
        assert "I live in Bath" not in line and "a change to 18 Castle Way, Durham is pending review" in line
