"""A change's date belongs to its sentence (issue #22, dates14): a bare day of the month and parts of a month read by
the clause's tense, a sentence's time phrase for its clauses with none of their own, and reads before a scheduled
date citing the value that holds then."""

from datetime import date, datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.retrieval.currency import not_yet_last
from anchormem.text.clause_time import clause_dates, tense_of
from anchormem.text.dates import resolve_dates
from anchormem.timeutil import utcnow
from anchormem.types import Hit, MemoryItem

A = datetime(2026, 12, 7, 9, tzinfo=timezone.utc)  # a Monday


def days(text: str, tense: str | None, anchor: datetime = A) -> list[tuple[str, date]]:
    return [(s.text, s.start.date()) for s in resolve_dates(text, anchor, tense=tense)]


@pytest.mark.parametrize("text,tense,want", [
    ("I'm moving to Denver on the 1st.", "present", [("on the 1st", date(2027, 1, 1))]),
    ("My rent goes up to 1,450 from the 1st.", "future", [("from the 1st", date(2027, 1, 1))]),
    ("Starting on the 15th I work nights.", "future", [("Starting on the 15th", date(2026, 12, 15))]),
    ("I moved on the 3rd.", "past", [("on the 3rd", date(2026, 12, 3))]),
    ("I moved on the 9th.", "past", [("on the 9th", date(2026, 11, 9))]),  # the last 9th before the 7th
    ("We fly out on the 31st.", "future", [("on the 31st", date(2026, 12, 31))]),
    ("the 15th of next month", "future", [("the 15th of next month", date(2027, 1, 15))]),
    ("at the end of next month", "future", [("the end of next month", date(2027, 1, 31))]),
    ("1号起房租涨到三千五", "future", [("1号", date(2027, 1, 1))]),
    ("十五号开始上夜班", "future", [("十五号", date(2026, 12, 15))]),
    ("我这个月底搬到杭州", "future", [("这个月底", date(2026, 12, 31))]),
    ("下个月15号搬", "future", [("下个月15号", date(2027, 1, 15))]),
    ("我3号搬到杭州了", "past", [("3号", date(2026, 12, 3))]),
    ("明年初换工作", "future", [("明年初", date(2027, 1, 1))]),
    ("月初交房租", "future", [("月初", date(2027, 1, 1))]),  # this month's start has passed: the next one
])
def test_a_day_only_the_tense_places(text, tense, want):
    assert days(text, tense) == want


@pytest.mark.parametrize("text", ["I live on the 3rd floor.", "It was the 1st time.", "我住在3号楼", "坐1号线上班", "建国路1号",
                                  "文三路九十九号梧桐苑", "一日三餐"])
def test_numbers_that_are_no_bare_day(text):
    assert days(text, "future") == []


def test_an_absolute_date_stays_one():
    assert days("3月15号", "future") == [("3月15号", date(2027, 3, 15))]


def test_without_a_tense_a_bare_day_stays_text():
    assert days("I'm moving to Denver on the 1st.", None) == []
    assert days("月初交房租", None) == []
    # a day or part of a month named relatively needs no tense (an event's time: "about 2026-12-01", not the month)
    assert days("我这个月底搬到杭州", None) == [("这个月底", date(2026, 12, 31))]
    assert days("我下个月1号起搬到杭州", None) == [("下个月1号", date(2027, 1, 1))]
    assert days("I'm moving on the 1st of next month", None) == [("the 1st of next month", date(2027, 1, 1))]


@pytest.mark.parametrize("clause,want", [
    ("I'm moving to Denver on the 1st.", "present"),
    ("I'll start on the 15th", "future"),
    ("Starting on the 15th I work nights.", "future"),
    ("I moved to Denver on the 3rd.", "past"),
    ("My rent went up from the 1st", "past"),
    ("I'm excited to move on the 1st", "present"),
    ("1号起房租涨到三千五", "future"),
    ("我3号搬到杭州了", "past"),
    ("我下个月就要搬了", "future"),
])
def test_tense_of(clause, want):
    assert tense_of(clause) == want


