"""Latest said first (answering.recency): a present question about the asker cites their latest statement that answers
it, the earlier one marked as earlier, even when the write path read no change ("Traded the Corolla in, the driveway
has a Model 3 in it now." after "I drive a 2012 Corolla."); a friend's move, a visit, a plan or
a dislike said later never becomes the latest answer; an older statement imported later never wins; the past stays
reachable."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.answering.recency import asked_person, asks_own_present, earlier_line, earlier_note, said_at
from anchormem.facts.stance import person_clauses, present_clauses
from anchormem.types import MemoryItem

T = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize("text, clauses", [
    ("游戏我已经不玩了, uninstalled it.", ["游戏我已经不玩了,", "uninstalled it."]),
    ("麦当劳那份兼职不干了，换到星巴克了。", ["麦当劳那份兼职不干了，", "换到星巴克了。"]),
    ("Landlord bumped it to 1,450.", ["Landlord bumped it to 1,450."]),  # no cut inside "1,450"
    ("My best friend Kara just moved to Seattle and I'm so sad about it.", []),  # someone else's, to the end
    ("My sister just got a raise to 95k, so jealous.", []),
    ("我侄子今年都十岁了，时间过得真快。", []),  # a person of the speaker's as the subject
    ("要是能在西安找到工作，我就搬过去。", []),  # a supposition governs its sentence
    ("Back in college I lived in Boston for four years, loved it.", []),  # the past
    ("I visited Berlin last week.", []),
    ("saw a two-bed in Hoboken listed at $2,600, that's insane pricing honestly", []),  # only seen
    ("I don't like the office coffee.", []),  # an opinion
    ("Should I move to Berlin?", []),
    ("I might move to Berlin.", []),
])
def test_present_clauses(text, clauses):
    assert present_clauses(text) == clauses


@pytest.mark.parametrize("question, own", [
    ("Do I still play League?", True),
    ("Where's my apartment these days?", True),
    ("how many cats live with us?", True),  # the household
    ("我现在住哪？", True),
    ("Where does my sister live?", False),  # a relative
    ("How old is Mia?", False),  # someone named
    ("Where did I live before?", False),  # the past
    ("Am I moving?", False),  # a plan
])
def test_asks_own_present(question, own):
    assert asks_own_present(question) is own


def _item(created: datetime, event: datetime | None = None, end: datetime | None = None) -> MemoryItem:
    return MemoryItem(id="x", text="t", user_id="u", created_at=created, valid_from=created, event_time=event,
                      event_time_end=end)


def test_said_at_is_when_said_not_when_its_event_happened():
    said = T + timedelta(days=150)  # "旺财去年冬天走了，现在就剩豆豆一只狗了": the state holds as of when said
    assert said_at(_item(said, datetime(2023, 12, 1, tzinfo=timezone.utc),
                         datetime(2024, 2, 29, tzinfo=timezone.utc))) == said
    assert said_at(_item(T)) == T


def test_earlier_note_names_the_later_day():
    later = _item(datetime(2024, 3, 31, 9, tzinfo=timezone.utc))
    assert earlier_note(later) == "an earlier statement, before 2024-03-31"
    assert earlier_note(later, zh=True) == "较早的说法，2024-03-31之前"


@pytest.fixture
def mem(e5):
    from anchormem.eval.embed_cache import eval_embedder

    m = Memory(":memory:", embedder=eval_embedder(e5), cache=False)
    yield m
    m.close()


def _memory_lines(m: Memory, user: str, query: str) -> list[str]:
    block = m.context(user_id=user, session_id="probe", query=query)
    return [ln for s in block.sections if s.name == "memories" for ln in s.text.splitlines()[1:]]


def test_a_change_the_write_path_missed_is_answered_by_the_latest_statement(mem):
    mem.add("I drive a 2012 Corolla.", user_id="a", timestamp=T)
    events = mem.add("Traded the Corolla in, the driveway has a Model 3 in it now.", user_id="a",
                     timestamp=T + timedelta(days=90))
    assert [e.event for e in events] == ["ADD"]  # no change read: both statements are current
    ans = mem.ask("What car do I drive?", user_id="a")
    assert [c.text for c in ans.citations[:2]] == ["Traded the Corolla in, the driveway has a Model 3 in it now.",
                                                    "I drive a 2012 Corolla."]
    assert 'On 2024-01-01, you said (an earlier statement, before 2024-03-31): "I drive a 2012 Corolla."' in ans.text
    assert ans.evidence[-1].explain["said_after"] == ans.citations[1].id
    lines = _memory_lines(mem, "a", "What car do I drive?")
    assert "Model 3" in lines[0]
    assert "I drive a 2012 Corolla. (an earlier statement, before 2024-03-31)" in lines[1]


def test_a_count_said_relatively_cites_the_later_statement(mem):
    # "a third kitty" is read on write now (facts.counts: the stored two cats + 1): the old count is closed, so it is
    # no longer cited as current at all (it was cited second, as an earlier statement, while the write path missed it)
    mem.add("We have two cats, Miso and Tofu, plus a very tolerant dog named Beans.", user_id="c", timestamp=T)
    mem.add("Brought home a third kitty from the shelter, calling her Pickles.", user_id="c",
            timestamp=T + timedelta(days=90))
    ans = mem.ask("how many cats live with us?", user_id="c")
    assert "third kitty" in ans.citations[0].text
    assert not any("two cats" in c.text for c in ans.citations)


def test_an_older_statement_imported_later_does_not_win(mem):
    mem.add("Traded the Corolla in, the driveway has a Model 3 in it now.", user_id="o",
            timestamp=T + timedelta(days=90))
    mem.add("I drive a 2012 Corolla.", user_id="o", timestamp=T)  # imported after, said before
    ans = mem.ask("What car do I drive?", user_id="o")
    assert "Model 3" in ans.citations[0].text


@pytest.mark.parametrize("earlier, later, question", [
    ("I drive a 2012 Corolla.", "旧卡罗拉换掉了，现在车库里是一辆Model 3。", "What car do I drive?"),
    ("我每天晚上打英雄联盟。", "Quit League for good, uninstalled it.", "我还打英雄联盟吗？"),
    ("I drink bubble tea every day.", "奶茶戒了，一个月没喝了。", "Do I still drink bubble tea?"),
])
def test_a_later_statement_in_the_other_language_answers_by_meaning(mem, earlier, later, question):
    # each cosine is read over its own language's background, and across languages the later statement must stand
    # out of it by CROSS_LIFT spreads (multilingual-e5-small puts the other language's sentences close together)
    mem.add(earlier, user_id="x", timestamp=T)
    assert [e.event for e in mem.add(later, user_id="x", timestamp=T + timedelta(days=90))] == ["ADD"]
    ans = mem.ask(question, user_id="x")
    assert [c.text for c in ans.citations[:2]] == [later, earlier]
    assert "an earlier statement, before 2024-03-31" in ans.text or "较早的说法，2024-03-31之前" in ans.text


@pytest.mark.parametrize("question, first", [
    ("Where do I live?", "我现在住在柏林。"),
    ("我在哪里工作？", "I'm a data scientist at Spotify."),
])
def test_an_unrelated_later_statement_in_another_language_is_no_later_answer(mem, question, first):
    for i, text in enumerate(["I'm a data scientist at Spotify.", "我现在住在柏林。", "I'm learning Japanese."]):
        mem.add(text, user_id="p", timestamp=T + timedelta(days=i))
    ans = mem.ask(question, user_id="p")
    assert ans.citations[0].text == first and "earlier statement" not in ans.text and "较早" not in ans.text


@pytest.mark.parametrize("later", [
    "My friend moved to Berlin.",
    "I visited Berlin last week.",
    "I might move to Berlin.",
    "Should I move to Berlin?",
    "If I moved to Berlin, I'd miss the sea.",
])
def test_what_is_no_statement_of_the_asker_s_home_never_comes_first(mem, later):
    mem.add("I live in Lisbon.", user_id="n", timestamp=T)
    mem.add(later, user_id="n", timestamp=T + timedelta(days=60))
    ans = mem.ask("Where do I live?", user_id="n")
    assert ans.citations[0].text == "I live in Lisbon."
    assert "earlier statement" not in ans.text
    assert not any("earlier statement" in ln for ln in _memory_lines(mem, "n", "Where do I live?"))


def test_a_dislike_said_later_leaves_the_habit_first(mem):
    mem.add("I drink coffee every morning.", user_id="d", timestamp=T)
    mem.add("I don't like the office coffee.", user_id="d", timestamp=T + timedelta(days=60))
    ans = mem.ask("Do I drink coffee?", user_id="d")
    assert ans.citations[0].text == "I drink coffee every morning." and "earlier statement" not in ans.text


def test_a_friend_s_later_move_does_not_answer_for_the_asker_s_relative(mem):
    mem.add("My sister lives in Oslo.", user_id="s", timestamp=T)
    mem.add("My friend just moved to Rome.", user_id="s", timestamp=T + timedelta(days=30))
    ans = mem.ask("Where does my sister live?", user_id="s")
    assert "Oslo" in ans.citations[0].text and "earlier statement" not in ans.text


def test_off_in_the_answer_config(e5):
    from anchormem.eval.embed_cache import eval_embedder

    from anchormem.answering.evidence import AnswerConfig

    m = Memory(":memory:", embedder=eval_embedder(e5), cache=False, answer=AnswerConfig(latest_said=False))
    m.add("I drive a 2012 Corolla.", user_id="a", timestamp=T)
    m.add("Traded the Corolla in, the driveway has a Model 3 in it now.", user_id="a", timestamp=T + timedelta(days=90))
    ans = m.ask("What car do I drive?", user_id="a")
    assert ans.citations[0].text == "I drive a 2012 Corolla." and "earlier statement" not in ans.text
    m.close()


def test_a_later_statement_read_as_another_slot_is_no_later_answer(mem):
    # fresh14: the job change was read (Stripe); a later move read as a home is no later answer to "Where do I work?"
    mem.add("I work at Deloitte as an auditor.", user_id="j", timestamp=T)
    mem.add("Finally handed in my notice at Deloitte. Starting at Stripe on the 1st, 新工作是做 risk analyst",
            user_id="j", timestamp=T + timedelta(days=14))
    mem.add("done moving!! boxes everywhere but we're in Leeds now", user_id="j", timestamp=T + timedelta(days=49))
    ans = mem.ask("Where do I work?", user_id="j")
    assert "Stripe" in ans.citations[0].text
    assert "earlier statement" not in ans.text and "Leeds" not in ans.text


def test_a_restatement_in_the_other_script_marks_nothing_earlier(mem):
    mem.add("I live in Munich", user_id="m", timestamp=T)
    mem.add("我住在慕尼黑，天气不错", user_id="m", timestamp=T + timedelta(days=10))
    ans = mem.ask("Where do I live?", user_id="m")
    assert ans.citations[0].text == "I live in Munich"
    assert "earlier statement" not in ans.text


@pytest.mark.parametrize("question, person", [
    ("Where do I live?", ("user", "")),
    ("Where does my sister live now?", ("", "sister")),
    ("我女儿现在几岁？", ("", "daughter")),
    ("Where does Tom live?", ("Tom", "")),
    ("小美住在哪里？", ("小美", "")),
    ("Where did my sister live before?", None),  # the past
    ("Where does Tom's brother live?", None),  # not the asker's relation
])
def test_asked_person(question, person):
    assert asked_person(question) == person


def _sister(clause: str) -> bool:
    return "sister" in clause or "姐姐" in clause


@pytest.mark.parametrize("text, clauses", [
    ("My sister Mei just moved to Beijing.", ["My sister Mei just moved to Beijing."]),
    ("My sister just started at Stripe, she's thrilled.", ["My sister just started at Stripe,", "she's thrilled."]),
    ("我姐姐搬到多伦多了。", ["我姐姐搬到多伦多了。"]),
    ("I live in Leeds, my sister moved to York.", ["my sister moved to York."]),
    ("My sister moved to York, I live in Leeds.", ["My sister moved to York,"]),  # the speaker's own: not hers
    ("My sister is visiting Rome next week.", []),  # a trip
    ("我姐姐下个月去三亚旅游。", []),
    ("My sister might move to Dublin someday.", []),  # a modal
    ("如果我姐姐搬到上海就好了。", []),  # a supposition
    ("Where does my sister live?", []),  # a question
])
def test_person_clauses(text, clauses):
    assert person_clauses(text, _sister) == clauses


def test_a_relative_s_later_statement_the_write_path_missed_goes_first(mem):
    # said in the other language: the write path keys the relation by its word (sister_home_city, 姐姐_home_city),
    # read here as one person's slot
    mem.add("My sister lives in Vancouver.", user_id="r", timestamp=T)
    mem.add("我姐姐搬到多伦多了。", user_id="r", timestamp=T + timedelta(days=60))
    ans = mem.ask("Where does my sister live?", user_id="r")
    assert [c.text for c in ans.citations[:2]] == ["我姐姐搬到多伦多了。", "My sister lives in Vancouver."]
    assert "(an earlier statement, before 2024-03-01)" in ans.text
    lines = _memory_lines(mem, "r", "Where does my sister live?")
    assert "多伦多" in lines[0]
    assert "My sister lives in Vancouver. (an earlier statement, before 2024-03-01)" in lines[1]


def test_a_relative_s_move_in_other_words_goes_first(mem):
    mem.add("My sister lives in Oslo.", user_id="b", timestamp=T)
    events = mem.add("My sister finally got the keys to her new flat in Bergen.", user_id="b",
                     timestamp=T + timedelta(days=90))
    assert [e.event for e in events] == ["ADD"]  # no change read: both statements are current
    ans = mem.ask("Where does my sister live now?", user_id="b")
    assert [c.text for c in ans.citations[:2]] == ["My sister finally got the keys to her new flat in Bergen.",
                                                    "My sister lives in Oslo."]
    assert "(an earlier statement, before 2024-03-31)" in ans.text


@pytest.mark.parametrize("later", [
    "My sister is visiting Rome next week.",
    "My sister might move to Rome someday.",
    "If my sister moved to Rome, she'd love it.",
    "My friend just moved to Rome.",
    "I moved to Rome.",
])
def test_what_is_no_statement_of_the_relative_s_home_never_comes_first(mem, later):
    mem.add("My sister lives in Oslo.", user_id="v", timestamp=T)
    mem.add(later, user_id="v", timestamp=T + timedelta(days=30))
    ans = mem.ask("Where does my sister live?", user_id="v")
    assert "Oslo" in ans.citations[0].text and "earlier statement" not in ans.text
    assert not any("earlier statement" in ln for ln in _memory_lines(mem, "v", "Where does my sister live?"))


def test_earlier_line():
    later = _item(datetime(2024, 3, 1, 9, tzinfo=timezone.utc))
    assert earlier_line("I live in Leeds.", later) == "earlier, before 2024-03-01: I live in Leeds."
    assert earlier_line("我住在利兹。", later) == "较早，2024-03-01之前：我住在利兹。"


def _summary_lines(m: Memory, user: str) -> list[str]:
    s = m.summarize(user_id=user, session_id="s1")
    return [ln.removeprefix("- ") for ln in s.text.splitlines()[1:] if ln.startswith("- ")]


def test_a_summary_marks_a_statement_answered_later_as_earlier(mem):
    mem.add("My sister lives in Vancouver.", user_id="y", session_id="s1", timestamp=T)
    mem.add("我姐姐搬到多伦多了。", user_id="y", session_id="s1", timestamp=T + timedelta(days=60))
    assert _summary_lines(mem, "y") == ["earlier, before 2024-03-01: My sister lives in Vancouver.", "我姐姐搬到多伦多了。"]


@pytest.mark.parametrize("turns", [
    ["I live in Lisbon.", "我住在里斯本。"],  # the same value again
    ["I live in Lisbon.", "My brother just moved to Porto."],  # someone else's slot
    ["I live in Lisbon.", "I might move to Porto."],  # a plan
])
def test_a_summary_marks_nothing_earlier_without_a_later_answer(mem, turns):
    for i, text in enumerate(turns):
        mem.add(text, user_id="z", session_id="s1", timestamp=T + timedelta(days=30 * i))
    assert not any(ln.startswith("earlier") for ln in _summary_lines(mem, "z"))


def test_context_notes_a_statement_answered_later_whatever_the_query(mem):
    mem.add("My sister lives in Vancouver.", user_id="q", timestamp=T)
    mem.add("我姐姐搬到多伦多了。", user_id="q", timestamp=T + timedelta(days=60))
    lines = _memory_lines(mem, "q", "tell me about my family")
    assert any("My sister lives in Vancouver. (an earlier statement, before 2024-03-01)" in ln for ln in lines)
    assert not any("多伦多" in ln and "earlier" in ln for ln in lines)


@pytest.mark.parametrize("turns", [
    ["I live in Lisbon.", "我住在里斯本。"],
    ["I have a cat called Misty.", "I also have a cat called Luna."],  # one more, not a new value
    ["I play tennis on weekends.", "I also play chess."],
])
def test_context_notes_nothing_without_a_later_answer(mem, turns):
    for i, text in enumerate(turns):
        mem.add(text, user_id="w", timestamp=T + timedelta(days=30 * i))
    assert not any("earlier statement" in ln for ln in _memory_lines(mem, "w", "what do you know about me"))


_LINXIAO = ["我上周三刚搬到杭州，在西湖区租了一套两居室，月租4500元。", "我对花生过敏，帮我推荐外卖的时候一定要注意。",
            "我女儿朵朵六一要参加学校的钢琴演出，她最近每天练琴一个小时。", "上周末我买了一辆电动自行车，花了3200元，上班骑车只要十五分钟。",
            "我现在不喝咖啡了，改喝绿茶，因为咖啡让我睡不好。", "朵朵的钢琴演出很成功，她弹了《小星星》，拿了二等奖。"]


@pytest.fixture
def linxiao(mem):
    for i, text in enumerate(_LINXIAO):
        mem.add(text, user_id="lx", timestamp=T + timedelta(days=10 * i))
    return mem


@pytest.mark.parametrize("question, first", [
    # a later statement is compared with the clause of the earlier turn that answers (月租4500元), not the whole
    # turn, which speaks of many things: an e-bike's price is no later rent, giving up coffee no later allergy
    ("我的月租是多少？", "我上周三刚搬到杭州，在西湖区租了一套两居室，月租4500元。"),
    ("我对什么过敏？", "我对花生过敏，帮我推荐外卖的时候一定要注意。"),
])
def test_a_later_statement_of_another_thing_is_no_later_answer_to_one_clause(linxiao, question, first):
    assert linxiao.ask(question, user_id="lx").citations[0].text == first


def test_a_plan_is_followed_by_its_outcome(linxiao):
    # "六一要参加…演出" tells what will happen (a future marker); the later statement of the same event is its outcome
    ans = linxiao.ask("朵朵的钢琴演出结果怎么样？", user_id="lx")
    assert [c.text for c in ans.citations[:2]] == [_LINXIAO[5], _LINXIAO[2]]


@pytest.mark.parametrize("question, plan", [
    ("Am I moving?", True), ("When is the move?", True), ("我什么时候搬家？", True),
    ("朵朵的钢琴演出结果怎么样？", False), ("How did Mia's recital go?", False), ("Where did I live before?", False),
])
def test_asks_plan(question, plan):
    from anchormem.answering.tense import asks_plan

    assert asks_plan(question) is plan


def test_a_question_asked_or_a_plan_is_no_earlier_statement():
    from anchormem.answering.recency import _asks, _planned

    assert _asks("如果我换成500M的套餐，每个月要多少钱？") and _asks("Should I move to Berlin?")
    assert not _asks("我的宽带是100M的套餐，每个月100元。")
    assert _planned(_item(T)) is False
    plan = MemoryItem(id="p", text="我女儿朵朵六一要参加学校的钢琴演出，她最近每天练琴一个小时。", user_id="u",
                      created_at=T, valid_from=T)
    assert _planned(plan) and not _planned(plan, "她最近每天练琴一个小时。")
    assert _planned(MemoryItem(id="q", text="I might move to Berlin.", user_id="u", created_at=T, valid_from=T))


def test_a_question_the_user_asked_is_never_marked_earlier_in_context(mem):
    texts = ["我的宽带是100M的套餐，每个月100元。", "如果我换成500M的套餐，每个月要多少钱？", "我换了500M的套餐，现在每个月150元。"]
    for i, text in enumerate(texts):
        mem.add(text, user_id="q", timestamp=T + timedelta(days=10 * i))
    lines = _memory_lines(mem, "q", "我的宽带每个月多少钱？")
    asked = [ln for ln in lines if "如果我换成500M的套餐" in ln]
    assert len(asked) == 1 and "较早的说法" not in asked[0]  # it was marked "(较早的说法，2024-01-21之前)"


def test_a_plan_is_no_evidence_of_where_the_user_lived_before(mem):
    mem.add("我住在深圳。", user_id="p", timestamp=T)
    mem.add("我下个月可能会搬到广州。", user_id="p", timestamp=T + timedelta(days=10))
    for question in ("Where did I live before?", "我以前住在哪里？"):
        assert [c.text for c in mem.ask(question, user_id="p").citations] == ["我住在深圳。"]


def test_someone_elses_move_is_no_evidence_of_the_askers_home(mem):
    texts = ["I live in Shenzhen.", "I relocated to Guangzhou.", "My friend Ahmed just moved to Shenzhen."]
    for i, text in enumerate(texts):
        mem.add(text, user_id="h", timestamp=T + timedelta(days=10 * i))
    assert [c.text for c in mem.ask("Where do I live now?", user_id="h").citations] == ["I relocated to Guangzhou."]
    # the friend's move was cited second (its slot words "live" answered though no clause of it is the asker's)
    assert [c.text for c in mem.ask("Where did I live before?", user_id="h").citations] == ["I live in Shenzhen."]


def test_without_plans_leaves_out_someone_named():
    from anchormem.answering.tense import without_plans

    assert without_plans("My friend Ahmed just moved to Shenzhen.", T, own_state=True) == ""
    assert without_plans("我朋友Ahmed刚搬到深圳。", T, own_state=True) == ""
    assert without_plans("The rent is 900.", T, own_state=True) == "The rent is 900."
    assert without_plans("My friend Ahmed just moved to Shenzhen.", T) == "My friend Ahmed just moved to Shenzhen."


def test_an_unrelated_statement_said_later_in_the_same_session_is_no_later_answer():
    from anchormem import Memory

    m = Memory(":memory:")
    m.add("Quick update: I moved again, now at 5 Binhai Ave, Zhuhai, and I left Tencent for a job at Meizu.",
          user_id="w", session_id="c1", timestamp="2026-11-02T10:00:00+08:00")
    m.add("我们家那只最老的猫上周去世了，现在只剩两只猫。", user_id="w", session_id="c1", timestamp="2026-11-02T10:05:00+08:00")
    m.add("I cancelled the premium plan, 不想再付69元了, back to basic for 39 yuan.", user_id="w", session_id="c1",
          timestamp="2026-11-02T10:06:00+08:00")
    m.add("Order #B778 for a rice cooker was placed today, should arrive Friday.", user_id="w", session_id="c1",
          timestamp="2026-11-02T10:08:00+08:00")
    assert "Meizu" in m.ask("Where do I work now?", user_id="w").citations[0].text
    assert "猫" in m.ask("我有几只猫？", user_id="w").citations[0].text
    m.close()


def test_may_replace_reads_the_asked_kind_and_what_an_ending_ends():
    from anchormem.answering.recency import _may_replace

    cats = "我们家那只最老的猫上周去世了，现在只剩两只猫。"
    plan = "I cancelled the premium plan, 不想再付69元了, back to basic for 39 yuan."
    job = "Quick update: I moved again, now at 5 Binhai Ave, Zhuhai, and I left Tencent for a job at Meizu."
    order = "Order #B778 for a rice cooker was placed today, should arrive Friday."
    assert not _may_replace(plan, cats, frozenset({"count", "name"}))  # an ending of something else
    assert not _may_replace(order, job, frozenset({"name"}))  # a number, no employer
    assert _may_replace(order, job)  # no kind asked: any shared kind (a number) as before
    assert _may_replace("I quit last week.", "I'm an engineer at Tencent.", frozenset({"name"}))  # a bare ending
    assert _may_replace("adopted a third!! tiny tuxedo kitten, named her Tempeh.",
                        "Two cats in this house: Miso and Tofu.", frozenset({"count", "name"}))


@pytest.mark.parametrize("question, whole", [
    ("Tell me about Anna", True), ("What do you know about my sister?", True), ("What do you know about me?", True),
    ("跟我说说小美", True), ("我妹妹最近怎么样？", True),
    ("Where does Anna live?", False), ("How old is my son?", False), ("What pets do I have?", False),
    ("Do I still play League?", False), ("我姐姐现在做什么工作？", False), ("我现在住哪？", False),
    ("what's my GPA?", False), ("我现在还喝咖啡吗？", False),  # an acronym; a verb phrase jieba tags as a name
])
def test_asks_whole_person(question, whole):
    from anchormem.answering.recency import asks_whole_person

    assert asks_whole_person(question, asked_person(question)) is whole


def test_a_question_about_a_person_as_a_whole_marks_nothing_earlier_by_meaning(mem):
    """fresh21 D4: a later statement about the same person that says something else (a puppy) is no later answer
    to what the earlier one says (where she lives, her job): all of it holds at once."""
    mem.add("My sister Anna lives in Paris and works as a pharmacist.", user_id="a", timestamp=T)
    mem.add("Anna just adopted a puppy called Biscuit.", user_id="a", timestamp=T + timedelta(days=20))
    for question in ("Tell me about Anna", "What do you know about my sister?"):
        lines = _memory_lines(mem, "a", question)
        assert any("Paris" in ln for ln in lines)
        assert not any("earlier statement" in ln for ln in lines)


def test_an_ending_of_something_else_is_no_later_answer_to_a_job_question(mem):
    """fresh22 D5: "Quit smoking three weeks ago" ends a habit; asked where the user works, it is no later answer
    and the current job is no "earlier statement"; asked about smoking, it is."""
    mem.add("I work as a nurse at St James's hospital.", user_id="d", timestamp=T)
    mem.add("I smoke about ten cigarettes a day.", user_id="d", timestamp=T + timedelta(minutes=1))
    mem.add("Also I left the hospital, I'm a paramedic with the ambulance service now.", user_id="d",
            timestamp=T + timedelta(days=21))
    mem.add("Quit smoking three weeks ago, feeling great.", user_id="d", timestamp=T + timedelta(days=35))
    for question in ("Where do I work?", "What do I do for a living?"):
        cites = mem.ask(question, user_id="d").citations
        assert cites[0].text.startswith("Also I left the hospital") and cites[0].note is None
        assert all("smoking" not in c.text for c in cites)
    smoke = mem.ask("Do I smoke?", user_id="d").citations
    assert smoke[0].text == "Quit smoking three weeks ago, feeling great."
