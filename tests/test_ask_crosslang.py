"""ask across languages and categories (real multilingual-e5-small): a question in one language about a memory said
in the other ("我住在哪里？" / "I live in Bristol."; "Where do I work?" / 我在华为上班), a category word asking for a
kind ("What pets do I have?" / "I have two cats, Miso and Tofu."), and questions nothing recorded answers, which
must abstain. Data: tests/data/ask_crosslang_{dev,heldout}.json (figures: bench/ask_crosslang.py). The dev half is
asserted case by case; the held-out half (never tuned on) by its measured pass rates."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from anchormem import Memory
from anchormem.answering.categories import asked_categories, names_kind
from anchormem.eval.embed_cache import eval_embedder
from anchormem.text.tokenize import query_terms

DATA = Path(__file__).parent / "data"
T0 = datetime(2025, 3, 1, 9, tzinfo=timezone.utc)


def _load(split: str) -> dict:
    return json.loads((DATA / f"ask_crosslang_{split}.json").read_text(encoding="utf-8"))


_DEV = _load("dev")
# dev cases still short (each names the missing mechanism; the report lists them)
_SHORT = {
    "我哥哥住在哪里？": "哥哥 is not answered by 'brother' (facts.keys.kin_covers: older or younger is unknown)",
    "What instrument is my daughter learning?": "'learning' / 学: learn is not in the study paraphrase group",
}
_SHORT_BY_USER = {("db", "What pets do I have?"), ("db", "What's my cat's name?")}  # 猫毛 is cut 猫 / 毛 by jieba


@pytest.fixture(scope="module")
def answers(e5):
    """{(split, user, question): (abstained, first cited text)} for both halves, one store."""
    out = {}
    # the eval embed cache when $ANCHORMEM_EVAL_EMBED_CACHE is set (as bench/ask_crosslang.py), else e5 itself
    m = Memory(":memory:", embedder=eval_embedder(e5), cache=False)
    try:
        for split in ("dev", "heldout"):
            data = _load(split)
            for user, texts in data["personas"].items():
                for i, text in enumerate(texts):
                    m.add(text, user_id=f"{split}-{user}", timestamp=T0 + timedelta(days=i))
            for case in data["questions"]:
                a = m.ask(case["q"], user_id=f"{split}-{case['user']}")
                out[(split, case["user"], case["q"])] = (a.abstained, a.citations[0].text if a.citations else None)
    finally:
        m.close()
    return out


def _passes(answers, split: str, case: dict, texts: list[str]) -> bool:
    abstained, first = answers[(split, case["user"], case["q"])]
    if case["gold"] is None:
        return abstained
    return not abstained and first in {texts[g] for g in case["gold"]}


@pytest.mark.parametrize("case", _DEV["questions"], ids=[f"{c['user']}:{c['q']}" for c in _DEV["questions"]])
def test_dev_case(answers, case):
    if case["q"] in _SHORT or (case["user"], case["q"]) in _SHORT_BY_USER:
        pytest.xfail(_SHORT.get(case["q"], "猫毛 is cut 猫 / 毛 by jieba: a cat word"))
    abstained, first = answers[("dev", case["user"], case["q"])]
    if case["gold"] is None:
        assert abstained, first
    else:
        assert not abstained
        assert first in {_DEV["personas"][case["user"]][g] for g in case["gold"]}


def test_heldout_rates(answers):
    """The held-out half at its measured rates (bench/ask_crosslang.py --split heldout; askq_bench.md)."""
    data = _load("heldout")
    ok = {"answerable": [0, 0], "none": [0, 0]}
    for case in data["questions"]:
        k = "none" if case["gold"] is None else "answerable"
        ok[k][0] += _passes(answers, "heldout", case, data["personas"][case["user"]])
        ok[k][1] += 1
    assert ok["answerable"][1] == 34 and ok["none"][1] == 28
    assert ok["answerable"][0] >= HELDOUT_ANSWERED_GOLD
    assert ok["none"][0] >= HELDOUT_ABSTAINED


HELDOUT_ANSWERED_GOLD = 28  # of 34 (before the change: 11)
HELDOUT_ABSTAINED = 27  # of 28 (before the change: 27)


@pytest.mark.parametrize("term, text, named", [
    ("pets", "I have two cats, Miso and Tofu.", True),
    ("宠物", "We adopted a rescue greyhound called Biscuit.", True),
    ("pets", "我养了一条金毛，叫豆豆。", True),
    ("instruments", "我会弹钢琴。", True),
    ("乐器", "My son is learning the violin.", True),
    ("dog", "我养了一条金毛。", True),
    ("cat", "我养了一条金毛。", False),
    ("pets", "I'm vegetarian.", False),
    ("fruit", "My favourite food is ramen.", False),
    ("coffee", "I drink two espressos a day.", True),
    ("hobby", "Quick intro: barista at Blue Bottle, and I throw pottery on weekends.", True),
    ("爱好", "我周末喜欢去钓鱼。", True),
    ("hobbies", "I play tennis on Sundays.", True),  # a sport is a hobby (is_a)
    ("hobby", "I live in Boston.", False),
])
def test_category_kinds_in_either_language(term, text, named):
    assert names_kind(asked_categories(term), text.lower(), query_terms(text)) is named


def test_a_word_names_no_category_unless_listed():
    assert asked_categories("weather") == frozenset()
    assert asked_categories("pets") == asked_categories("宠物") == frozenset({"pet"})


@pytest.mark.parametrize("term,cats", [
    ("care", frozenset()),          # a stemmer would make it "car"
    ("cars", frozenset({"car"})),
    ("Dogs", frozenset({"dog"})),
    ("instruments", frozenset({"instrument"})),
])
def test_question_terms_name_categories_by_noun_lemma(term, cats):
    assert asked_categories(term) == cats
