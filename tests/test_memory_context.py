"""``Memory.context``: the four layers in one prompt-ready block; sessions shared through Redis when configured."""

from __future__ import annotations

import uuid

import pytest

from anchormem import Memory
from anchormem.config import Settings
from anchormem.errors import InvalidInputError
from anchormem.session.store import SessionKey


def test_context_mixes_long_term_memories_with_the_current_session():
    with Memory(":memory:", embedder="hash") as m:
        old = m.add("My landlord said the rent is 1,200 euros a month.", user_id="u", session_id="s1",
                    timestamp="2024-05-01T10:00:00Z")[0].memory
        m.add([{"role": "user", "content": "I am planning my budget for June."},
               {"role": "assistant", "content": "Happy to help with the budget."}], user_id="u", session_id="s2")
        block = m.context(user_id="u", session_id="s2", query="How much is my rent again?", budget_tokens=300)
        assert old.id in block.memory_ids
        assert "1,200 euros" in block.text
        assert block.text.rstrip().endswith("user: How much is my rent again?")
        assert "I am planning my budget for June." in block.text
        assert "landlord" not in m.context(user_id="u", session_id="s2", query="hello there",
                                           budget_tokens=300, memory_limit=0).text


def test_c14_the_newest_question_survives_a_small_budget_or_it_is_a_clear_error():
    with Memory(":memory:", embedder="hash") as m:
        m.add([{"role": "system", "content": "x " * 200}, {"role": "user", "content": "Earlier question."}],
              user_id="u", session_id="s")
        block = m.context(user_id="u", session_id="s", query="What does the `ord` parameter do?", budget_tokens=100)
        assert "What does the `ord` parameter do?" in block.text and block.used_tokens <= 100
        with pytest.raises(InvalidInputError, match="too small"):
            m.context(user_id="u", session_id="s", query="What does the `ord` parameter do?", budget_tokens=5)


def test_two_memory_objects_share_a_redis_session():
    redis = pytest.importorskip("redis")
    url = "redis://127.0.0.1:6379/0"
    try:
        redis.Redis.from_url(url).ping()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"no Redis reachable at {url}: {exc}")
    user = "u-" + uuid.uuid4().hex[:8]
    settings = Settings(session_url=url)
    with Memory(":memory:", embedder="hash", settings=settings) as a, \
            Memory(":memory:", embedder="hash", settings=settings) as b:
        a.add("I just ordered a blue bicycle.", user_id=user, session_id="s")
        block = b.context(user_id=user, session_id="s", query="Which colour did I order?", budget_tokens=200)
        assert "I just ordered a blue bicycle." in block.text
        b.sessions.clear(SessionKey(user, "s"))


def test_a_conversation_without_a_recipe_turns_anchoring_on_an_explicit_recipe_is_kept():
    from anchormem import Memory

    with Memory(":memory:", embedder="hash", cache=False) as m:  # the default recipe: anchored
        assert m.search_config.name == "anchored" and m.search_config.anchor
        m.add("I opened a savings account at the bank.", user_id="u", session_id="money")
        m.add("We had a picnic on the bank of the river.", user_id="u", session_id="river")
        ctx = ["My stock portfolio lost money.", "I need a better interest rate."]
        auto = m.search("What did I say about the bank?", user_id="u", context=ctx)
        assert auto and all("anchor" in h.explain for h in auto)
        assert auto[0].explain["anchor"]["query_label_source"] == "query+context"
        plain = m.search("What did I say about the bank?", user_id="u", context=ctx, recipe="hybrid_rrf")
        assert plain and not any("anchor" in h.explain for h in plain)
        alone = m.search("bank", user_id="u")  # no conversation: the query's own labels (or the recent session's)
        assert alone and all("anchor" in h.explain and "context_sim" not in h.explain["anchor"] for h in alone)
        assert not any("anchor" in h.explain for h in m.search("bank", user_id="u", recipe="hybrid_rrf"))
    # a plain default chosen by the caller: a conversation still turns anchoring on, only for that search
    with Memory(":memory:", embedder="hash", cache=False, search="hybrid_rrf") as m:
        m.add("I opened a savings account at the bank.", user_id="u", session_id="money")
        assert "anchor" not in m.search("bank", user_id="u")[0].explain
        hits = m.search("bank", user_id="u", context=["My stock portfolio lost money."])
        # anchoring ran (one memory holds "bank": nothing is ambiguous, the gate kept the hybrid order)
        assert hits[0].explain["anchor"]["query_label_source"] == "gated"


def test_labels_set_by_hand_survive_relabel_and_text_updates():
    from anchormem.errors import InvalidInputError

    with Memory(":memory:", cache=False) as m:
        item = m.add("I deposited my salary at the bank.", user_id="u")[0].memory
        assert item.labels and all(lab.set_by == "labeller" for lab in item.labels)
        got = m.update(item.id, labels=["travel"])  # labels alone: a domain name is enough
        assert [(lab.domain, lab.primary, lab.set_by) for lab in got.labels] == [("travel", True, "hand")]
        assert got.text == "I deposited my salary at the bank."
        assert [h.event for h in m.history(item.id)] == ["ADD"]  # the text did not change
        assert m.relabel(user_id="u") == 0
        assert [lab.domain for lab in m.get(item.id).labels] == ["travel"]
        m.update(item.id, "I deposited my bonus at the bank.")
        assert [(lab.domain, lab.set_by) for lab in m.get(item.id).labels] == [("travel", "hand")]
        with pytest.raises(InvalidInputError, match="needs a new text, labels, or both"):
            m.update(item.id)
        with pytest.raises(InvalidInputError, match="give a domain name, a Label or a dict"):
            m.update(item.id, labels=[42])
        with pytest.raises(InvalidInputError, match="unknown label domain 'banking'"):
            m.update(item.id, labels=["banking"])
        assert m.get(item.id).text == "I deposited my bonus at the bank."