def test_a_clause_takes_its_sentences_time_phrase():
    got = clause_dates("搬到杭州滨江。", A, sentence="我下个月搬家，搬到杭州滨江。", values=("杭州",))
    assert [(s.text, s.start.date()) for s in got] == [("下个月", date(2027, 1, 1))]
    got = clause_dates("I'll be living in Leith.", A, sentence="Next month I'm moving, I'll be living in Leith.",
                       values=("Leith",))
    assert [(s.text, s.start.date()) for s in got] == [("Next month", date(2027, 1, 1))]
    # a clause stating a value of its own keeps its own time: Lisbon is not moved to next month
    assert clause_dates("I live in Lisbon", A, sentence="I live in Lisbon, and next month I'm moving to Berlin.",
                        values=("Lisbon", "Berlin")) == []
    # a time phrase frames the clauses after it only
    assert clause_dates("I'm a teacher", A, sentence="I'm a teacher, I get paid on the 15th.",
                        values=("teacher",)) == []
    # its own date wins
    got = clause_dates("下周一去美团报到。", A, sentence="上个月离职了，下周一去美团报到。", values=("美团",))
    assert [s.start.date() for s in got] == [date(2026, 12, 14)]


NOW = utcnow()
SAID = NOW - timedelta(hours=1)
AHEAD = SAID.date() + timedelta(days=5)  # a day of the month still ahead
PAST = SAID.date() - timedelta(days=3)  # one already gone


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def start_of(d: date) -> datetime:
    return datetime.combine(d, datetime.min.time(), tzinfo=timezone.utc)


def two_turns(first: str, second: str) -> tuple[Memory, dict[str, MemoryItem]]:
    m = Memory(":memory:", embedder="hash")
    m.add(first, user_id="u", timestamp=NOW - timedelta(days=30), session_id="s1")
    m.add(second, user_id="u", timestamp=SAID, session_id="s2")
    return m, {it.text: it for it in m.get_all(user_id="u", include_superseded=True)}


@pytest.mark.parametrize("first,second", [
    ("I live in Boston.", f"I'm moving to Denver on the {ordinal(AHEAD.day)}."),
    ("My rent is 1,300 a month.", f"My rent goes up to 1,450 from the {ordinal(AHEAD.day)}."),
    ("I work as a day nurse.", f"Starting on the {ordinal(AHEAD.day)} I work as a night nurse."),
    ("我住在上海。", f"{AHEAD.day}号开始我搬到杭州。"),
    ("我的房租是三千。", f"{AHEAD.day}号起房租涨到三千五。"),
])
def test_a_bare_day_ahead_schedules_the_change(first, second):
    m, rows = two_turns(first, second)
    new, old = rows[second], rows[first]
    assert (new.state, new.valid_from) == ("scheduled", start_of(AHEAD))
    assert (old.state, old.valid_to) == ("current", start_of(AHEAD))
    m.close()


@pytest.mark.parametrize("first,second,value", [
    ("I live in Boston.", f"I moved to Denver on the {ordinal(PAST.day)}.", "Denver"),
    ("我住在上海。", f"我{PAST.day}号搬到杭州了。", "杭州"),
])
def test_a_bare_day_in_the_past_applies_at_once(first, second, value):
    m, rows = two_turns(first, second)
    assert rows[second].state == "current" and rows[second].fact.value == value
    assert rows[first].state == "superseded"
    m.close()


@pytest.mark.parametrize("first,second,attribute,old", [
    ("我住在上海。", "我下个月搬家，搬到杭州滨江。", "home_city", "上海"),
    ("My rent is 1,300 a month.", "Next month things change, my rent goes up to 1,450.", "rent", "1,300 a month"),
    ("I live in Glasgow.", "It's happening next month, I'm moving to Leith.", "home_city", "Glasgow"),
])
def test_the_sentences_time_phrase_schedules_the_next_clause(first, second, attribute, old):
    m, rows = two_turns(first, second)
    first_next = (SAID.date().replace(day=1) + timedelta(days=32)).replace(day=1)
    new = [it for it in rows.values() if it.fact is not None and it.fact.attribute == attribute
           and it.fact.value != old]
    assert [(h.state, h.valid_from) for h in new] == [("scheduled", start_of(first_next))]
    assert (rows[first].state, rows[first].valid_to) == ("current", start_of(first_next))
    m.close()


