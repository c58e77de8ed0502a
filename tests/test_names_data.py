"""Words that are no names are one list per language (data/lang/<lang>/names.json), read by every reader that tells a
name: the typed values, the job and subject readers, the age reader, the grounding check and the answer types."""

from __future__ import annotations

from anchormem import langdata
from anchormem.answering.answer_types import states_name
from anchormem.facts.grounding import _not_names as grounding_not_names
from anchormem.facts.subjects import not_names, person_owner


def test_one_list_per_language() -> None:
    for concern in ("cues", "answers", "quantities", "slot_exemplars"):
        for lang in langdata.LANGUAGES:
            assert "not_names" not in langdata.load(concern, lang), (concern, lang)
    en = not_names("en")
    assert {"january", "monday", "it", "user", "christmas", "i'm", "ok"} <= en
    assert "mom" not in en  # a relation said as a name names someone
    assert {"今天", "老板"} <= not_names("zh")
    assert grounding_not_names() == en | not_names("zh")


def test_readers_tell_names_from_the_list() -> None:
    assert states_name("We met on Monday at the cafe", set()) is False
    assert states_name("My Mom phoned about it", set()) is False
    assert states_name("We met Priya at the cafe", set()) is True
    assert person_owner("Mom finally moved to York") == ("user", "mother")
