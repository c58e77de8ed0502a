"""Speakers as a retrieval property (anchormem.retrieval.speakers): which speakers a query names, the factor per
speaker, and a person's own statements over another speaker's mentions of them through Memory.search."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem import Memory
from anchormem.embedders.hashing import HashEmbedder
from anchormem.errors import ConfigError
from anchormem.retrieval.config import RECIPES, SearchConfig, parse_recipe_spec
from anchormem.retrieval.speakers import named_speakers, speaker_rule

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)


def test_named_speakers_whole_words_and_case():
    assert named_speakers("What do Melanie's kids like?", ["Melanie", "Caroline"]) == {"Melanie"}
    assert named_speakers("What did Caroline tell Melanie?", ["Melanie", "Caroline"]) == {"Melanie", "Caroline"}
    # a capitalised name is a name only as written, unless the query is all lower case
    assert named_speakers("What will the weather be?", ["Will", "Ann"]) == set()
    assert named_speakers("what does will like?", ["Will", "Ann"]) == {"Will"}
    # whole words only: "Annual" does not name Ann
    assert named_speakers("Annual report plans?", ["Ann", "Bob"]) == set()
    # a CJK name is found inside the sentence
    assert named_speakers("小红喜欢什么?", ["小红", "小明"]) == {"小红"}
    assert named_speakers("anything", ["", "  "]) == set()


def test_speaker_rule_only_when_some_but_not_all_are_named():
    rule = speaker_rule("What does Ann like?", ["Ann", "Bob", None, "Bob"], 0.4)
    assert rule is not None and rule.named == {"Ann"}
    assert rule.weight("Bob", "I like tea.") == pytest.approx(0.6)
    assert rule.weight("Ann", "I like tea.") == 1.0
    assert rule.weight(None, "Ann likes tea.") == 1.0  # no speaker: never weighed down
    assert speaker_rule("What do Ann and Bob share?", ["Ann", "Bob"], 0.4) is None
    assert speaker_rule("What do they like?", ["Ann", "Bob"], 0.4) is None
    assert speaker_rule("What does Ann like?", ["Ann", "Bob"], 0.0) is None
    assert speaker_rule("What does Ann like?", ["Ann", None], 0.4) is None  # one speaker: nothing to prefer


def test_speaker_rule_mentions_weighs_what_others_say_to_or_about_the_person():
    rule = speaker_rule("What does Ann like?", ["Ann", "Bob"], 0.5, mentions=True)
    assert rule.weight("Bob", "How are your kids, Ann?") == pytest.approx(0.5)  # names her
    assert rule.weight("Bob", "Do you still paint?") == pytest.approx(0.5)  # addresses someone
    assert rule.weight("Bob", "I ran a charity race last week.") == 1.0  # Bob on himself: left alone
    assert rule.weight("Ann", "You should come, Ann!") == 1.0


def test_search_puts_the_named_persons_own_turn_first(two_speakers):
    cfg = SearchConfig(name="plain", track_access=False, query_rewrite="off")
    on = SearchConfig(name="spk", track_access=False, query_rewrite="off", speaker_weight=0.5)
    with two_speakers as m:
        q = "What do Ann's kids like?"
        before = m.search(q, user_id="u", recipe=cfg, limit=3)
        after = m.search(q, user_id="u", recipe=on, limit=3)
        # Bob's question names Ann and shares "kids" twice: without the speaker rule it leads
        assert before[0].memory.speaker == "Bob"
        assert after[0].memory.speaker == "Ann"
        assert after[0].explain.get("speaker_weight") is None or after[0].explain["speaker_weight"] == 1.0
        bob = next(h for h in after if h.memory.speaker == "Bob")
        assert bob.explain["speaker_weight"] == pytest.approx(0.5)
        # a query naming nobody, or both, keeps the order
        both = m.search("What do Ann and Bob say about kids?", user_id="u", recipe=on, limit=3)
        assert all("speaker_weight" not in h.explain for h in both)


def test_speaker_weight_is_a_validated_setting():
    assert RECIPES["hybrid_rrf"].speaker_weight == 0.0
    assert parse_recipe_spec("anchored+speaker_weight=0.4").speaker_weight == pytest.approx(0.4)
    with pytest.raises(ConfigError):
        parse_recipe_spec("anchored+speaker_weight=1.5")



def test_asks_set_tells_a_question_for_several_things_by_its_form():
    from anchormem.retrieval.sets import asks_set

    for q in ("What activities does Melanie partake in?", "Which books has she read?",
              "How many times has Melanie gone to the beach in 2023?", "In what ways is Caroline helping?",
              "What LGBTQ+ events has Caroline participated in?", "她都去过哪些地方？", "他去过几次北京？"):
        assert asks_set(q), q
    for q in ("What did Melanie research?", "What is Caroline's identity?", "Where has Melanie camped?",
              "What kind of counseling is she into?", "What does this mean?", "他住在哪里？", "Thanks!"):
        assert not asks_set(q), q


def test_own_lists_search_the_named_persons_memories_only(two_speakers):
    from anchormem.retrieval.speakers import own_lists
    from anchormem.types import Scope

    with two_speakers as m:
        scope = Scope(tenant=m.tenant, user_id="u")
        hits = m.search("kids beach swimming painting library hiking", user_id="u", limit=10,
                        recipe=SearchConfig(name="p", track_access=False, query_rewrite="off"))
        peek = [h.memory.id for h in hits]
        speaker = {h.memory.id: h.memory.speaker for h in hits}
        qv = m.embedder.embed_query("What activities do Ann's kids like?")
        named, lists = own_lists("What activities do Ann's kids like?", store=m.store, scope=scope, where=None,
                                 as_of=None, n=10, peek=peek, terms=["activities", "ann", "kids", "like"],
                                 query_vector=lambda: qv, dense=True, lexical=True)
        assert named == {"Ann"}
        assert set(lists) == {"dense_own", "bm25_own"}
        assert len(lists["dense_own"]) == 3  # Ann's three turns, and no other
        assert {speaker.get(d, "Ann") for d, _ in lists["dense_own"] + lists["bm25_own"]} == {"Ann"}
        assert lists["bm25_own"][0][0] == next(h.memory.id for h in hits if "swimming" in h.memory.text)
        # naming both speakers, or nobody: nothing to gather
        assert own_lists("What do Ann and Bob like?", store=m.store, scope=scope, where=None, as_of=None, n=10,
                         peek=peek, terms=["like"], query_vector=lambda: qv, dense=True, lexical=True) == (set(), {})
        assert own_lists("What do they like?", store=m.store, scope=scope, where=None, as_of=None, n=10, peek=peek,
                         terms=["like"], query_vector=lambda: qv, dense=True, lexical=True) == (set(), {})


def test_own_weight_lifts_the_named_persons_turns_for_a_set_question_only(two_speakers):
    base = SearchConfig(name="plain", track_access=False, query_rewrite="off")
    on = SearchConfig(name="own", track_access=False, query_rewrite="off", own_weight=1.0)
    with two_speakers as m:
        q = "What activities do Ann's kids like at the beach?"
        before = [h.memory.speaker for h in m.search(q, user_id="u", recipe=base, limit=3)]
        after = [h.memory.speaker for h in m.search(q, user_id="u", recipe=on, limit=3)]
        assert before[0] == "Bob" and after[0] == "Ann"
        one = "What did Ann repaint at home this month?"  # asks for one thing: the lists are not searched
        assert [h.memory.id for h in m.search(one, user_id="u", recipe=on, limit=5)] == \
            [h.memory.id for h in m.search(one, user_id="u", recipe=base, limit=5)]
    assert RECIPES["hybrid_rrf"].own_weight == 0.0 and RECIPES["anchored"].own_weight == 1.0
    assert RECIPES["anchored"].own_mentions and parse_recipe_spec("anchored+own_weight=0").own_weight == 0.0
    with pytest.raises(ConfigError):
        parse_recipe_spec("anchored+own_weight=3")


def test_own_lists_mentions_mode_drops_what_others_say_to_or_about_the_person(two_speakers):
    from anchormem.retrieval.speakers import own_lists
    from anchormem.types import Scope

    with two_speakers as m:
        hits = m.search("kids beach swimming painting library hiking bread tyres", user_id="u", limit=10,
                        recipe=SearchConfig(name="p", track_access=False, query_rewrite="off"))
        by_text = {h.memory.text: h.memory.id for h in hits}
        first = [(h.memory.id, h.score) for h in hits]
        named, lists = own_lists("What activities do Ann's kids like?", store=m.store, scope=Scope(
            tenant=m.tenant, user_id="u"), where=None, as_of=None, n=10, peek=[d for d, _ in first], terms=[],
            query_vector=None, dense=True, lexical=False, mentions={"dense": first, "bm25": first})
        assert named == {"Ann"} and set(lists) == {"dense_own"}  # lexical off: no BM25 list
        kept = [d for d, _ in lists["dense_own"]]
        # Bob's turn to Ann ("your kids ..., Ann") is left out; his turns about himself stay, in the order given
        assert by_text["I bet your kids like the beach, Ann. All kids like the beach."] not in kept
        assert by_text["I baked bread for the neighbours yesterday."] in kept
        assert kept == [d for d, _ in first if d in set(kept)] and len(kept) == len(first) - 1


def test_default_recipe_lifts_the_persons_own_turn_for_a_set_question(two_speakers):
    # the own lists alone (the question read without the name lifts Ann's turn too: tests/test_unnamed_query.py)
    alone = {"unnamed_weight": 0.0, "unnamed_own_weight": 0.0, "track_access": False}
    base = RECIPES["anchored"].model_copy(update={"own_weight": 0.0, **alone})
    on = RECIPES["anchored"].model_copy(update=alone)
    with two_speakers as m:
        q = "What activities do Ann's kids like at the beach?"
        before = [h.memory.speaker for h in m.search(q, user_id="u", recipe=base, limit=3)]
        after = [h.memory.speaker for h in m.search(q, user_id="u", recipe=on, limit=3)]
        assert before[0] == "Bob" and after[0] == "Ann"