def test_a_time_phrase_after_a_clause_leaves_it_current():
    m, rows = two_turns("I work as a nurse.", "I'm a teacher now, I get paid on the 15th.")
    jobs = [it for it in rows.values() if it.fact is not None and it.fact.attribute == "occupation"
            and it.fact.value == "teacher"]
    assert [j.state for j in jobs] == ["current"] and rows["I work as a nurse."].state == "superseded"
    m.close()


@pytest.mark.parametrize("first,second,question,old", [
    ("My rent is 1200 a month.", "My monthly rent goes up to 1500 next month.", "What is my monthly rent?", "1200"),
    ("My rent is 1200.", "From next month my rent is 1500 a month.", "What is my rent a month?", "1200"),
    ("我的房租是三千。", "下个月起我每个月的房租涨到三千五。", "我每个月的房租是多少？", "三千。"),
    ("房租三千。", "下个月起我每个月的房租是三千五。", "我每个月的房租是多少？", "三千。"),
])
def test_reads_before_the_date_put_what_holds_then_first(first, second, question, old):
    m, _ = two_turns(first, second)
    for as_of in (None, NOW + timedelta(days=1)):
        kw = {} if as_of is None else {"as_of": as_of}
        hits = m.search(question, user_id="u", **kw)
        assert old in hits[0].memory.text
        assert all("scheduled" not in h.explain for h in hits[:1])
        answer = m.ask(question, user_id="u", **kw)
        assert old in answer.citations[0].text and answer.citations[0].state == "current"
    text = m.context(user_id="u", query=question).text
    assert text.index(first) < text.index(second)
    m.close()


def _hit(text: str, valid_from: datetime, said: datetime, score: float) -> Hit:
    item = MemoryItem(id=text, user_id="u", text=text, created_at=said, updated_at=said, valid_from=valid_from)
    return Hit(memory=item, score=score, explain={})


def test_not_yet_last_moves_only_a_value_not_in_effect_then():
    said = A - timedelta(days=1)
    new = _hit("My rent goes up to 1500 next month.", A + timedelta(days=25), said, 0.9)
    old = _hit("My rent is 1200 a month.", A - timedelta(days=30), A - timedelta(days=30), 0.5)
    assert [h.memory.id for h in not_yet_last([new, old], A, "How much is my rent?")] == [old.memory.id, new.memory.id]
    assert new.explain["scheduled"] == (A + timedelta(days=25)).isoformat()
    # after its date it holds: order kept
    assert [h.memory.id for h in not_yet_last([new, old], A + timedelta(days=40), "How much is my rent?")] == \
        [new.memory.id, old.memory.id]
    # a question about the plan itself reads the plan first
    assert not_yet_last([new, old], A, "When is my rent going up?")[0] is new


def test_now_at_an_insurer_doing_claims_states_employer_and_job():
    """fresh-user D5: 现在在X做Y states employer X and job Y; an organisation ending in 保险 is an employer."""
    m, rows = two_turns("我在腾讯做产品经理。", "上个月跳槽了，现在在平安保险做理赔。")
    now = {(it.fact.attribute, it.fact.value) for it in m.get_all(user_id="u") if it.fact is not None}
    assert {("employer", "平安保险"), ("occupation", "理赔")} <= now
    gone = {(it.fact.attribute, it.fact.value) for it in m.get_all(user_id="u", include_superseded=True)
            if it.fact is not None and it.state == "superseded"}
    assert {("employer", "腾讯"), ("occupation", "产品经理")} <= gone
    m.close()


