"""Grounded ask: the evidence test (cite or abstain), Chinese and English, and the checked LLM answer."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from anchormem import Memory
from anchormem.config import Settings
from anchormem.answering import AnswerConfig, EvidenceScorer, analyze_question, extractive_answer
from anchormem.llms import OpenAICompatLLM
from anchormem.testing.fake_llm import FakeLLMServer, FakeReply
from anchormem.types import Hit, MemoryItem

NO = "I have no record of that."
NO_ZH = "我没有这方面的记录。"
T0 = datetime(2024, 3, 20, 20, 11, tzinfo=timezone.utc)


def _hit(text: str, speaker: str | None = "Maya", dense: float | None = 0.85, i: int = 0) -> Hit:
    m = MemoryItem(id=f"id{i:030d}", text=text, user_id="A", speaker=speaker, created_at=T0, valid_from=T0)
    return Hit(memory=m, score=1.0 / (i + 1), explain={"dense": dense})


# ---------------------------------------------------------------- question analysis
def test_question_terms_drop_question_words_en_zh():
    q = analyze_question("What is my dog's name?")
    assert [t for t, _ in q.terms] == ["dog", "name"] and dict(q.terms)["name"] < dict(q.terms)["dog"]
    assert q.names == []
    q = analyze_question("When did Melanie go camping?")
    assert q.names == ["Melanie"] and [t for t, _ in q.terms] == ["go", "camping"]
    q = analyze_question("我什么时候去游泳？")  # 什么时候 → 什么 + 时候: neither is a key term
    assert [t for t, _ in q.terms] == ["去", "游泳"]
    q = analyze_question("我女儿叫什么名字？")  # 叫 and 名字 are one concept, counted once
    assert [t for t, _ in q.terms] == ["女儿", "叫"]


# ---------------------------------------------------------------- offline scorer (hash embedder: lexical only)
def test_dog_cat_near_miss_abstains_even_with_high_cosine():
    hits = [_hit("Last week I adopted a rescue cat named Pixel.", dense=0.84)]
    a = extractive_answer("What is my dog's name?", hits)
    assert a.abstained is True and a.citations == [] and a.text == NO
    ev = a.evidence[0].explain["evidence"]
    assert ev["covered"] == {"dog": 0.0, "name": 1.0} and ev["heavy_ok"] is False and ev["cited"] is False
    a = extractive_answer("What is the name of my cat?", hits)
    assert a.abstained is False and a.citations[0].text == "Last week I adopted a rescue cat named Pixel."
    assert a.text == 'On 2024-03-20, Maya said: "Last week I adopted a rescue cat named Pixel."'


def test_named_subject_mismatch_abstains():
    caroline = _hit("I went camping with my kids last weekend, it was great.", speaker="Caroline", i=0)
    addressed = _hit("Thanks, Melanie! I went camping by the lake.", speaker="Caroline", i=1)
    a = extractive_answer("When did Melanie go camping?", [caroline, addressed])
    assert a.abstained is True, [c.text for c in a.citations]
    assert [h.explain["evidence"]["subject_ok"] for h in a.evidence] == [False, False]
    a = extractive_answer("When did Caroline go camping?", [caroline, addressed])
    assert a.abstained is False and [c.speaker for c in a.citations][0] == "Caroline"
    mention = _hit("I went camping with Melanie in June.", speaker="Caroline")
    assert extractive_answer("When did Melanie go camping?", [mention]).abstained is False
    nick = _hit("Mel said the camping trip was in June.", speaker="Caroline")  # nickname prefix
    assert extractive_answer("When did Melanie go camping?", [nick]).abstained is False


def test_a_question_is_no_evidence():
    """Words inside a question ("What motivated you to pursue counseling?") state nothing (LoCoMo category 5)."""
    asked = _hit("Woah, it sounds like impressive work. What motivated you to pursue counseling?", speaker="Melanie")
    a = extractive_answer("What motivated Melanie to pursue counseling?", [asked])
    assert a.abstained is True and a.evidence[0].explain["evidence"]["covered"]["counseling"] == 0.0
    told = _hit("My own journey motivated me to pursue counseling.", speaker="Melanie")
    assert extractive_answer("What motivated Melanie to pursue counseling?", [told]).citations[0].text == told.memory.text


def test_what_the_speaker_says_of_the_addressee_is_not_about_the_speaker():
    cheer = _hit("That charity race sounds great, Mel! I'm proud of you. You ran the charity race so well!",
                 speaker="Caroline")
    assert extractive_answer("What did Caroline do at the charity race?", [cheer]).abstained is True
    own = _hit("I ran the charity race with you last Sunday!", speaker="Caroline")  # first person: about her too
    assert extractive_answer("What did Caroline do at the charity race?", [own]).abstained is False


def test_further_names_must_be_named():
    rome = _hit("Took a short trip last week to Rome to clear my mind.", speaker="Jon")
    a = extractive_answer("What did Jon take a trip to Barcelona for?", [rome])
    assert a.abstained is True and a.evidence[0].explain["evidence"]["covered"]["barcelona"] == 0.0
    assert extractive_answer("What did Jon take a trip to Rome for?", [rome]).abstained is False
    # a word of a multi-word name is not a further name of its own
    assert [t for t, _ in analyze_question("What yield did I mention for Steady Income Fund No. 3?").terms] == \
        ["yield", "mention", "3"]


def test_contrasting_words_never_cover_each_other(e5):
    scorer = EvidenceScorer(e5)
    gift = _hit("This necklace is a gift from my grandma in Sweden.", speaker="Caroline", dense=0.9)
    [s] = scorer.score("What was grandpa's gift to Caroline?", [gift])
    assert s.covered["grandpa"] == 0.0
    [s] = scorer.score("What was grandma's gift to Caroline?", [gift])
    assert s.covered["grandma"] == 1.0


def test_a_how_much_question_needs_a_number():
    expiry = _hit("我的身份证快到期了。", speaker=None)
    assert extractive_answer("我的身份证号是多少？", [expiry]).abstained is True
    rent = _hit("My rent is 4500 yuan a month.", speaker=None)
    assert extractive_answer("How much is my rent?", [rent]).citations[0].text == "My rent is 4500 yuan a month."
    assert extractive_answer("How much is my rent?", [_hit("My rent is too high.", speaker=None)]).abstained


def test_second_citation_must_be_relevant():
    vet = _hit("Her first vet visit cost 85 euros.", dense=0.88, i=0)
    lena = _hit("My sister Lena is visiting from Toronto on March 22.", dense=0.86, i=1)
    a = extractive_answer("How much did the vet visit cost?", [vet, lena])
    assert [c.text for c in a.citations] == ["Her first vet visit cost 85 euros."]
    assert a.evidence[1].explain["evidence"]["coverage"] < 0.5
    # 什么时候 must not make 时候 a shared word
    swim = _hit("我每周二和周四晚上去游泳馆游泳。", speaker="林晓", i=0)
    peanuts = _hit("帮我推荐外卖的时候一定要注意花生。", speaker="林晓", i=1)
    a = extractive_answer("我什么时候去游泳？", [swim, peanuts])
    assert [c.text for c in a.citations] == ["我每周二和周四晚上去游泳馆游泳。"]


def test_two_relevant_memories_are_both_cited_and_max_citations_holds():
    hits = [_hit("I'm vegetarian, so keep that in mind.", i=0), _hit("I'm not vegetarian anymore.", i=1),
            _hit("Vegetarian food is great, I was vegetarian for years.", i=2)]
    a = extractive_answer("Am I vegetarian?", hits, AnswerConfig(max_citations=2))
    assert len(a.citations) == 2 and a.abstained is False


def test_dense_gate_floor_and_margin():
    cfg = AnswerConfig(dense_floor=0.8)
    a = extractive_answer("How much did the vet visit cost?", [_hit("The vet visit cost 85 euros.", dense=0.7)], cfg)
    assert a.abstained is True
    hits = [_hit("The vet visit cost 85 euros.", dense=0.9, i=0), _hit("A vet visit cost me 40 euros once.",
                                                                        dense=0.75, i=1)]
    a = extractive_answer("How much did the vet visit cost?", hits, AnswerConfig(dense_floor=0.7, dense_margin=0.1))
    assert [c.text for c in a.citations] == ["The vet visit cost 85 euros."]
    # found by keywords only (no cosine): every key term must be there
    assert extractive_answer("vet visit cost", [_hit("The vet visit cost 85 euros.", dense=None)]).abstained is False
    assert extractive_answer("vet bill cost", [_hit("The vet visit cost 85 euros.", dense=None)]).abstained is True


def test_chinese_questions_offline():
    move = _hit("我上周三刚搬到杭州，在西湖区租了一套两居室。", speaker="林晓", i=0)
    hotel = _hit("公司报销住宿费每晚不超过500元。", speaker="林晓", i=1)
    a = extractive_answer("我住在哪里？", [move, hotel])  # paraphrase: 住 ~ 搬到 (lexicon)
    assert [c.text for c in a.citations] == [move.memory.text] and a.abstained is False
    daughter = _hit("我女儿朵朵六一要参加学校的钢琴演出。", speaker="林晓")
    assert extractive_answer("我女儿叫什么名字？", [daughter]).citations[0].text == daughter.memory.text
    a = extractive_answer("我养的狗叫什么名字？", [daughter, move])
    assert a.abstained is True and a.text == NO_ZH


def test_ask_facade_offline_with_hash_embedder(mem):
    mem.add("I just started a new job as a data engineer at Helix Robotics.", user_id="A")
    mem.add("Last week I adopted a rescue cat named Pixel.", user_id="A")
    a = mem.ask("Where do I work?", user_id="A")  # paraphrase: work ~ job (lexicon)
    assert a.abstained is False and a.citations[0].text.startswith("I just started a new job")
    assert a.text.startswith("On ") and "I just started a new job as a data engineer" in a.text
    a = mem.ask("What is my dog's name?", user_id="A")
    assert a.abstained is True and a.text == NO and a.evidence  # evidence kept for inspection
    assert all("evidence" in h.explain for h in a.evidence)


# ---------------------------------------------------------------- real embedder
def test_e5_paraphrases_and_near_misses(mem_e5):
    mem_e5.add("Last week I adopted a rescue cat named Pixel. She hides under the sofa all day.", user_id="A")
    mem_e5.add("I adopted a golden retriever named Biscuit last spring.", user_id="B")
    mem_e5.add("Pretty well. My sister Lena is visiting from Toronto on March 22.", user_id="A")
    mem_e5.add("Her first vet visit cost 85 euros.", user_id="A")
    mem_e5.add("我上周三刚搬到杭州，在西湖区租了一套两居室，月租4500元。", user_id="A")
    a = mem_e5.ask("What is my dog's name?", user_id="A")
    assert a.abstained is True and a.citations == []
    a = mem_e5.ask("What is the name of my dog?", user_id="B")  # dog ~ retriever by word embedding
    assert a.abstained is False and "Biscuit" in a.citations[0].text
    a = mem_e5.ask("How much did the vet visit cost?", user_id="A")
    assert [c.text for c in a.citations] == ["Her first vet visit cost 85 euros."]
    a = mem_e5.ask("我住在哪里？", user_id="A")
    assert a.abstained is False and "杭州" in a.citations[0].text
    assert mem_e5.ask("我会说日语吗？", user_id="A").text == NO_ZH
    assert mem_e5.ask("Do I play the guitar?", user_id="A").abstained is True


def test_scorer_word_similarity_is_relative(e5):
    s = EvidenceScorer(e5)
    # "hound" is no listed kind of dog (data/lang/*/categories.json): covered by embedding only
    dog = [_hit("I adopted a hound named Biscuit.", speaker=None)]
    cat = [_hit("I adopted a rescue cat named Pixel.", speaker=None)]
    assert s.score("What is the name of my dog?", dog)[0].covered["dog"] == pytest.approx(0.6)  # semantic_credit
    retriever = [_hit("I adopted a golden retriever named Biscuit.", speaker=None)]
    assert s.score("What is the name of my dog?", retriever)[0].covered["dog"] == 1.0  # a listed kind of dog
    assert s.score("What is the name of my dog?", cat)[0].covered["dog"] == 0.0
    # a near word counts less than the word itself: dog 0.6 + name 0.35 (light) of 1.35
    assert s.score("What is the name of my dog?", dog)[0].coverage == pytest.approx(0.95 / 1.35, abs=1e-3)
    s9 = EvidenceScorer(e5, AnswerConfig(semantic_credit=0.9))
    assert s9.score("What is the name of my dog?", dog)[0].covered["dog"] == pytest.approx(0.9)


# ---------------------------------------------------------------- two memories together (multi-hop)
_MARKET_Q = "What did Maya buy at the flea market in Lisbon?"


def _market_hits() -> list[Hit]:
    return [_hit("I found a vintage lamp at the flea market.", dense=0.86, i=0),
            _hit("I went to Lisbon to buy tiles for the kitchen.", dense=0.84, i=1),
            _hit("Lisbon was sunny all week.", dense=0.83, i=2)]


def test_two_memories_that_together_cover_the_question_are_cited_together():
    hits = _market_hits()
    a = extractive_answer(_MARKET_Q, hits)  # each covers 2 of 4 key terms (0.5 < 0.6), together all 4
    assert a.abstained is False
    assert [c.text for c in a.citations] == [hits[0].memory.text, hits[1].memory.text]
    assert [h.explain["evidence"]["coverage"] for h in a.evidence] == [0.5, 0.5, 0.25]
    assert [h.explain["evidence"]["cited"] for h in a.evidence] == [True, True, False]
    assert a.text == ('On 2024-03-20, Maya said: "I found a vintage lamp at the flea market." '
                      'On 2024-03-20, Maya said: "I went to Lisbon to buy tiles for the kitchen."')


def test_pair_needs_each_memory_to_cover_pair_min():
    hits = _market_hits()
    # flea market (0.5) + "Lisbon was sunny" (0.25) reach 0.75 together, but the second covers too little
    assert extractive_answer(_MARKET_Q, [hits[0], hits[2]]).abstained is True
    assert extractive_answer(_MARKET_Q, hits, AnswerConfig(pair_min=1.0)).abstained is True  # pairs off
    assert extractive_answer(_MARKET_Q, hits, AnswerConfig(pair_min=0.2)).abstained is False
    # the pair covers all four terms, so it passes even min_coverage 1.0
    assert extractive_answer(_MARKET_Q, hits[:2], AnswerConfig(min_coverage=1.0)).abstained is False
    # a pair where one memory adds nothing the other lacks is no pair
    same = [hits[0], _hit("The flea market opens at nine.", dense=0.85, i=3)]
    assert extractive_answer(_MARKET_Q, same).abstained is True


def test_select_pair_prefers_the_best_union():
    from anchormem.answering.evidence import Scored, select_pair
    terms = [("buy", 1.0), ("flea", 1.0), ("market", 1.0), ("lisbon", 1.0)]
    a = Scored(0, 0.5, True, True, 0.86, True, {"buy": 0.0, "flea": 1.0, "market": 1.0, "lisbon": 0.0})
    b = Scored(1, 0.5, True, True, 0.85, True, {"buy": 1.0, "flea": 1.0, "market": 0.0, "lisbon": 0.0})
    c = Scored(2, 0.5, True, True, 0.84, True, {"buy": 1.0, "flea": 0.0, "market": 0.0, "lisbon": 1.0})
    assert [s.index for s in select_pair([a, b, c], terms, 0.6, 0.5)] == [0, 2]  # a+c cover all 4, a+b only 3
    assert select_pair([a, b], terms, 0.8, 0.5) == []  # 0.75 < 0.8
    assert select_pair([a, Scored(1, 0.5, False, True, 0.85, True, c.covered)], terms, 0.6, 0.5) == []  # not ok


# ---------------------------------------------------------------- addressee, subjects, dates, exchanges
def _hit_at(text: str, when: datetime, speaker: str | None = "Maya", dense: float | None = 0.85, i: int = 0,
            session: str | None = None) -> Hit:
    m = MemoryItem(id=f"id{i:030d}", text=text, user_id="A", speaker=speaker, created_at=when, valid_from=when,
                   session_id=session)
    return Hit(memory=m, score=1.0 / (i + 1), explain={"dense": dense})


def test_an_addressed_name_is_not_the_subject():
    # "Woohoo Melanie!" / "That's really cool Joanna!" address the other person: Caroline's news is not Melanie's
    woohoo = _hit("Woohoo Melanie! I passed the adoption agency interviews last Friday!", speaker="Caroline")
    a = extractive_answer("Why did Melanie pass the adoption agency interviews?", [woohoo])
    assert a.abstained is True and a.evidence[0].explain["evidence"]["subject_ok"] is False
    assert extractive_answer("When did Caroline pass the adoption agency interviews?", [woohoo]).abstained is False
    cool = _hit("That's really cool Joanna! The gaming party was a great success!", speaker="Nate")
    assert extractive_answer("Who came to Joanna's gaming party?", [cool]).evidence[0].explain["evidence"][
        "subject_ok"] is False
    told = _hit("The gaming party at Joanna's place was a great success!", speaker="Nate")  # a third person
    assert extractive_answer("Who came to Joanna's gaming party?", [told]).evidence[0].explain["evidence"][
        "subject_ok"] is True
    # a name inside a question is no mention: "Did Melanie go camping?" says nothing about her
    asked = _hit("Did Melanie go camping? I went camping by the lake last week.", speaker="Caroline")
    assert extractive_answer("When did Melanie go camping?", [asked]).abstained is True


def test_names_joined_by_and_are_all_subjects():
    q = analyze_question("How do Jon and Gina both like to destress?")
    assert q.subjects == ["Jon", "Gina"] and [t for t, _ in q.terms] == ["destress"]
    gina = _hit("Dance is pretty much my way to destress.", speaker="Gina")
    a = extractive_answer("How do Jon and Gina both like to destress?", [gina])
    assert a.abstained is False and a.evidence[0].explain["evidence"]["subject_ok"] is True
    assert extractive_answer("How does Jon like to destress?", [gina]).abstained is True
    # a question's opening word is no name ("According to Gina, …")
    q = analyze_question("According to Gina, what makes Jon a perfect mentor?")
    assert q.names == ["Gina", "Jon"] and q.subjects == ["Gina"]


def test_light_plurals_and_answer_kind_nouns_weigh_less():
    w = dict(analyze_question("What types of yoga has Maria practiced?").terms)
    assert w == {"types": 0.35, "yoga": 1.0, "practiced": 1.0}
    w = dict(analyze_question("What activities does Nate do with his turtles?").terms)
    assert w["activities"] == 0.35 and w["turtles"] == 1.0
    assert dict(analyze_question("我最近参加了什么活动？").terms).get("活动") == 0.35
    # the memory names the activity, never the word "activities": 1 / 1.35 = 0.74 passes (as a heavy term: 0.5)
    shelter = _hit("I volunteered at the shelter and served dinner.", speaker="Maria")
    a = extractive_answer("What activities did Maria do at the shelter?", [shelter])
    assert a.abstained is False and a.evidence[0].explain["evidence"]["coverage"] == pytest.approx(0.7407, abs=1e-4)


def test_your_noun_phrase_belongs_to_the_addressee():
    from anchormem.answering.evidence import stated_text
    assert "turtles" not in stated_text("So cute! I love your turtles so much!", about_speaker=True)
    assert "turtles" in stated_text("So cute! I love my turtles so much!", about_speaker=True)
    assert "乌龟" not in stated_text("我很喜欢你的乌龟。", about_speaker=True)
    assert "乌龟" in stated_text("我很喜欢我的乌龟。", about_speaker=True)
    theirs = _hit("So cute! I love your turtles so much!", speaker="Joanna")
    assert extractive_answer("What does Joanna love about her turtles?", [theirs]).abstained is True
    mine = _hit("I love my turtles so much!", speaker="Joanna")
    assert extractive_answer("What does Joanna love about her turtles?", [mine]).abstained is False


def test_a_date_in_the_question_is_one_term_matched_against_the_memory_date():
    from anchormem.answering.evidence import DATE_TERM, question_date
    assert question_date("Who did Maria have dinner with on May 3, 2023?")[0] == (2023, 5, 3)
    assert question_date("What did John receive on 3 June, 2023?")[0] == (2023, 6, 3)
    assert question_date("What happened to John's job in August 2023?")[0] == (2023, 8, None)
    assert question_date("When did Melanie go camping in June?")[0] == (None, 6, None)
    assert question_date("我2023年5月3日做了什么？")[0] == (2023, 5, 3)
    assert question_date("What did I do in 2022?")[0] == (2022, 0, None)
    assert question_date("What may happen next?")[0] is None  # "may" alone is no month
    q = analyze_question("What did Maria participate in last weekend before April 10, 2023?")
    assert [t for t, _ in q.terms] == ["participate", "last", "weekend", DATE_TERM] and q.date == (2023, 4, 10)
    said = datetime(2023, 4, 10, 18, 0, tzinfo=timezone.utc)
    run = "Last weekend I participated in a 5K charity run for a homeless shelter."
    a = extractive_answer("What did Maria participate in last weekend before April 10, 2023?",
                          [_hit_at(run, said, speaker="Maria")])
    assert a.abstained is False and a.evidence[0].explain["evidence"]["covered"][DATE_TERM] == 1.0
    other = datetime(2023, 6, 20, 18, 0, tzinfo=timezone.utc)
    a = extractive_answer("What did Maria participate in on 10 April, 2023?", [_hit_at(run, other, speaker="Maria")])
    assert a.evidence[0].explain["evidence"]["covered"][DATE_TERM] == 0.0 and a.abstained is True
    # Chinese: 2023年6月3日 is one term too
    swim = "我在海边游泳了。"
    q = "我2023年6月3日在哪里游泳？"
    assert [t for t, _ in analyze_question(q).terms] == ["游泳", DATE_TERM]
    on = datetime(2023, 6, 3, 9, 0, tzinfo=timezone.utc)
    assert extractive_answer(q, [_hit_at(swim, on, speaker=None)]).abstained is False
    assert extractive_answer(q, [_hit_at(swim, other, speaker=None)]).abstained is True  # 0.5 < 0.6


def test_same_exchange_memories_are_cited_together():
    from anchormem.answering.evidence import Scored, select
    cfg = AnswerConfig(max_citations=3)
    terms = [("finished", 1.0), ("screenplay", 1.0), ("plans", 1.0)]
    top = Scored(0, 1.0, True, True, 0.86, True, {}, "t:1")
    mate = Scored(1, 0.75, True, True, 0.85, True, {}, "t:1")   # below the second-citation bar (1.0 - 0.2)
    stranger = Scored(2, 0.75, True, True, 0.85, True, {}, "t:2")
    assert [s.index for s in select([top, mate, stranger], cfg, terms=terms)] == [0, 1]
    assert [s.index for s in select([top, stranger], cfg, terms=terms)] == [0]
    weak = Scored(1, 0.5, True, True, 0.85, True, {}, "t:1")  # below min_coverage: never cited
    assert [s.index for s in select([top, weak], cfg, terms=terms)] == [0]
    assert len(select([top, mate, Scored(3, 0.95, True, True, 0.8, True, {}, "t:9")], AnswerConfig(max_citations=2),
                      terms=terms)) == 2
    # through the scorer: one session (or one instant) is one exchange
    t1 = datetime(2022, 1, 23, 12, 0, tzinfo=timezone.utc)
    hits = [_hit_at("I finally finished my first full screenplay and printed it!", t1, speaker="Joanna", i=0),
            _hit_at("Now I'm gonna submit my finished screenplay to film festivals.", t1, speaker="Joanna", i=1)]
    a = extractive_answer("What did Joanna do with her finished screenplay?", hits)
    assert len(a.citations) == 2 and {h.explain["evidence"]["group"] for h in a.evidence} == {f"t:{t1.isoformat()}"}


def test_a_reply_is_read_with_the_question_it_answers():
    reply = _hit("They were scared but we reassured them. They're tough kids.", speaker="Melanie")
    q = "How did Melanie's kids handle the accident?"
    assert extractive_answer(q, [reply]).abstained is True
    a = extractive_answer(q, [reply], prompts=["The kids look so cute! How did they handle the accident?"])
    assert a.abstained is False and a.citations[0].text == reply.memory.text
    # only the prompt's questions count, not its statements
    a = extractive_answer(q, [reply], prompts=["The accident was awful. I handled it badly."])
    assert a.abstained is True
    zh = _hit("他们吓坏了，不过我们安慰了他们。", speaker=None)
    assert extractive_answer("孩子们怎么面对车祸？", [zh]).abstained is True
    assert extractive_answer("孩子们怎么面对车祸？", [zh], prompts=["孩子们怎么面对车祸的？"]).abstained is False


# ---------------------------------------------------------------- LLM answers (scripted server)
def _llm_mem(db_path, srv):
    # answers only: the scripted replies are for ask, so facts and labels come from the offline rules here
    m = Memory(db_path, embedder="hash", llm=OpenAICompatLLM(srv.base_url, "fake", max_retries=0),
               settings=Settings(fact_extractor="rules", labeller="offline"))
    vet = m.add("Her first vet visit cost 85 euros.", user_id="A", timestamp="2024-03-20T20:00:00Z")[0].memory
    m.add("My sister Lena is visiting from Toronto on March 22.", user_id="A", timestamp="2024-03-04T19:00:00Z")
    return m, vet


Q = "How much did the vet visit cost?"
EXTRACTIVE = 'On 2024-03-20, you said: "Her first vet visit cost 85 euros."'


def test_llm_good_grounded_reply(db_path):
    with FakeLLMServer(['{"answer": "The first vet visit cost 85 euros.", "cited_ids": ["m1"]}']) as srv:
        m, vet = _llm_mem(db_path, srv)
        try:
            a = m.ask(Q, user_id="A")
        finally:
            m.close()
        sent = srv.requests[0]["messages"]
    assert a.abstained is False and [c.id for c in a.citations] == [vet.id]
    assert a.text == "The first vet visit cost 85 euros. " + EXTRACTIVE
    memories = [json.loads(line) for line in sent[1]["content"].split("\n") if line.startswith("{")]
    assert memories == [{"id": "m1", "speaker": "user", "date": "2024-03-20",
                         "text": "Her first vet visit cost 85 euros."}]  # only the compressed evidence
    assert "Question: How much did the vet visit cost?" in sent[1]["content"]
    assert "strictly from the memories" in sent[0]["content"] and "strictly" not in a.text


@pytest.mark.parametrize("reply", [
    '{"answer": "It cost 85 euros.", "cited_ids": ["m7"]}',                 # unknown id
    '{"answer": "It cost 85 euros.", "cited_ids": ["0123456789abcdef"]}',  # unknown full id
    '{"answer": "It cost 120 euros.", "cited_ids": ["m1"]}',                # invented number
    '{"answer": "Dr Smith charged 85 euros in June.", "cited_ids": ["m1"]}',  # invented name and month
    '{"answer": "Use only facts stated in the memories; never add numbers, dates, names.", "cited_ids": ["m1"]}',
    '{"answer": "85 euros"}',                                               # no citations
], ids=["unknown-id", "unknown-full-id", "invented-number", "invented-name-month", "prompt-echo", "no-cites"])
def test_llm_bad_reply_falls_back_to_extractive(db_path, reply):
    with FakeLLMServer([reply]) as srv:
        m, vet = _llm_mem(db_path, srv)
        try:
            a = m.ask(Q, user_id="A")
        finally:
            m.close()
        assert len(srv.requests) == 1
    assert a.abstained is False and a.text == EXTRACTIVE and [c.id for c in a.citations] == [vet.id]


def test_llm_broken_json_retries_once_then_falls_back(db_path):
    with FakeLLMServer(["Sure! The answer is 85 euros", "still not json, sorry", "never used"]) as srv:
        m, vet = _llm_mem(db_path, srv)
        try:
            a = m.ask(Q, user_id="A")
        finally:
            m.close()
        assert len(srv.requests) == 2 and srv.remaining == 1
        assert "not valid JSON" in srv.requests[1]["messages"][-1]["content"]
    assert a.text == EXTRACTIVE and a.abstained is False


def test_llm_broken_json_then_good_reply(db_path):
    with FakeLLMServer(["{answer: oops", '```json\n{"answer": "85 euros.", "cited_ids": ["m1"]}\n```']) as srv:
        m, vet = _llm_mem(db_path, srv)
        try:
            a = m.ask(Q, user_id="A")
        finally:
            m.close()
    assert a.text.startswith("85 euros. On 2024-03-20") and a.citations[0].id == vet.id


def test_llm_explicit_abstain_and_http_error(db_path):
    with FakeLLMServer(['{"abstain": true}', FakeReply(status=500, content="boom")]) as srv:
        m, vet = _llm_mem(db_path, srv)
        try:
            a = m.ask(Q, user_id="A")
            assert a.abstained is True and a.citations == [] and a.text == NO
            b = m.ask(Q, user_id="A")  # endpoint fails: the extractive answer, no exception
            assert b.text == EXTRACTIVE
            # nothing passes the evidence test: abstain without calling the LLM
            n = len(srv.requests)
            c = m.ask("What is my dog's name?", user_id="A")
            assert c.abstained is True and len(srv.requests) == n
        finally:
            m.close()


def test_memory_llm_default_from_environment(db_path, monkeypatch):
    monkeypatch.delenv("ANCHORMEM_LLM_BASE_URL", raising=False)
    m = Memory(db_path, embedder="hash")
    assert m.llm is None
    m.close()
    monkeypatch.setenv("ANCHORMEM_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ANCHORMEM_LLM_MODEL", "m")
    m = Memory(db_path, embedder="hash")
    assert isinstance(m.llm, OpenAICompatLLM)
    m.close()
    m = Memory(db_path, embedder="hash", llm=None)
    assert m.llm is None
    m.close()


def test_ask_reads_a_reply_with_the_question_it_answers():
    """"They loved it" says nothing about a museum; as the reply to "How did your kids like the science museum?"
    it answers "How did Caroline's kids like the science museum?". The turn before it in its session, said by
    the other speaker, is its prompt (``Memory._reply_prompts``); a question about the zoo still abstains."""
    from anchormem.answering import extractive_answer

    m = Memory(":memory:")
    talks = {"s1": [("Melanie", "How did your kids like the science museum on Saturday?"),
                    ("Caroline", "They loved it, especially the dinosaur hall and the planetarium show!")],
             "s2": [("Caroline", "I started a pottery class last week."), ("Melanie", "That sounds fun.")]}
    for sess, turns in talks.items():
        m.add([{"role": "user", "name": n, "content": c} for n, c in turns], user_id="u", session_id=sess)
    q = "How did Caroline's kids like the science museum?"
    a = m.ask(q, user_id="u")
    assert not a.abstained and [c.text for c in a.citations] == [talks["s1"][1][1]]
    hits = m.search(q, user_id="u")
    prompts = m._reply_prompts("u", hits)
    by_text = {h.memory.text: p for h, p in zip(hits, prompts)}
    assert by_text[talks["s1"][1][1]] == talks["s1"][0][1]  # Melanie asked it
    assert by_text[talks["s1"][0][1]] is None  # first of its session
    assert by_text["That sounds fun."] == "I started a pottery class last week."  # another speaker's turn
    assert extractive_answer(q, hits, m.answer_config, embedder=m.embedder).abstained  # without the prompts
    assert m.ask("What did Caroline's kids think of the zoo?", user_id="u").abstained
    m.close()


def test_a_chinese_light_verb_adds_nothing_to_a_key_term():
    """喝咖啡 (drink coffee) is covered by 我戒咖啡了 (I quit coffee) in full, as "drink coffee" is keyed by coffee
    (facts.keys.LIGHT_VERBS); a term whose object is missing stays uncovered."""
    scorer = EvidenceScorer(None, AnswerConfig())
    q = analyze_question("我还喝咖啡吗？")
    assert ("喝咖啡", 1.0) in q.terms
    quit_coffee, tea = _hit("我戒咖啡了。"), _hit("我每天喝茶。")
    s = scorer.score(q, [quit_coffee, tea])
    assert s[0].covered["喝咖啡"] == 1.0 and s[0].coverage == 1.0
    assert s[1].covered["喝咖啡"] < 0.7


def test_a_question_alone_does_not_set_the_dense_bar_for_its_reply():
    """Alice's question is the closest memory to "How did Bob's kids like the museum?" but is no evidence; the bar
    of the dense check (within ``dense_margin`` of the best) comes from memories that state something, so Bob's
    short reply, read with her question, is cited; a question about the zoo still abstains."""
    m = Memory(":memory:")
    m.add([{"role": "user", "name": "Alice", "content": "How did your kids like the museum?"},
           {"role": "user", "name": "Bob", "content": "They loved it!"},
           {"role": "user", "name": "Alice", "content": "I went hiking on Saturday."},
           {"role": "user", "name": "Bob", "content": "I painted a sunrise that weekend."}],
          user_id="s1", session_id="2023-06-03", timestamp="2023-06-03T15:00:00Z")
    a = m.ask("How did Bob's kids like the museum?", user_id="s1")
    assert not a.abstained and [c.text for c in a.citations] == ["They loved it!"]
    question = next(h for h in a.evidence if h.memory.text.startswith("How did"))
    assert question.explain["dense"] > a.evidence[[h.memory.text for h in a.evidence].index("They loved it!")
                                                   ].explain["dense"] + 0.08  # it would have ruled the reply out
    assert m.ask("How did Bob's kids like the zoo?", user_id="s1").abstained
    m.close()


# ---------------------------------------------------------------- person swap: the event is another person's
def test_person_swap_abstains_when_another_person_states_the_event_en():
    q = "Where did Caroline take the kids hiking?"
    subject = _hit("The kids love hiking so much!", speaker="Caroline", i=0)  # passes alone (0.85)
    a = extractive_answer(q, [subject])
    assert a.abstained is False and a.citations[0].speaker == "Caroline"
    other = _hit("I take my kids hiking in the mountains every weekend.", speaker="Melanie", i=1)
    a = extractive_answer(q, [subject, other])
    assert a.abstained is True and a.text == NO
    ev = [h.explain["evidence"] for h in a.evidence]
    assert [e["other_coverage"] for e in ev] == [None, 1.0] and ev[0]["coverage"] == pytest.approx(0.8511, abs=1e-4)
    assert extractive_answer(q, [subject, other], AnswerConfig(person_swap=False)).abstained is False
    # the other speaker talking to or about the subject is no claim of their own
    for echo in ("Caroline, you take the kids hiking in the mountains? So fun!",
                 "Your kids must love to take hiking trips in the mountains."):
        a = extractive_answer(q, [subject, _hit(echo, speaker="Melanie", i=1)])
        assert a.abstained is False and [c.speaker for c in a.citations] == ["Caroline"], echo
        assert a.evidence[1].explain["evidence"]["other_coverage"] is None
    # a memory without a speaker is nobody else's claim; a question naming nobody has no swap
    anon = _hit("I take my kids hiking in the mountains every weekend.", speaker=None, i=1)
    assert extractive_answer(q, [subject, anon]).abstained is False
    a = extractive_answer("Where do we take the kids hiking?", [subject, other])
    assert a.abstained is False and a.evidence[1].explain["evidence"]["other_coverage"] is None


def test_person_swap_abstains_when_another_person_states_the_event_zh():
    q = "Caroline 带孩子们去哪里徒步旅行了？"
    subject = _hit("孩子们很喜欢去山里徒步旅行！", speaker="Caroline", i=0)
    assert extractive_answer(q, [subject]).abstained is False
    other = _hit("上周末我带孩子们去山里徒步旅行了。", speaker="Melanie", i=1)
    a = extractive_answer(q, [subject, other])
    assert a.abstained is True and a.text == NO_ZH
    assert a.evidence[1].explain["evidence"]["other_coverage"] == 1.0
    for echo in ("你带孩子们去山里徒步旅行了？真好！", "你的孩子们去山里徒步旅行一定很开心。"):  # said to Caroline
        a = extractive_answer(q, [subject, _hit(echo, speaker="Melanie", i=1)])
        assert a.abstained is False and [c.speaker for c in a.citations] == ["Caroline"], echo


def test_select_person_swap_compares_the_best_candidate():
    from anchormem.answering.evidence import Scored, select, swapped
    cfg = AnswerConfig()
    terms = [("charity", 1.0), ("race", 1.0), ("realize", 1.0)]
    subj = Scored(0, 0.73, True, True, 0.86, True, {})
    rival = Scored(1, 0.87, False, True, 0.85, True, {}, other_coverage=0.87)
    assert swapped([subj], [subj, rival]) is True and select([subj, rival], cfg, terms=terms) == []
    tie = Scored(1, 0.73, False, True, 0.85, True, {}, other_coverage=0.73)
    assert [s.index for s in select([subj, tie], cfg, terms=terms)] == [0]  # a tie keeps the subject's evidence
    far = Scored(1, 0.87, False, True, 0.70, False, {}, other_coverage=0.87)  # fails the dense gate: no rival
    assert far.other_claim is None and [s.index for s in select([subj, far], cfg, terms=terms)] == [0]
    assert [s.index for s in select([subj, rival], AnswerConfig(person_swap=False), terms=terms)] == [0]
    # a pair of the subject's memories loses to a rival that beats each of them
    a = Scored(0, 0.5, True, True, 0.86, True, {"charity": 1.0, "race": 0.5, "realize": 0.0})
    b = Scored(2, 0.5, True, True, 0.85, True, {"charity": 0.0, "race": 0.5, "realize": 1.0})
    assert len(select([a, b], cfg, terms=terms)) == 2
    assert select([a, b, Scored(1, 0.6, False, True, 0.85, True, {}, other_coverage=0.6)], cfg, terms=terms) == []


# ---------------------------------------------------------------- names inside Chinese text
def test_names_and_vocatives_in_chinese_text():
    from anchormem.answering.persons import mentions
    assert analyze_question("Caroline的狗叫什么？").names == ["Caroline"]  # no space before 的
    assert analyze_question("Caroline和孩子们去哪里徒步旅行了？").subjects == ["Caroline"]
    assert mentions("Melanie", "我上周和Melanie去露营了。") is True
    assert mentions("Melanie", "谢谢你，Melanie！我上周去露营了。") is False  # addressed
    assert mentions("Melanie", "嗨 Melanie，我上周去露营了。") is False
    assert mentions("Melanie", "Thanks, Melanie! I went camping.") is False
    q = "Melanie 什么时候去露营了？"
    a = extractive_answer(q, [_hit("谢谢你，Melanie！我上周去露营了。", speaker="Caroline")])
    assert a.abstained is True and a.evidence[0].explain["evidence"]["subject_ok"] is False
    a = extractive_answer(q, [_hit("我上周和Melanie去露营了。", speaker="Caroline")])
    assert a.abstained is False and a.evidence[0].explain["evidence"]["subject_ok"] is True


def test_what_a_speaker_says_of_a_relative_is_not_evidence_about_the_speaker():
    """The trial's case: Tom says "My brother Sam works as a doctor in Boston."; "Is Tom a doctor?" must abstain,
    "What does Tom's brother do?" must answer from it."""
    from anchormem.answering.persons import kin_words, stated_text

    assert kin_words("What does Tom's older brother do for his kids?") == {"brother", "kid"}  # singular
    text = "My brother Sam works as a doctor in Boston. I teach math."
    assert stated_text(text, about_speaker=True) == "I teach math."
    assert stated_text(text, about_speaker=True, kin=frozenset({"brother"})) == text
    assert stated_text("And my best friend moved to Paris.", about_speaker=True) == ""
    assert stated_text(text) == text  # not read as the speaker's statement: nothing dropped
    with Memory(":memory:", cache=False) as m:
        m.add([{"role": "user", "content": "My brother Sam works as a doctor in Boston.", "name": "Tom"}],
              user_id="t", session_id="a")
        m.add([{"role": "user", "content": "I work as a teacher in Denver.", "name": "Tom"}], user_id="t",
              session_id="b")
        assert m.ask("Is Tom a doctor?", user_id="t").abstained
        assert m.ask("Where does Tom work as a doctor?", user_id="t").abstained
        ans = m.ask("What does Tom's brother do?", user_id="t")
        assert not ans.abstained and ans.citations[0].text == "My brother Sam works as a doctor in Boston."
        ans = m.ask("Where does Tom work?", user_id="t")
        assert not ans.abstained and ans.citations[0].text == "I work as a teacher in Denver."


def test_chinese_questions_take_their_subject_from_the_speakers_and_relatives_are_not_the_speaker():
    """"林晓在哪里当医生？" when 林晓 said "我弟弟小明在上海当医生。": the question's subject is the speaker (found in
    the characters, not by capitalisation), and what she says of her brother is not about her."""
    from anchormem.answering.evidence import analyze_question
    from anchormem.answering.persons import kin_words, stated_text, with_speaker_names

    assert kin_words("林晓的弟弟做什么工作？") == {"弟弟"}
    assert stated_text("我弟弟小明在上海当医生。我在杭州当老师。", about_speaker=True) == "我在杭州当老师。"
    with Memory(":memory:", cache=False) as m:
        m.add([{"role": "user", "content": "我弟弟小明在上海当医生。", "name": "林晓"}], user_id="t", session_id="a")
        m.add([{"role": "user", "content": "我在杭州当老师。", "name": "林晓"}], user_id="t", session_id="b")
        hits = m.search("林晓在哪里当医生？", user_id="t")
        q = with_speaker_names(analyze_question("林晓在哪里当医生？"), hits)
        assert q.names == ["林晓"] and q.subjects == ["林晓"]
        assert with_speaker_names(analyze_question("Where does Tom work?"), hits).names == ["Tom"]  # English: as is
        assert m.ask("林晓在哪里当医生？", user_id="t").abstained
        ans = m.ask("林晓在哪里当老师？", user_id="t")
        assert not ans.abstained and ans.citations[0].text == "我在杭州当老师。"
        ans = m.ask("小明在哪里当医生？", user_id="t")
        assert not ans.abstained and ans.citations[0].text == "我弟弟小明在上海当医生。"


# (turn the user said, question, whether ask must abstain): the fresh-user trial's cases, turns without a speaker name
_ASKER_CASES = [
    ("My brother works as a doctor.", "Am I a doctor?", True),
    ("My teacher is called Mr. Lee.", "What is my name?", True),
    ("My wife's birthday is on March 3.", "When is my birthday?", True),
    ("My sister lives in Paris.", "Where do I live?", True),
    ("我弟弟在北京当律师。", "我是律师吗？", True),
    ("My brother Sam works as a doctor.", "What is my job?", True),
    ("My sister's name is Anna.", "What is my name?", True),
    ("我妈妈住在杭州。", "我住在哪里？", True),
    ("I work as a nurse.", "What does my brother do?", True),
    ("My brother works as a doctor.", "What does my brother do?", False),
    ("I work as a doctor.", "Am I a doctor?", False),
    ("My name is Tom.", "What is my name?", False),
    ("My wife's birthday is on March 3.", "When is my wife's birthday?", False),
    ("My sister's name is Anna.", "What is my sister's name?", False),
    ("我在北京当律师。", "我是律师吗？", False),
    ("我住在上海。", "我住在哪里？", False),
    ("我妈妈住在杭州。", "我妈妈住在哪里？", False),
    ("I live in Lisbon. My sister lives in Paris.", "Where do I live?", False),
    # a relative clause describes the relative, not the asker
    ("I visited my brother, who is a doctor.", "Am I a doctor?", True),
    ("I visited my brother, who is a doctor.", "What does my brother do?", False),
    ("I met my sister (a lawyer) for lunch.", "Am I a lawyer?", True),
    # a job said plainly answers a job question in other words; other "I am" sentences do not
    ("I am a nurse.", "What's my job?", False),
    ("I'm a software engineer at Google.", "What's my job?", False),
    ("I'm a software engineer at Google.", "What do I do for a living?", False),
    ("我在医院当护士", "我的工作是什么？", False),
    ("我是一名护士", "我是做什么的？", False),
    ("我弟弟是一名医生", "我弟弟做什么工作？", False),
    ("I am a fan of jazz.", "What's my job?", True),
    ("I am tired.", "What's my job?", True),
    ("I'm a good cook.", "What's my job?", True),
    ("My brother is a doctor.", "What's my job?", True),
    ("My older brother is an ER doctor.", "What's my job?", True),
    ("我弟弟是一名医生", "我是做什么的？", True),
    ("我弟弟是一名医生", "我的工作是什么？", True),
    # the asker and a relative together
    ("我哥哥和我都是老师", "我是老师吗？", False),
    ("My brother and I are both teachers.", "Am I a teacher?", False),
    # plural relatives are relatives too (fresh-user trial)
    ("My brothers are doctors.", "Am I a doctor?", True),
    ("My brothers are doctors.", "What's my job?", True),
    ("My brothers are doctors.", "What do my brothers do?", False),
    ("My sisters live in Paris.", "Where do I live?", True),
    ("My sisters live in Paris.", "Where do my sisters live?", False),
    # a job the user is not (or no longer) is no answer to what their job is; it answers whether they are one
    ("I'm not a doctor.", "What's my job?", True),
    ("I'm not a doctor.", "What do I do?", True),
    ("I'm not a doctor.", "Am I a doctor?", False),
    ("I used to be a teacher.", "What's my job?", True),
    ("我不是老师", "我的工作是什么？", True),
    ("我不是老师", "我是老师吗？", False),
]


@pytest.mark.parametrize("turn,question,abstains", _ASKER_CASES)
def test_a_question_about_the_asker_is_not_answered_by_what_they_said_of_a_relative(turn, question, abstains):
    from anchormem.answering.persons import asks_about_self

    assert asks_about_self(question)
    with Memory(":memory:", cache=False) as m:
        m.add([{"role": "user", "content": turn}], user_id="u")
        ans = m.ask(question, user_id="u")
        assert ans.abstained is abstains
        assert [c.text for c in ans.citations] == ([] if abstains else [turn])


@pytest.mark.parametrize("question,terms", [
    ("What do I do?", [("occupation", 1.0)]),
    ("What does my brother do for a living?", [("brother", 1.0), ("occupation", 1.0)]),
    ("我是做什么的？", [("职业", 1.0)]),
    ("我弟弟做什么工作？", [("弟弟", 1.0), ("工作", 1.0)]),
    ("What does Caroline do to destress?", [("destress", 1.0)]),
    ("我周末做什么？", [("周末", 1.0), ("做", 0.35)]),
])
def test_a_job_question_in_other_words_asks_for_an_occupation(question, terms):
    assert analyze_question(question).terms == terms


def test_a_relatives_fact_slot_does_not_answer_for_the_asker():
    from anchormem.answering.persons import asks_about_self, is_kin

    assert is_kin("wife") and is_kin("弟弟") and not is_kin("birthday")
    assert not asks_about_self("Where does Caroline live?") and not asks_about_self("我们公司在哪里？")
    with Memory(":memory:", cache=False) as m:
        fact = m.add("My wife's birthday is on March 3.", user_id="u")[0].memory.fact
        assert fact is not None and fact.attribute == "wife_birthday"
        assert m.ask("When is my birthday?", user_id="u").abstained
        assert m.ask("When is my wife's birthday?", user_id="u").citations[0].fact.attribute == "wife_birthday"


def test_profession_is_a_paraphrase_of_work():
    with Memory(":memory:", cache=False) as m:
        m.add([{"role": "user", "content": "I work as a nurse."}], user_id="u")
        ans = m.ask("What's my profession?", user_id="u")
        assert [c.text for c in ans.citations] == ["I work as a nurse."]


def test_an_edited_memory_is_not_quoted_as_said_on_its_first_day():
    from datetime import datetime, timezone

    with Memory(":memory:", cache=False) as m:
        it = m.add([{"role": "user", "content": "My gym membership costs 40 euros a month."}], user_id="u",
                   timestamp="2024-01-01T10:00:00Z")[0].memory
        edited = m.update(it.id, "My gym membership costs 55 euros a month.")
        day = edited.updated_at.astimezone(timezone.utc).date().isoformat()
        assert m.ask("How much is my gym membership?", user_id="u").text == \
            f'Recorded on 2024-01-01 and edited on {day}: "My gym membership costs 55 euros a month."'
        before = m.ask("How much is my gym membership?", user_id="u", as_of=datetime(2024, 2, 1, tzinfo=timezone.utc))
        assert before.text == 'On 2024-01-01, you said: "My gym membership costs 40 euros a month."'


def test_a_noun_naming_the_kind_of_answer_is_light(mem_e5):
    """"What breed is my dog?" is answered by "a golden retriever", which never says "breed" (fresh-user trial);
    the question's heavy word (dog) must still be covered: no dog, no answer."""
    mem_e5.add("My dog Rex is a golden retriever.", user_id="c")
    mem_e5.add("我家的猫是英短，灰色的。", user_id="c")
    a = mem_e5.ask("What breed is my dog?", user_id="c")
    assert not a.abstained and [c.text for c in a.citations] == ["My dog Rex is a golden retriever."]
    a = mem_e5.ask("我家的猫是什么品种？", user_id="c")
    assert not a.abstained and [c.text for c in a.citations] == ["我家的猫是英短，灰色的。"]
    assert mem_e5.ask("What breed is my horse?", user_id="c").abstained
    assert mem_e5.ask("What brand is my car?", user_id="c").abstained
