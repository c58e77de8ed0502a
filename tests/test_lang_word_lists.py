"""The job nouns, relation words and topic-key words are language data (data/lang/*/{jobs,kin,slots}.json), read on
first use: importing anchormem reads no language file, and the readings built from the data are the ones the
constants gave."""

from __future__ import annotations

import subprocess
import sys

from anchormem.facts import keys
from anchormem.facts.kin import kin_groups, kin_narrower, person_words, relation_pattern


def test_importing_anchormem_reads_no_language_file():
    code = ("import anchormem, anchormem.facts.keys, anchormem.answering.evidence, anchormem.facts.frames\n"
            "from anchormem import langdata\n"
            "print(langdata.load.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"


def test_jobs_read_from_jobs_json():
    assert [keys.is_occupation(v) for v in ("a nurse", "software engineer", "an ER doctor", "police officer",
                                            "counsellor", "一名医生", "会计师")] == [True] * 7
    assert [keys.is_occupation(v) for v in ("a fan of doctors", "a good cook", "a wannabe actor", "tall")] == \
        [False] * 4
    assert keys.person_slot("brother", "a doctor") == "brother_occupation"
    assert keys.person_slot("哥哥", "一名医生") == "哥哥_occupation"


def test_relations_read_from_kin_json():
    assert kin_groups()["mother"] == ("mother", "mom", "mum", "mommy", "妈妈", "母亲", "妈", "老妈")
    assert list(kin_groups())[:3] == ["mother", "father", "wife"]
    assert kin_narrower()["brother"] == ("哥哥", "弟弟")
    assert kin_narrower()["kid"] == ("son", "daughter", "child", "children", "孩子")
    assert {"brother", "bff", "闺蜜", "哥", "mom", "老公"} <= person_words()
    assert "doctor" not in person_words() and "doctor" in keys.relation_words()
    assert [keys.person_key(p) for p in ("Mom", "older brother", "moms", "哥", "老公", "children")] == \
        ["mother", "older brother", "mothers", "哥哥", "husband", "children"]
    assert keys.is_person("older_brother") and keys.is_person("wives") and not keys.is_person("favourite tea")
    assert "children" in relation_pattern(False).split("|")


def test_topic_key_words_read_from_slots_json():
    assert [keys.topic_key(t) for t in ("Jogging in the park!", "drinking coffee every morning", "喝咖啡", "两杯咖啡了",
                                        "playing tennis with friends at home")] == \
        ["run", "coffee", "coffee", "coffee", "tennis"]
    assert {"drink", "eat", "吃", "喝"} <= keys.light_verbs()


def test_the_old_constant_names_still_resolve():
    assert keys.KIN_CANONICAL == keys.kin_canonical_map() and keys.KIN_CANONICAL["太太"] == "wife"
    assert keys.OCCUPATION_EN == keys.occupation_en() and keys.PERSON_WORDS is keys.person_words()
    assert keys.LIGHT_VERBS == keys.light_verbs()