def test_a_later_clause_that_says_the_value_begins_dates_it():
    """fresh23 D2: "…offer from Stripe, I start there on March 1, 2028" is a change from that date, not now."""
    sentence = "I accepted an offer from Stripe as a product manager, I start there on March 1, 2027."
    got = clause_dates("I accepted an offer from Stripe as a product manager,", A, sentence=sentence,
                       values=("Stripe", "product manager"))
    assert [(s.text, s.start.date()) for s in got] == [("March 1, 2027", date(2027, 3, 1))]
    got = clause_dates("拿到了字节的offer，", A, sentence="拿到了字节的offer，下个月15号入职。", values=("字节",))
    assert [s.start.date() for s in got] == [date(2027, 1, 15)]
    # no onset word, or not the speaker's: the later date stays its own clause's
    assert clause_dates("I'm a teacher,", A, sentence="I'm a teacher, school starts on the 15th.",
                        values=("teacher",)) == []
    # a later clause stating a value of its own stops the look ahead
    assert clause_dates("I live in Lisbon,", A, sentence="I live in Lisbon, I moved to Porto, I start on the 15th.",
                        values=("Lisbon", "Porto")) == []


def test_a_month_day_comma_year_is_one_clause():
    from anchormem.text.clause_time import split_clauses
    assert split_clauses("I start there on March 1, 2028, it's official.") == \
        ["I start there on March 1, 2028,", "it's official."]
    assert split_clauses("We moved on Jan 3rd, 2027. Cold.") == ["We moved on Jan 3rd, 2027.", "Cold."]
    assert split_clauses("I have 3 kids, 2 cats.") == ["I have 3 kids,", "2 cats."]


def test_an_accepted_offer_with_its_start_date_is_scheduled():
    m = Memory(":memory:", embedder="hash")
    start = (SAID + timedelta(days=60)).date()
    m.add("I work as an accountant at Deloitte.", user_id="u", timestamp=NOW - timedelta(days=30))
    said = f"I accepted an offer from Stripe as a product manager, I start there on {start:%B} {start.day}, {start.year}."
    m.add(said, user_id="u", timestamp=SAID)
    rows = {(it.kind, it.text): it for it in m.get_all(user_id="u", include_superseded=True)}
    stripe = [it for it in rows.values() if it.fact is not None and it.fact.value == "Stripe"]
    assert [(it.state, it.valid_from) for it in stripe] == [("scheduled", start_of(start))]
    old = rows[("utterance", "I work as an accountant at Deloitte.")]
    assert (old.state, old.valid_to) == ("current", start_of(start))
    m.close()


def test_an_onset_sentence_said_without_a_subject_dates_the_sentence_before():
    """fresh25 D4: "Accepted an offer at Stripe! Starting next March." — the offer takes effect in March; the job held
    now stays current until then. A next sentence stating a value of its own, or not an onset, dates nothing."""
    got = clause_dates("Accepted an offer at Stripe!", A, sentence="Accepted an offer at Stripe!", values=("Stripe",),
                       after=" Starting next March.")
    assert [s.text for s in got] == ["next March"]
    assert clause_dates("Accepted an offer at Stripe!", A, sentence="Accepted an offer at Stripe!", values=("Stripe",),
                        after=" The team offsite is next March.") == []
    assert clause_dates("I work at Google.", A, sentence="I work at Google.", values=("Google", "Stripe"),
                        after=" Starting at Stripe next March.") == []
    m = Memory(":memory:", embedder="hash")
    m.add("I work at Google as a data analyst.", user_id="u", timestamp=SAID - timedelta(days=30))
    m.add("Accepted an offer at Stripe! Starting next March.", user_id="u", timestamp=SAID)
    rows = {it.fact.value: it for it in m.get_all(user_id="u", include_superseded=True)
            if it.fact is not None and it.fact.attribute == "employer"}
    assert rows["Stripe"].valid_from.month == 3 and rows["Stripe"].valid_from > SAID
    assert rows["Google"].valid_to == rows["Stripe"].valid_from
    m.close()
