"""set17 (issue #22, fresh27 D20 and D9): a slot change said without "my" / 我的, in either language, and a
mixed-language work clause.

- "<slot noun> changed to / is now / 改成 / 换成 <value>" with the speaker's possession implied (no other person
  named) is a change of the speaker's slot for every slot noun the data knows (rulebook ``{SLOT_NOUN}``:
  attribute_synonyms, frames slot_nouns, a noun ending in an address word), and goes through the same review gate
  (addresses, phones and emails are sensitive). 收货地址 / 快递地址 and "shipping address" are one slot
  (``shipping_address``), so a change said in the other language stands against the old address.
- A Chinese clause after an English one and a comma ("I quit Google, 现在在 ByteDance 上班。") is a clause of its
  own, its subject the previous clause's (the speaker): read by the Chinese frames with a Latin-script value."""

from __future__ import annotations

import pytest

from anchormem.facts.rules import extract_from_text
from fact_helpers import add_events

T1 = "2025-01-10T09:00:00Z"
T2 = "2025-03-10T09:00:00Z"


@pytest.mark.parametrize("old,new,slot,value,question,note", [
    # the trial's wordings (fresh27 D20)
    ("我的收货地址是上海市徐汇区漕溪北路100号。", "收货地址改成杭州市西湖区文三路200号。", "shipping_address",
     "杭州市西湖区文三路200号", "我的收货地址是什么？", "改为杭州市西湖区文三路200号的更改待审核"),
    ("我的收货地址是上海市徐汇区漕溪北路100号。", "My shipping address changed to 200 Wensan Road, Hangzhou.",
     "shipping_address", "200 Wensan Road, Hangzhou", "我的收货地址是什么？", "改为200 Wensan Road, Hangzhou的更改待审核"),
    # written after the fix
    ("My delivery address is 3 High Street, Bath.", "Delivery address has been updated to 9 Mill Lane, York.",
     "delivery_address", "9 Mill Lane, York", "What's my delivery address?",
     "a change to 9 Mill Lane, York is pending review"),
    ("我的邮寄地址是苏州市姑苏区人民路8号。", "邮寄地址换成了南京市鼓楼区中山路12号。", "postal_address",
     "南京市鼓楼区中山路12号", "我的邮寄地址是什么？", "改为南京市鼓楼区中山路12号的更改待审核"),
    ("我的收货地址是上海市徐汇区漕溪北路100号。", "Shipping address is now 200 Wensan Road, Hangzhou.",
     "shipping_address", "200 Wensan Road, Hangzhou", "What's my shipping address?",
     "a change to 200 Wensan Road, Hangzhou is pending review"),
    ("My phone number is 555-0100.", "Phone number changed to 555-0199.", "phone", "555-0199",
     "What's my phone number?", "a change to 555-0199 is pending review"),
    ("我的手机号是13900000000。", "手机号换成13800138000了。", "phone", "13800138000", "我的手机号是多少？",
     "改为13800138000的更改待审核"),
])
def test_a_slot_change_said_bare_is_held_for_review(mem, old, new, slot, value, question, note):
    add_events(mem, old, T1)
    evs = add_events(mem, new, T2)
    assert [(e, a, v) for e, _, a, v in evs] == [("REVIEW", slot, value)]
    assert [r.proposed.fact.attribute for r in mem.review_queue(user_id="u")] == [slot]
    cites = mem.ask(question, user_id="u").citations
    assert (cites[0].text, cites[0].note) == (old, note)


@pytest.mark.parametrize("old,new,question", [
    ("My shipping address is 12 Oak Street, Leeds.", "Her address changed to 45 Elm Road, Manchester.",
     "What's my shipping address?"),
    ("My shipping address is 12 Oak Street, Leeds.", "His address changed to 45 Elm Road, Manchester.",
     "What's my shipping address?"),
    ("我的收货地址是上海市徐汇区漕溪北路100号。", "我朋友的收货地址改成杭州市西湖区文三路200号了。", "我的收货地址是什么？"),
    ("我的收货地址是上海市徐汇区漕溪北路100号。", "我妈的收货地址改成杭州市西湖区文三路200号了。", "我的收货地址是什么？"),
])
def test_someone_elses_slot_change_changes_nothing_of_the_speakers(mem, old, new, question):
    add_events(mem, old, T1)
    evs = add_events(mem, new, T2)
    assert [e for e, *_ in evs if e in ("REVIEW", "SUPERSEDE")] == [], evs
    assert mem.review_queue(user_id="u") == []
    cites = mem.ask(question, user_id="u").citations
    assert (cites[0].text, cites[0].note) == (old, None)


def test_the_chinese_and_english_shipping_address_are_one_slot():
    zh = {f.attribute for f in extract_from_text("我的收货地址是上海市徐汇区漕溪北路100号。")}
    kd = {f.attribute for f in extract_from_text("我的快递地址是上海市徐汇区漕溪北路88号。")}
    en = {f.attribute for f in extract_from_text("My shipping address is 12 Oak Street, Leeds.")}
    assert zh == kd == en == {"shipping_address"}


@pytest.mark.parametrize("text,employer", [
    ("I quit Google, 现在在 ByteDance 上班。", "ByteDance"),  # the trial's wording (fresh27 D9)
    ("I left Infosys last month, 现在在 Shopee 上班。", "Shopee"),  # written after the fix
    ("I quit Huawei, 现在在 Grab 工作。", "Grab"),
    ("I quit Google, 现在在字节跳动上班。", "字节跳动"),
])
def test_a_chinese_work_clause_after_an_english_one_is_read(text, employer):
    facts = [(f.attribute, f.value, f.polarity) for f in extract_from_text(text)]
    assert ("employer", employer, 1) in facts, facts


def test_a_mixed_work_clause_changes_the_employer(mem):
    add_events(mem, "I work at Google as an engineer.", T1)
    evs = add_events(mem, "I quit Google, 现在在 ByteDance 上班。", T2)
    assert ("ADD", "employer", "ByteDance") in [(e, a, v) for e, _, a, v in evs]
    assert ("SUPERSEDE", "I work at Google", "employer", "Google") in evs
    current = {(m.fact.attribute, m.fact.value) for m in mem.get_all(user_id="u") if m.fact is not None}
    assert ("employer", "ByteDance") in current and ("employer", "Google") not in current
