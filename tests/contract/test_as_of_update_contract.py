"""Time travel over an edited memory, on every store: before the edit, ``as_of`` reads see the old text (returned,
matched by dense and keyword search, answered); after it, the new one."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from anchormem.timeutil import set_clock

T_ADD = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
T_EDIT = T_ADD + timedelta(days=30)
BEFORE = T_EDIT - timedelta(days=1)
AFTER = T_EDIT + timedelta(days=1)
OLD, NEW = "I live in Lisbon.", "I live in Berlin."


def _edited(mem):
    set_clock(lambda: T_ADD)
    mid = mem.add(OLD, user_id="u", timestamp=T_ADD)[0].memory.id
    mem.add("I water the plants on Fridays.", user_id="u", timestamp=T_ADD)
    set_clock(lambda: T_EDIT)
    mem.update(mid, NEW, reason="moved")
    set_clock(lambda: T_EDIT + timedelta(days=60))
    return mid


def _texts(hits, mid):
    return [h.memory.text for h in hits if h.memory.id == mid]


def test_search_as_of_before_an_edit_returns_and_matches_the_old_text(mem):
    mid = _edited(mem)
    assert [(h.event, h.old_text, h.new_text) for h in mem.history(mid)] == [
        ("ADD", None, OLD), ("UPDATE", OLD, NEW)]
    for recipe in ("hybrid_rrf", "dense", "bm25", "hybrid_weighted"):
        # before the edit: the old text, found by the old text's words, not by the new text's
        assert _texts(mem.search("Lisbon", user_id="u", as_of=BEFORE, recipe=recipe), mid) == [OLD], recipe
        assert _texts(mem.search("Where do I live in Lisbon?", user_id="u", as_of=BEFORE, recipe=recipe),
                      mid) == [OLD], recipe
        # the new text is never returned before the edit; keyword search does not match it there
        early = mem.search("Berlin", user_id="u", as_of=BEFORE, recipe=recipe, limit=10)
        assert NEW not in [h.memory.text for h in early], recipe
        assert all(h.explain["bm25"] is None for h in early if h.memory.id == mid), recipe
        # after the edit and now: the new text, and keyword search no longer matches the old one
        assert _texts(mem.search("Berlin", user_id="u", as_of=AFTER, recipe=recipe), mid) == [NEW], recipe
        assert _texts(mem.search("Berlin", user_id="u", recipe=recipe), mid) == [NEW], recipe
        late = mem.search("Lisbon", user_id="u", as_of=AFTER, recipe=recipe, limit=10)
        assert OLD not in [h.memory.text for h in late], recipe
        assert all(h.explain["bm25"] is None for h in late if h.memory.id == mid), recipe
    hit = mem.search("Lisbon", user_id="u", as_of=BEFORE, recipe="hybrid_rrf")[0]
    assert (hit.memory.id, hit.memory.text, hit.explain["bm25_rank"]) == (mid, OLD, 1)
    # the dense score is the old text's own cosine, not the new text's
    e = mem.embedder
    q = e.embed_query("Lisbon")
    old_cos = float(e.embed_documents([OLD])[0] @ q)
    dense = next(h for h in mem.search("Lisbon", user_id="u", as_of=BEFORE, recipe="dense", limit=10)
                 if h.memory.id == mid)
    assert abs(dense.explain["dense"] - old_cos) < 1e-5


def test_ask_as_of_before_an_edit_answers_with_the_old_text(mem):
    mid = _edited(mem)
    before = mem.ask("Where do I live?", user_id="u", as_of=BEFORE)
    assert not before.abstained
    assert "Lisbon" in before.text and "Berlin" not in before.text
    assert [h.memory.text for h in before.evidence if h.memory.id == mid] == [OLD]
    after = mem.ask("Where do I live?", user_id="u", as_of=AFTER)
    assert "Berlin" in after.text and "Lisbon" not in after.text


def test_store_list_and_past_texts_as_of(mem):
    mid = _edited(mem)
    s = mem._scope("u")
    assert mem.store.past_texts(s, None, BEFORE) == {mid: OLD}
    assert mem.store.past_texts(s, None, AFTER) == {}
    listed = {m.id: m.text for m in mem.store.list_memories(s, None, as_of=BEFORE)}
    assert listed[mid] == OLD
    assert {m.id: m.text for m in mem.store.list_memories(s, None, as_of=AFTER)}[mid] == NEW
    assert mem.get(mid).text == NEW  # reads without as_of are untouched


def test_two_edits_each_instant_sees_its_own_text(mem):
    set_clock(lambda: T_ADD)
    mid = mem.add("My favourite tea is oolong.", user_id="u", timestamp=T_ADD)[0].memory.id
    set_clock(lambda: T_EDIT)
    mem.update(mid, "My favourite tea is pu-erh.")
    set_clock(lambda: T_EDIT + timedelta(days=30))
    mem.update(mid, "My favourite tea is sencha.")
    set_clock(lambda: T_EDIT + timedelta(days=90))
    at = {t: _texts(mem.search("favourite tea", user_id="u", as_of=t), mid)
          for t in (BEFORE, AFTER, T_EDIT + timedelta(days=31))}
    assert at == {BEFORE: ["My favourite tea is oolong."], AFTER: ["My favourite tea is pu-erh."],
                  T_EDIT + timedelta(days=31): ["My favourite tea is sencha."]}
    assert _texts(mem.search("pu-erh", user_id="u", as_of=AFTER, recipe="bm25"), mid) == [
        "My favourite tea is pu-erh."]
    assert _texts(mem.search("sencha", user_id="u", as_of=AFTER, recipe="bm25"), mid) == []
