"""Answer types: a question for a name is answered only by a memory that states one."""

import pytest

from anchormem import Memory
from anchormem.answering.answer_types import asks_name, states_name


@pytest.mark.parametrize("question, asks", [
    ("What is my sister's name?", True), ("What's my dog called?", True), ("我女儿叫什么？", True),
    ("What was the name of the book Melanie read?", True), ("Where do I live?", False), ("我住在哪里？", False)])
def test_asks_name(question, asks):
    assert asks_name(question) is asks


@pytest.mark.parametrize("text, names", [
    ("My sister visits on 12 May.", False), ("My sister Anna visits on 12 May.", True),
    ("I have a dog named Rex.", True), ("On Monday I walked my dog.", False), ("我女儿朵朵六一要演出。", True)])
def test_states_name(text, names):
    assert states_name(text, {"what", "is", "my", "sister's", "name"}) is names


def test_ask_abstains_when_no_memory_states_the_name():
    with Memory(":memory:", embedder="hash", llm=None, cache=False) as m:
        m.add("My sister visits on 12 May.", user_id="u")
        m.add("I have a dog named Rex.", user_id="u")
        sister = m.ask("What is my sister's name?", user_id="u")
        assert sister.abstained and sister.citations == []
        dog = m.ask("What is my dog's name?", user_id="u")
        assert not dog.abstained and [c.text for c in dog.citations][:1] == ["I have a dog named Rex."]


def test_a_supposition_is_no_evidence():
    """"If I got the job in London I would move there" states no home: ask never quotes it as one."""
    from anchormem.answering.persons import stated_text

    assert stated_text("If I got the job in London I would move there, but that's just an idea.") == ""
    assert stated_text("如果我去了北京，我会住在朝阳区。") == ""
    assert stated_text("I wonder if it rains. I live in Paris.") == "I live in Paris."
    with Memory(":memory:", embedder="hash", llm=None, cache=False) as m:
        m.add("I live in Leeds.", user_id="u")
        m.add("If I got the job in London I would move there, but that's just an idea.", user_id="u")
        london = m.ask("Do I live in London?", user_id="u")
        assert london.abstained and london.citations == []
        assert [c.text for c in m.ask("Where do I live?", user_id="u").citations][:1] == ["I live in Leeds."]


@pytest.mark.parametrize("question, kinds", [
    ("Where do I work now?", {"name"}),
    ("我有几只猫？", {"count", "name"}),
    ("How many cats do we have?", {"count", "name"}),
    ("我租房子每月花多少钱？", {"number"}),
    ("How old is my son?", {"age"}),
    ("Do I still drink bubble tea?", set()),
])
def test_asked_value_kinds(question, kinds):
    from anchormem.answering.answer_types import asked_value_kinds

    assert asked_value_kinds(question) == kinds


def test_a_code_is_no_name():
    from anchormem.facts.meaning import typed_values

    got = typed_values("Order #B778 for a rice cooker was placed today, should arrive Friday.", "en")
    assert got.get("name", []) == [] and got["number"] == ["778"]
    assert "Model" in typed_values("Now I drive a Tesla Model 3.", "en")["name"][-1]
