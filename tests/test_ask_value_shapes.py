"""Value shapes: a question asking for an email, a phone number, a postal address or the asker's own name is
answered only by a memory holding one (or about that slot), else ``ask`` abstains (issue #22 report)."""

import pytest

from anchormem import Memory
from anchormem.answering.value_shapes import asked_shapes, holds_shape, shape_covers


@pytest.mark.parametrize("question, kinds", [
    ("What is my email address?", {"email"}), ("What's my phone number?", {"phone"}),
    ("What is my shipping address?", {"address"}), ("Who am I?", {"self_name"}), ("What is my name?", {"self_name"}),
    ("我的收货地址是什么？", {"address"}), ("我的邮箱地址是什么？", {"email"}), ("我的电话是多少？", {"phone"}),
    ("我是谁？", {"self_name"}), ("Where do I live?", set()), ("What phone do I use?", set()),
    ("What is my IP address?", set()), ("我住在哪里？", set()), ("What is my phone plan?", set()),
    ("What's my mobile?", {"phone"}), ("我的手机多少钱？", set()), ("我的IP地址是什么？", set())])
def test_asked_shapes(question, kinds):
    assert asked_shapes(question) == frozenset(kinds)


@pytest.mark.parametrize("kind, text, holds", [
    ("email", "Write to dana.k@example.net please.", True), ("email", "I prefer email updates over calls.", False),
    ("email", "email me at [EMAIL:3f2a]", True),
    ("phone", "My mobile is 07700 900456.", True), ("phone", "On 2025-04-18 I flew home.", False),
    ("phone", "I paid 1200 for it.", False),
    ("address", "Ship it to 7 Birch Lane, York.", True), ("address", "Please stop my Gold membership.", False),
    ("address", "我的收货地址是杭州市西湖区文三路88号。", True), ("address", "以后请用中通快递，圆通太慢了。", False),
    ("self_name", "Hello, I'm Dana and I have a billing question.", True), ("self_name", "I'm tired today.", False),
    ("self_name", "你好，我叫李娜。", True), ("self_name", "我是老师。", False)])
def test_holds_shape(kind, text, holds):
    assert holds_shape(kind, text) is holds


def test_a_value_of_the_shape_covers_the_words_asking_for_it():
    assert shape_covers("What is my email address?", "email", "Reach me at dana.k@example.net.")
    assert shape_covers("What is my email address?", "address", "Reach me at dana.k@example.net.")
    assert not shape_covers("What is my email address?", "email", "My address is 7 Birch Lane, York.")
    assert shape_covers("What is my name?", "name", "Hello, I'm Dana.")


def _support_user(m: Memory) -> None:
    m.add([{"role": "user", "content": s} for s in (
        "Hello, I'm Dana and I have a billing question.", "Please stop my Gold membership, it costs too much.",
        "My parcel address is 7 Birch Lane, York.", "I relocated to 19 Cedar Avenue, Bristol a few days ago.")],
        user_id="dana", session_id="s1")
    m.add([{"role": "user", "content": s} for s in (
        "你好，我叫李娜。", "以后请用中通快递，圆通太慢了。", "我的收货地址是杭州市西湖区文三路88号。")],
        user_id="lina", session_id="z1")


def _first(ans) -> str | None:
    return ans.citations[0].text if ans.citations else None


def test_ask_cites_a_value_of_the_shape_or_abstains_hash():
    with Memory(":memory:", embedder="hash", llm=None, cache=False) as m:
        _support_user(m)
        assert m.ask("What is my email address?", user_id="dana").abstained
        assert m.ask("What is my phone number?", user_id="dana").abstained
        assert m.ask("我的邮箱是什么？", user_id="lina").abstained
        who = m.ask("Who am I?", user_id="dana")
        assert _first(who) == "Hello, I'm Dana and I have a billing question."
        assert [c.text for c in who.citations] == [_first(who)]
        assert _first(m.ask("我的收货地址是什么？", user_id="lina")) == "我的收货地址是杭州市西湖区文三路88号。"


def test_ask_cites_a_value_of_the_shape_or_abstains_e5(mem_e5):
    """With the calibrated embedder, slot evidence read by meaning (a postal address is the nearest claim to "my
    email") must still hold the shape asked."""
    _support_user(mem_e5)
    email = mem_e5.ask("What is my email address?", user_id="dana")
    assert email.abstained and email.citations == []
    assert mem_e5.ask("What is my phone number?", user_id="dana").abstained
    who = mem_e5.ask("Who am I?", user_id="dana")
    assert [c.text for c in who.citations] == ["Hello, I'm Dana and I have a billing question."]
    assert _first(mem_e5.ask("我是谁？", user_id="lina")) == "你好，我叫李娜。"
    assert _first(mem_e5.ask("我的收货地址是什么？", user_id="lina")) == "我的收货地址是杭州市西湖区文三路88号。"
    mem_e5.add("You can reach me at dana.k@example.net any time.", user_id="dana", session_id="s2")
    assert _first(mem_e5.ask("What is my email address?", user_id="dana")) == \
        "You can reach me at dana.k@example.net any time."


def test_a_redacted_value_still_holds_its_shape():
    """With ``pii="mask"`` the stored email is ``[EMAIL]``: still the email asked for; a phone is not an email."""
    with Memory(":memory:", embedder="hash", llm=None, cache=False, pii="mask") as m:
        m.add("My email is dana.k@example.net.", user_id="d")
        m.add("Please stop my Gold membership.", user_id="d")
        email = m.ask("What is my email?", user_id="d")
        assert [c.text for c in email.citations] == ["My email is [EMAIL]."]
        assert m.ask("What is my phone number?", user_id="d").abstained


def test_a_claim_on_the_slot_is_about_it():
    """A memory whose claim is on the asked kind's slot answers though it holds no value of the shape."""
    from types import SimpleNamespace

    from anchormem.answering.value_shapes import about_shape_slot, holds_asked_shape

    fact = SimpleNamespace(attribute="email_address")
    m = SimpleNamespace(text="I stopped using my old Gmail.", fact=fact, claims=[])
    assert about_shape_slot("email", m) and holds_asked_shape(frozenset({"email"}), m)
    other = SimpleNamespace(text="I stopped using my old Gmail.", fact=SimpleNamespace(attribute="home_city"),
                            claims=[])
    assert not holds_asked_shape(frozenset({"email"}), other)
    assert holds_asked_shape(frozenset(), other)  # a question asking for no shape: no gate
