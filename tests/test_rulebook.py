"""The clause rules are language data (data/lang/<lang>/rules.json, anchormem.facts.rulebook): loaded on first use,
placeholders filled, a bad file refused by name, and a rule added as data is read by the extractor."""

from __future__ import annotations

import json
import re

import pytest

from anchormem import langdata
from anchormem.errors import ConfigError
from anchormem.facts import rulebook, rules
from anchormem.facts.rules import extract_from_text


def _facts(text: str) -> list[tuple[str, str, int]]:
    return [(f.attribute, f.value, f.polarity) for f in extract_from_text(text)]


def test_rules_load_in_file_order_with_their_builders() -> None:
    en, zh = rulebook.rules("en"), rulebook.rules("zh")
    assert (en[0].slot, en[0].builder, en[0].polarity) == ("name", "", 1)
    assert en[0].regex.flags & re.I
    assert [r.builder for r in en[1:4]] == ["named", "named", "named"]
    assert zh[0].slot == "name" and not zh[0].regex.flags & re.I
    assert {r.builder for r in en + zh} - {""} == set(rulebook.BUILDERS)
    assert len(en) == 60 and len(zh) == 40  # (round 17: endings whose object is implied, "She passed away", 卖了; set17: a
    # slot noun's change said without "my" / 我的)


def test_placeholders_are_filled_and_quantifiers_left_alone() -> None:
    assert rulebook.expand("{ADV}", "en").startswith("(?:(?:really|actually|now|")
    assert rulebook.expand(r"\w{0,3}", "en") == r"\w{0,3}"
    assert "妈妈" in rulebook.expand("{PERSON}", "zh")
    with pytest.raises(ConfigError, match=r"data/lang/en/rules.json: unknown placeholder \{NOPE\}"):
        rulebook.expand("{NOPE}", "en")


def test_patterns_of_several_languages_are_joined() -> None:
    lead = rulebook.pattern("lead", ("en",))
    assert lead.sub("", "Actually I think I live in Rome") == "I live in Rome"
    assert rulebook.pattern("lead", ("zh",)).sub("", "其实，我住在上海") == "我住在上海"
    subject = rulebook.pattern("speaker_subject")
    assert subject.match("I moved") and subject.match("我们搬家了") and not subject.match("He moved")
    assert rulebook.pattern("no_such_pattern").pattern == "(?!)"
    assert rulebook.entries("question_endings") == frozenset({"?", "？", "吗", "吗。", "呢", "么"})
    assert rulebook.table("counted_keys")["猫"] == "cat"


def test_the_rules_read_what_the_module_says() -> None:
    assert _facts("I used to be a teacher.") == [("occupation", "teacher", -1)]
    assert _facts("我不再是老师了") == [("occupation", "老师", -1)]
    assert _facts("我养了三只猫") == [("count:cat", "三只猫", 1)]
    assert rules._apply("en", "I have two cats") == ("count:cats", "two cats", 1)
    assert rules._apply("zh", "我最喜欢的颜色是蓝色") == ("最喜欢的颜色", "蓝色", 1)


@pytest.fixture()
def extra_rule(monkeypatch: pytest.MonkeyPatch):
    """The English rules with one rule more, as a user adding a paraphrase would write it."""
    data = json.loads(json.dumps(langdata.load("rules", "en")))
    data["rules"].insert(4, {"pattern": r"\bI\s+{ADV}dwell\s+in\s+{V}", "slot": "home_city", "polarity": 1,
                             "ignore_case": True})
    real = langdata.load

    def load(concern: str, lang: str):
        return data if (concern, lang) == ("rules", "en") else real(concern, lang)

    caches = (rulebook.rules, rulebook.pattern, rulebook.code_pieces)
    for c in caches:
        c.cache_clear()
    monkeypatch.setattr(rulebook.langdata, "load", load)
    yield data
    monkeypatch.undo()
    for c in caches:
        c.cache_clear()


def test_a_rule_added_as_data_is_read(extra_rule: dict) -> None:
    assert rules._parse_clause("I dwell in Porto") == ("home_city", "Porto", 1, "user")
    assert rules._parse_clause("I really dwell in Porto") == ("home_city", "Porto", 1, "user")


def test_a_rule_without_slot_or_known_builder_is_refused(extra_rule: dict) -> None:
    extra_rule["rules"][4] = {"pattern": "x", "builder": "guess"}
    rulebook.rules.cache_clear()
    with pytest.raises(ConfigError, match="rule 4 needs a slot or one of the builders"):
        rulebook.rules("en")
    extra_rule["rules"][4] = {"pattern": "(", "slot": "x"}
    rulebook.rules.cache_clear()
    with pytest.raises(ConfigError, match="rule 4 is no valid pattern"):
        rulebook.rules("en")
