"""Read paths get currency from the data model: ``current`` agrees with ``valid_to`` (``state`` tells a partly
superseded memory apart), history says when a change was said, and a plan is no evidence of the present."""

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.answering.tense import asks_present, without_plans
from anchormem.mcp_server import MemoryOut

T = datetime(2024, 1, 1, 9, 0, tzinfo=timezone.utc)


@pytest.fixture()
def mem():
    m = Memory(":memory:", embedder="hash")
    yield m
    m.close()


def test_current_is_valid_to_and_state_tells_partly_superseded(mem):
    mem.add("Hi, I'm Sam. I live in Lisbon.", user_id="u", timestamp=T)
    mem.add("I moved to Berlin last month.", user_id="u", timestamp=T + timedelta(days=60))
    rows = {m.text: m for m in mem.get_all(user_id="u", include_superseded=True)}
    sam = rows["Hi, I'm Sam. I live in Lisbon."]
    assert [(c.slot, c.valid_to is not None) for c in sam.claims] == [("user|home_city", True)]
    assert (sam.valid_to, sam.current, sam.state) == (None, True, "partly_superseded")
    old = next(m for t, m in rows.items() if t.startswith("I live in Lisbon"))
    assert (old.valid_to is not None, old.current, old.state) == (True, False, "superseded")
    new = rows["I moved to Berlin last month."]
    assert (new.current, new.state) == (True, "current")
    out = MemoryOut.of(sam).model_dump()
    assert (out["current"], out["valid_to"], out["state"]) == (True, None, "partly_superseded")
    for m in rows.values():  # the two never disagree, on every memory
        assert m.current is (m.valid_to is None)
        assert m.model_dump(mode="json")["current"] is (m.model_dump(mode="json")["valid_to"] is None)


def test_history_said_at_is_the_users_timeline_not_the_write(mem):
    mem.add("I live in Lisbon.", user_id="u", session_id="s1", timestamp=T)
    mem.add("I live in Lisbon.", user_id="u", session_id="s2", timestamp=T + timedelta(days=3))
    mem.add("I live in Berlin now.", user_id="u", session_id="s3", timestamp=T + timedelta(days=60))
    old = next(m for m in mem.get_all(user_id="u", include_superseded=True) if m.text == "I live in Lisbon.")
    hist = mem.history(old.id)
    assert [(h.event, h.said_at) for h in hist] == [("ADD", T), ("NOOP", T + timedelta(days=3)),
                                                   ("SUPERSEDE", T + timedelta(days=60))]
    assert all(h.created_at > T + timedelta(days=365) for h in hist)  # written now, said in 2024
    new = next(m for m in mem.get_all(user_id="u") if m.text == "I live in Berlin now.")
    assert [(h.event, h.said_at) for h in mem.history(new.id)] == [("ADD", T + timedelta(days=60))]
    mem.update(new.id, "I live in Berlin-Mitte now.")
    assert [h.said_at for h in mem.history(new.id)] == [T + timedelta(days=60), None]  # an edit happens when written


def test_question_tense():
    assert asks_present("Do I live in Edinburgh?") and asks_present("Where do I live?")
    assert asks_present("我住在杭州吗？")
    assert not asks_present("Am I moving to Edinburgh?") and not asks_present("When is the move?")
    assert not asks_present("Where is my sister getting married?")  # the progressive: an arrangement
    assert not asks_present("Did I move to Edinburgh?") and not asks_present("Where did I live before?")
    assert not asks_present("我打算搬去哪里？") and not asks_present("我以前住哪里？")
    said = T + timedelta(days=30)
    assert without_plans("I'm moving to Edinburgh next month. The flat is small.", said) == "The flat is small."
    assert without_plans("I moved to Leeds last month.", said) == "I moved to Leeds last month."
    assert without_plans("我下个月搬去杭州。", said) == ""
    assert without_plans("I quit Acme, I start at Initech next week.", said) == \
        "I quit Acme, I start at Initech next week."  # the old value ended: no plan beside a current one
    # a question about the asker's own present state also leaves out clauses that state no present fact (a modal,
    # a plan without a date, reported speech); other questions read them ("Would Caroline pursue writing?")
    assert without_plans("I live in Leeds, but I might move to London.", said, own_state=True) == "I live in Leeds,"
    assert without_plans("我在考虑要不要搬到上海。", said, own_state=True) == ""
    assert without_plans("My boss said she moved to Berlin.", said, own_state=True) == ""
    assert without_plans("I'm thinking about moving to London.", said) == "I'm thinking about moving to London."


def test_a_modal_is_no_evidence_of_where_the_asker_lives(mem):
    mem.add("我住在南京，在招商银行上班。", user_id="m", timestamp=T)
    mem.add("上个月我们全家搬去苏州了。", user_id="m", timestamp=T + timedelta(days=60))
    mem.add("我在考虑要不要搬到上海。", user_id="m", timestamp=T + timedelta(days=70))
    mem.add("I live in Leeds.", user_id="n", timestamp=T)
    mem.add("Thinking about moving to London next year.", user_id="n", timestamp=T + timedelta(days=70))
    assert [c.text for c in mem.ask("我现在住在哪里？", user_id="m").citations] == ["上个月我们全家搬去苏州了。"]
    assert [c.text for c in mem.ask("Where do I live?", user_id="n").citations] == ["I live in Leeds."]
    assert "Thinking" not in mem.ask("Do I live in London?", user_id="n").text  # a place named: still the asker's


