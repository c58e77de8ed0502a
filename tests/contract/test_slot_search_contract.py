"""Search puts the memory holding the asked slot's current claim first (anchormem.retrieval.slots, issue #22), on
SQLite and PostgreSQL: the claims are read by slot from the store, whatever the embedder (here the hash embedder,
whose cosine says nothing) and whatever words the question shares with the memory ("live" / "moved")."""

from datetime import datetime, timedelta, timezone

import pytest

from anchormem.retrieval.config import RECIPES

T = datetime(2024, 1, 1, 9, 0, tzinfo=timezone.utc)
FILLER = ["I love live music at the jazz bar on Fridays.", "We went hiking in the mountains with friends.",
          "My favourite book this year was a mystery novel.", "We cooked pasta with mushrooms for dinner.",
          "The neighbours have a very noisy dog.", "I bought new running shoes for the marathon.",
          "周末和朋友去爬山了。", "邻居家的狗很吵。", "晚饭做了蘑菇意面。", "住的地方附近新开了一家面包店。",
          "I tried a new sushi place near the station.", "My phone screen cracked yesterday.",
          # the question's own words, said of other things: BM25 ranks these over the Lisbon sentence
          "We watched the live stream of the final.", "I'd love to see that band live again.",
          "Live music makes my week.", "The live recording sounds better than the album.", "Do you live-tweet concerts?",
          "They play live every Sunday.", "Where do you live these days, Tom asked me.", "A live demo went wrong at work.",
          "Live theatre is pricey here.", "I do love live comedy."]
# slot_first is opt-in (the default recipe leaves it off: retrieval.config)
ON = RECIPES["anchored"].model_copy(update={"track_access": False, "slot_first": True})  # same access counts for both
OFF = ON.model_copy(update={"slot_weight": 0.0, "slot_first": False})


def _story(mem, user: str, first: str, change: str) -> None:
    mem.add(first, user_id=user, session_id="s0", timestamp=T)
    for i, t in enumerate(FILLER):
        mem.add(t, user_id=user, session_id=f"f{i}", timestamp=T + timedelta(days=1 + i))
    mem.add(change, user_id=user, session_id="s9", timestamp=T + timedelta(days=60))


@pytest.mark.parametrize("first, change, question, now", [
    ("Hi, I'm Sam. I live in Lisbon and I work as a nurse at Santa Maria hospital.", "I moved to Berlin last month.",
     "where do I live", "I moved to Berlin last month."),
    ("你好，我是小林。我住在北京，在一家医院当护士。", "我搬到杭州了。", "我住哪？", "我搬到杭州了。"),
    ("Hi, I'm Sam. I live in Lisbon and I work as a nurse at Santa Maria hospital.", "我搬到柏林了。",
     "where do I live", "我搬到柏林了。"),
    ("你好，我住在北京，在一家医院当护士。", "I moved to Berlin last month.", "我住哪？", "I moved to Berlin last month."),
])
def test_a_slot_question_finds_the_current_claim_first(mem, first, change, question, now):
    _story(mem, "u", first, change)
    hits = mem.search(question, user_id="u", limit=10, recipe=ON)
    assert hits[0].memory.text == now
    assert hits[0].explain["slot"] == "home_city"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    olds = [i for i, h in enumerate(hits) if h.memory.text == first]
    assert all(i > 0 for i in olds)  # the superseded home never before the current one


def test_a_persons_slot_question_finds_their_current_claim(mem):
    _story(mem, "u", "My sister Mei lives in Chengdu.", "My sister Mei moved to Shanghai.")
    hits = mem.search("Where does my sister live?", user_id="u", limit=10, recipe=ON)
    assert hits[0].memory.text == "My sister Mei moved to Shanghai."


def test_a_question_naming_no_slot_is_ranked_as_without_the_slot_list(mem):
    _story(mem, "u", "Hi, I'm Sam. I live in Lisbon and I work as a nurse at Santa Maria hospital.",
           "I moved to Berlin last month.")
    for q in ("What did we cook for dinner?", "noisy dog", "周末去哪儿了？"):
        # (the fused scores: the final ones also hold recency, read against the clock)
        on = [(h.memory.id, h.explain.get("fused")) for h in mem.search(q, user_id="u", limit=10, recipe=ON)]
        off = [(h.memory.id, h.explain.get("fused")) for h in mem.search(q, user_id="u", limit=10, recipe=OFF)]
        assert len(on) >= 3
        assert on == off
        assert all("slot" not in h.explain for h in mem.search(q, user_id="u", limit=10))


def test_past_as_of_and_filtered_reads_are_left_alone(mem):
    _story(mem, "u", "Hi, I'm Sam. I live in Lisbon and I work as a nurse at Santa Maria hospital.",
           "I moved to Berlin last month.")
    past = mem.search("Where did I live before?", user_id="u", limit=10, recipe=ON)
    assert all("slot" not in h.explain for h in past)
    assert any("Lisbon" in h.memory.text for h in past[:3])
    then = mem.search("where do I live", user_id="u", limit=10, as_of=T + timedelta(days=30), recipe=ON)
    assert all("Berlin" not in h.memory.text and "slot" not in h.explain for h in then)  # not said yet then
    other = mem.search("where do I live", user_id="u", limit=10, filters={"session_id": "f3"}, recipe=ON)
    assert [h.memory.text for h in other] == [FILLER[3]]


def test_another_users_claim_is_never_placed(mem):
    _story(mem, "u", "Hi, I'm Sam. I live in Lisbon.", "I moved to Berlin last month.")
    mem.add("I live in Madrid.", user_id="v", timestamp=T)
    mem.add("We cooked pasta with mushrooms for dinner.", user_id="v", timestamp=T)
    hits = mem.search("where do I live", user_id="v", limit=10, recipe=ON)
    assert hits[0].memory.text == "I live in Madrid."
    assert all(h.memory.user_id == "v" for h in hits)
