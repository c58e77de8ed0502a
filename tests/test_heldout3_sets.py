"""Shape of the third held-out sets (written before tuning; never tune on them): the currency stories gen3 and the
polysemy held-out 3 files. Only the format and the disjointness of words are checked here, not any content."""

import json
from importlib import resources
from pathlib import Path

from anchormem.eval.polysemy import EN_HELDOUT, EN_WORDS, _zh_cases, heldout2_cases, load_cases

ROOT = Path(__file__).resolve().parents[1]
KINDS = {"move", "job", "numeric", "count", "ending", "nonchange", "out_of_order", "concurrent"}


def test_currency_gen3_stories_have_what_the_bench_needs():
    stories = json.loads((ROOT / "bench/data/currency_stories_gen3.json").read_text("utf-8"))["stories"]
    assert len(stories) >= 90 and len({s["id"] for s in stories}) == len(stories)
    assert {s["kind"] for s in stories} == KINDS and {s["split"] for s in stories} == {"heldout"}
    assert {s["lang"] for s in stories} == {"en", "zh", "mixed"}
    for s in stories:
        texts = [t["text"].casefold() for t in s["turns"]]
        assert s["question"] and s["current"] and all(isinstance(t["day"], int) for t in s["turns"])
        assert s["kind"] == "nonchange" or any(s["superseded"].casefold() in t for t in texts)  # bench looks it up
        assert all(any(v.casefold() in t for t in texts) for v in s["current"])
        if s["kind"] == "out_of_order":  # the newer statement first, the older one imported after it
            assert s["turns"][0]["day"] > s["turns"][-1]["day"] and s["superseded"].casefold() in texts[-1]
        if s["kind"] == "concurrent":
            assert len(s["turns"]) >= 3 and s["turns"][-1]["day"] == s["turns"][-2]["day"] and len(s["current"]) == 2


def test_polysemy_heldout3_shape_and_words_apart():
    cases = []
    for lang in ("en", "zh"):
        f = f"polysemy_{lang}_heldout3.json"
        assert json.loads(resources.files("anchormem.data").joinpath(f).read_text("utf-8"))["lang"] == lang
        cases += _zh_cases(f, f"{lang}_heldout3", lang)
    assert sum(c.lang == "en" for c in cases) >= 28 and sum(c.lang == "zh" for c in cases) >= 20
    words = {c.word for c in cases}
    others = set(EN_WORDS) | set(EN_HELDOUT) | {c.word for c in load_cases() + heldout2_cases()}
    assert not words & others
    assert all(len(c.sessions) == 2 and c.target in c.sessions and c.wrong and c.context for c in cases)
    for c in cases:  # every session names its word
        assert all(any(c.word.casefold() in t.casefold() for t in turns) for turns in c.sessions.values())
