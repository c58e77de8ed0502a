"""The question read without the person it names (anchormem.retrieval.speakers.unnamed_query / unnamed_lists, and
SearchConfig.unnamed_weight through Memory.search)."""

from __future__ import annotations

import pytest

from anchormem.errors import ConfigError
from anchormem.retrieval.config import RECIPES, SearchConfig, parse_recipe_spec
from anchormem.retrieval.speakers import unnamed_lists, unnamed_query
from anchormem.text.tokenize import query_terms
from anchormem.types import Scope


def test_unnamed_query_drops_the_name_and_its_possessive():
    assert unnamed_query("What do Melanie's kids like?", ["Melanie"]) == "What do kids like?"
    assert unnamed_query("What do Melanie’s kids like?", ["Melanie"]) == "What do kids like?"
    assert unnamed_query("What did Caroline research?", ["Caroline"]) == "What did research?"
    assert unnamed_query("小美的猫叫什么？", ["小美"]) == "猫叫什么？"
    assert unnamed_query("what does melanie like", ["Melanie"]) == "what does like"  # all lower case: folded
    assert unnamed_query("When did Melanie and Caroline meet?", ["Melanie"]) == "When did and Caroline meet?"
    # a name inside another word, or not named: unchanged
    assert unnamed_query("What is Jon's job?", ["Jo"]) == "What is Jon's job?"
    assert unnamed_query("What is Will's job?", []) == "What is Will's job?"


def test_unnamed_lists_search_the_named_persons_memories_without_the_name(two_speakers):
    with two_speakers as m:
        scope = Scope(tenant=m.tenant, user_id="u")
        hits = m.search("kids beach swimming painting library hiking", user_id="u", limit=10,
                        recipe=SearchConfig(name="p", track_access=False, query_rewrite="off"))
        peek = [h.memory.id for h in hits]
        speaker = {h.memory.id: h.memory.speaker for h in hits}
        asked: list[str] = []

        def embed(text: str):
            asked.append(text)
            return m.embedder.embed_query(text)

        named, lists = unnamed_lists("What do Ann's kids like?", store=m.store, scope=scope, where=None,
                                     as_of=None, n=10, peek=peek, terms=query_terms,
                                     embed=embed, dense=True, lexical=True, every=False, own=True)
        assert named == {"Ann"} and asked == ["What do kids like?"]
        assert set(lists) == {"dense_unnamed_own", "bm25_unnamed_own"}
        assert len(lists["dense_unnamed_own"]) == 3  # Ann's three turns, and no other
        assert {speaker[d] for d, _ in lists["dense_unnamed_own"] + lists["bm25_unnamed_own"]} == {"Ann"}
        assert "swimming" in next(h.memory.text for h in hits if h.memory.id == lists["bm25_unnamed_own"][0][0])
        # over everyone too (Bob's turns as well), one embedding for both
        asked.clear()
        _n, both = unnamed_lists("What do Ann's kids like?", store=m.store, scope=scope, where=None, as_of=None,
                                 n=10, peek=peek, terms=query_terms, embed=embed,
                                 dense=True, lexical=False, every=True, own=True)
        assert set(both) == {"dense_unnamed", "dense_unnamed_own"} and asked == ["What do kids like?"]
        assert len(both["dense_unnamed"]) == 7 and len(both["dense_unnamed_own"]) == 3
        # keyword lists only: no embedding
        asked.clear()
        _n, kw = unnamed_lists("What do Ann's kids like?", store=m.store, scope=scope, where=None, as_of=None,
                               n=10, peek=peek, terms=query_terms, embed=embed, dense=False, lexical=True,
                               every=True, own=True)
        assert set(kw) == {"bm25_unnamed", "bm25_unnamed_own"} and asked == []
        # both speakers named, nobody named, or nothing asked but the person: no lists
        for q in ("What do Ann and Bob like?", "What do they like?", "Ann?", "What about Ann?"):
            assert unnamed_lists(q, store=m.store, scope=scope, where=None, as_of=None, n=10, peek=peek,
                                 terms=query_terms, embed=embed, dense=True, lexical=True,
                                 every=True, own=True) == (set(), {})


def test_unnamed_lists_are_in_the_default_recipe_and_validated(two_speakers):
    assert (RECIPES["anchored"].unnamed_weight, RECIPES["anchored"].unnamed_own_weight) == (1.0, 0.5)
    assert RECIPES["hybrid_rrf"].unnamed_weight == 0.0 and RECIPES["hybrid_rrf"].unnamed_own_weight == 0.0
    cfg = parse_recipe_spec("anchored+unnamed_weight=0.5+unnamed_own_weight=1+unnamed_sets=true")
    assert (cfg.unnamed_weight, cfg.unnamed_own_weight, cfg.unnamed_sets) == (0.5, 1.0, True)
    assert RECIPES["anchored"].unnamed_dense and not parse_recipe_spec("anchored+unnamed_dense=false").unnamed_dense
    with pytest.raises(ConfigError):
        parse_recipe_spec("anchored+unnamed_weight=3")
    on = SearchConfig(name="un", track_access=False, query_rewrite="off", unnamed_own_weight=1.0)
    off = SearchConfig(name="off", track_access=False, query_rewrite="off")
    with two_speakers as m:
        q = "What do Ann's kids like at the beach?"
        before = [h.memory.speaker for h in m.search(q, user_id="u", recipe=off, limit=3)]
        after = [h.memory.speaker for h in m.search(q, user_id="u", recipe=on, limit=3)]
        assert before[0] == "Bob" and after[0] == "Ann"
        default = RECIPES["anchored"].model_copy(update={"track_access": False})
        assert m.search(q, user_id="u", recipe=default, limit=1)[0].memory.speaker == "Ann"
        nobody = "What do the kids like at the beach?"  # names no speaker: the same ranking
        assert [h.memory.id for h in m.search(nobody, user_id="u", recipe=on, limit=5)] == \
            [h.memory.id for h in m.search(nobody, user_id="u", recipe=off, limit=5)]