def test_a_plan_is_no_evidence_of_the_present(mem):
    from anchormem.timeutil import utcnow

    T = utcnow() - timedelta(days=31)  # the plan's date is still ahead of now (once it passes, it holds: sched13)
    mem.add("I live in Glasgow.", user_id="a", timestamp=T)
    mem.add("I'm moving to Edinburgh next month.", user_id="a", timestamp=T + timedelta(days=30))
    yes = mem.ask("Do I live in Edinburgh?", user_id="a")
    assert not any("Edinburgh" in c.text for c in yes.citations)
    where = mem.ask("Where do I live?", user_id="a")
    assert [c.text for c in where.citations] == ["I live in Glasgow."]
    plan = mem.ask("Am I moving to Edinburgh?", user_id="a")
    assert [c.text for c in plan.citations] == ["I'm moving to Edinburgh next month."]
    mem.add("我住在成都。", user_id="z", timestamp=T)
    mem.add("我下个月搬去杭州。", user_id="z", timestamp=T + timedelta(days=30))
    assert not any("杭州" in c.text for c in mem.ask("我住在杭州吗？", user_id="z").citations)
    assert [c.text for c in mem.ask("我打算搬去哪里？", user_id="z").citations] == ["我下个月搬去杭州。"]


def test_a_past_question_citing_the_change_is_answered_by_what_it_replaced(mem):
    mem.add("I'm a nurse at St Mary's.", user_id="u", timestamp=T)
    mem.add("I quit nursing.", user_id="u", timestamp=T + timedelta(days=40))
    now = mem.ask("What is my job?", user_id="u")
    assert now.citations[0].text == "I quit nursing."
    before = mem.ask("What did I do before I quit?", user_id="u")
    assert [c.text for c in before.citations] == ["I'm a nurse at St Mary's."]
    assert before.citations[0].valid_to == T + timedelta(days=40)
    assert "(true until 2024-02)" in before.text
    assert [h.explain.get("predecessor_of") for h in before.evidence if "predecessor_of" in h.explain] == \
        [now.citations[0].id]


def test_a_past_slot_question_reads_the_slots_chain(mem):
    mem.add("我月薪一万五。", user_id="z", timestamp=T)
    mem.add("我月薪已经涨到一万八了。", user_id="z", timestamp=T + timedelta(days=90))
    assert mem.ask("我一个月工资多少？", user_id="z").citations[0].text == "我月薪已经涨到一万八了。"
    past = mem.ask("我以前工资多少？", user_id="z")
    assert [c.text for c in past.citations] == ["我月薪一万五。"]
    assert "2024-03以前如此" in past.text


def test_store_predecessors_follow_the_claims(mem):
    mem.add("Hi, I'm Sam. I live in Lisbon.", user_id="u", timestamp=T)
    mem.add("I moved to Berlin last month.", user_id="u", timestamp=T + timedelta(days=60))
    rows = mem.get_all(user_id="u", include_superseded=True)
    new = next(m for m in rows if m.text == "I moved to Berlin last month." and m.kind == "fact")
    before = mem.store.predecessors(mem.tenant, "u", [new.id])
    assert sorted(m.text for m in mem.store.get_many(mem.tenant, before[new.id]).values()) == \
        ["Hi, I'm Sam. I live in Lisbon.", "I live in Lisbon."]
    assert mem.store.predecessors(mem.tenant, "u", ["nope"]) == {}


def test_a_superseded_claim_takes_out_only_its_values_clause():
    from anchormem.facts.claims import claim_words, current_view
    from anchormem.types import Claim, MemoryItem

    assert claim_words("I live in Portland and I'm a dental hygienist.", "Portland") == "I live in Portland"
    assert claim_words("我住在成都，我在一家银行做柜员。", "成都") == "我住在成都"
    assert claim_words("我是team lead，管五个人", "五个") == "我是team lead，管五个人"  # one statement
    assert claim_words("I make seventy-two thousand a year", "seventy-two thousand a year") == \
        "I make seventy-two thousand a year"  # one clause: the span itself
    text = "Hey, I'm Dana. I live in Portland and I'm a dental hygienist."
    closed = Claim(fact_id="f1", slot="user|home_city", value="Portland", said_at=T, valid_from=T,
                   valid_to=T + timedelta(days=9), superseded_by="f2",
                   span="I live in Portland and I'm a dental hygienist.")
    item = MemoryItem(id="m1", text=text, user_id="u", created_at=T, valid_from=T, claims=[closed])
    view = current_view(item)
    assert view is not None and view.text == "Hey, I'm Dana. I'm a dental hygienist."
    assert item.state == "partly_superseded" and item.current


def test_a_past_question_puts_the_past_first_and_quotes_a_turn_once(mem_e5):
    """"What did I do before?" found both the ending ("I quit nursing.") and the fact clause of the old turn: the
    past comes first, the change is replaced by what it closed, the turn is quoted whole once."""
    mem_e5.add("I'm a nurse at St Mary's.", user_id="u", session_id="s0", timestamp=T)
    mem_e5.add("I quit nursing.", user_id="u", session_id="s1", timestamp=T + timedelta(days=30))
    assert [c.text for c in mem_e5.ask("What did I do before?", user_id="u").citations] == \
        ["I'm a nurse at St Mary's."]
