"""Latest said first: a present question about the asker is answered by the latest of their statements that answer
it, the earlier ones presented as earlier, whether or not the write path read a change between them.

"Where's my apartment these days?" with "signed a lease … in Astoria" (day 0) and "got handed the keys to a tiny place
in Jersey City" (day 140): when the write path read no change (the wording held no rule's pattern, no slot fact), both
memories are current, and the evidence test cites the one whose words fit the question best, the older one as often
as not. The user said both; the later one is what they say holds now. So, for a question about the asker's own state
now (:func:`asks_own_present`) or the present state of a person of theirs ("Where does my sister live now?",
我女儿现在几岁？, "Where does Tom live?": :func:`asked_person`), an earlier statement ``o`` the answer cites has a
*later statement* ``n`` when:

- ``n`` is the user's own (role and source "user", no summary), current, and said after ``o`` (:func:`said_at`: the
  time it was said, not the time it was added: an older statement imported later never wins); not about a time
  ahead of when it was said (a plan: its resolved event time is later than the day it was said);
- ``n`` can state what holds for the speaker now: the clauses left by
  :func:`~anchormem.facts.stance.present_clauses` (no question, supposition, modal, plan or reported clause, no
  trip, past or other scene, no opinion, no one else as the subject: a friend's move, a visit, "I might move", "Should
  I move?", "I don't like the office coffee" are never a later answer); for a person asked about, the clauses whose
  subject is that person (:func:`~anchormem.facts.stance.person_clauses`, same gates: "My sister is visiting Rome
  next week" is no later answer; a name said beside the relation, "My daughter Mia is 6", makes "Mia turned seven"
  hers), and ``o`` says something of that person too;
- ``n`` does not say again the value ``o`` holds for the slots they share (a restatement, in either script, has
  nothing earlier: "I live in Munich" / 我住在慕尼黑);
- ``n`` did not close a claim of ``o`` (the write path read it as that claim's change: ``o``'s current view no longer
  says it, and ``n`` is no later answer to what ``o`` still says: "Dropped Japanese" after "I'm Dana, I work as a nurse
  and I'm learning Japanese…" answers no job question);
- ``o`` says something of the asker's (for a question about the asker): a clause of it can state what holds for
  them now, or its sentences do not open with someone else as the subject nor with a supposition
  (:func:`~anchormem.facts.stance.of_others`: "My mate Dave just moved to Glasgow", 要是我搬回老家长沙… are never
  marked earlier than an unrelated later statement, fresh24 D11); a question counting the asker's relations ("How
  many children do I have?", 我有几个孩子？) asks about the asker;
- ``n`` answers the same question as ``o``: it carries a current claim of a slot ``o`` carries (same slot by the
  stored claims; a relation's slot said in either language is one: ``sister_home_city`` / ``姐姐_home_city``); or,
  when the two do not both carry claims (the write path read no slot in one of them: the change it may have
  missed; slots keyed by the word said, habits ``does:league`` / ``does:game`` and counts ``count:chicken`` /
  ``count:bird``, count as none here), with a calibrated embedder, it says a value of a kind ``o`` holds or an ending
  (:func:`_may_replace`, as the write path's relative reader reads a change), stands out of the background of
  unrelated statements for the question (:data:`LATER_SHARE` of ``o``'s lift at least; each lift over the
  background of its own language, ``n``'s read on ``o``'s scale: times the ratio of the spreads of the question's
  cosines to the two backgrounds, so a question nearer its own language does not sink a later statement in the
  other one; one the evidence test cites then needs no :data:`LATER_MARGIN`: "我妹妹兰兰也换工作了，现在在北京协和医院
  当护士。" after "My sister Lan works as a nurse at a hospital in Guangzhou.") and either the evidence test cites
  it too or it is close by meaning to both:
  within :data:`LATER_MARGIN` of ``o``'s lift and :data:`PAIR_LIFT` above ``o``'s background (in ``n``'s language)
  in cosine to ``o`` itself; not cited, ``n`` answers by meaning in one language with the question and ``o``, or
  in the other language than ``o`` (:data:`CROSS_LANGUAGE`: "我姐姐搬到多伦多了。" after "My sister lives in
  Vancouver."), or in ``o``'s language with the question in the other one ("游戏我已经不玩了" after "I play League
  every night, 基本打到两点。", asked "Do I still play League?"), its lift in the last two
  :data:`CROSS_LIFT` spreads of the question's cosines to that background at least and
  no value ``o`` holds said again (tuned on the dev
  stories of ``bench/currency.py`` and checked on ``bench/ask_crosslang.py``, where a persona's unrelated later
  statements must not answer: "I'm vegetarian." is no later answer to "What pets do I have?").

A long earlier turn speaks of many things: when ``n`` says a value of a kind that clauses of ``o`` hold
(:func:`_value_clauses`: "花了3200元" and "月租4500元。" of "我上周三刚搬到杭州，在西湖区租了一套两居室，月租4500元。"),
``n`` must stand out for the question by :data:`LATER_SHARE` of the best of those clauses' lifts too, not only of
the whole turn's: an e-bike's price is no later rent. A question the user asked is never an earlier statement
("如果我换成500M的套餐，每个月要多少钱？"). When the part of ``o`` nearest the question is a plan (an event time
ahead, a modal or a future marker: :func:`_planned`, "我女儿朵朵六一要参加学校的钢琴演出"), its later statement is its
outcome: said once the planned time came, close to it by meaning as above and cited by the evidence test too, no
new value needed ("朵朵的钢琴演出很成功…拿了二等奖"); this holds for a question about what happened too ("How did
the recital go?"), not for one about what is planned (:func:`~.tense.asks_plan`).

The latest such ``n`` is cited first, ``o`` after it with "an earlier statement, before <n's date>"
(:func:`latest_said_answer`); ``context()`` shows ``n`` above ``o`` and marks ``o`` the same way
(:func:`latest_said_hits`). Summaries mark the line of ``o`` "earlier, before <date>: …" when a later statement
carries a new value of one of its slots (:func:`later_by_slot`, by the claims alone: a summary has no question).
Other questions about the past and questions about a plan are left as they are: their answers do not follow the
latest statement.
"""

from __future__ import annotations

import re
import threading
from datetime import datetime, timedelta
from typing import Any, Callable

import numpy as np

from ..facts.claims import asks_past
from ..facts.plans import says_ahead
from ..text.tokenize import has_cjk
from ..types import Answer, Hit, MemoryItem
from ..timeutil import day_of
from .answer_types import asked_value_kinds
from .evidence import text_language
from .extractive import quoted
from .past_reading import asks_about_asker
from .persons import kin_words
from .tense import asks_plan, asks_present

__all__ = ["CROSS_LANGUAGE", "CROSS_LIFT", "LATER_MARGIN", "LATER_SHARE", "PAIR_LIFT", "asked_person",
           "asks_own_present", "said_at", "later_statements", "latest_said_answer", "latest_said_hits",
           "earlier_note", "later_by_slot", "earlier_line"]

LATER_MARGIN = 0.06  # a later statement's cosine to the question may sit this far below the earlier one's
LATER_SHARE = 0.45  # its lift over the question's background: at least this share of the earlier one's
PAIR_LIFT = 0.03  # its cosine to the earlier statement: at least the earlier one's background + this
CROSS_LANGUAGE = True  # a later statement in the other language than the earlier one answers by meaning too (each
# cosine over its own language's background)
CROSS_LIFT = 3.0  # across languages: its lift over its language's background, in spreads of the question's cosine
# to that background (multilingual-e5-small puts the other language's sentences close together)
_PLAN_SLACK = timedelta(days=1)  # an event time this far after the day said: the statement tells a plan


def asks_own_present(question: str) -> bool:
    """The question asks about the asker's own state now: first person, singular or plural ("we", 我们: the household),
    or a Chinese question naming no one; no relation named, not about the past nor a plan (:func:`~.tense.asks_present`). "Where do I live these days?",
    "Do I still play League?", 我现在住哪？ -> True; "Where does my sister live?", "Where did I live before?",
    "Am I moving?" -> False."""
    from .slot_evidence import _we

    return asks_present(question) and not asks_past(question) and \
        (asks_about_asker(question) or bool(_we().search(question))) and not kin_words(question)


def asked_person(question: str) -> tuple[str, str] | None:
    """Whose present state the question asks about: ("user", "") for the asker's own (:func:`asks_own_present`);
    ("", relation) for one relation of the asker's ("Where does my sister live now?", 我女儿现在几岁？ -> ("",
    "daughter"): canonical, :func:`~.persons.kin_words`); (name, "") for one person named ("Where does Tom live?",
    小美住在哪里？ -> ("小美", "")); ("user", "") too for a count of the asker's relations, the relation word not after
    a possessive ("How many children do I have?", 我有几个孩子？); None for a question about the past or a plan, two
    relations or someone else's relation ("Where does Tom's brother live?", 我姐姐有几个孩子？)."""
    from ..facts.subjects import person_owner
    from .question import analyze_question

    if not asks_present(question) or asks_past(question):
        return None
    ent, _ = person_owner(question)
    if ent and ent != "user":  # 小美住在哪里？ names no relation but a person (no asker's question)
        return ent, ""
    if asks_own_present(question):
        return "user", ""
    kin = kin_words(question)
    if kin and len(kin) == 1 and "count" in asked_value_kinds(question) and asks_about_asker(question) and \
            not _possessed(question, next(iter(kin))):
        return "user", ""  # the asker's relations counted ("How many children do I have?", 我有几个孩子？): their own
    if kin:
        return ("", next(iter(kin))) if len(kin) == 1 and _MINE.search(question) else None
    names = analyze_question(question).names
    return (names[0], "") if len(names) == 1 else None


_MINE = re.compile(r"\b(?:my|our)\b|我", re.I)


def _possessed(question: str, kin: str) -> bool:
    """The relation word ``kin`` follows the asker's possessive ("my sister", 我姐姐, 我的女儿): the question asks
    about that person, not how many such the asker has."""
    return bool(re.search(rf"(?:{_MINE.pattern})\s*(?:的\s*)?{re.escape(kin)}", question, re.I))


def asks_whole_person(question: str, person: tuple[str, str] | None) -> bool:
    """The question asks about a person (:func:`asked_person`) and names nothing of theirs: it asks for no kind of
    value (:func:`~.answer_types.asked_value_kinds`) and every content term of full weight
    (:func:`~.question.analyze_question`) is a person: a relation word, the name asked, a name written as one (a
    capitalised word inside an English question, not an acronym; a familiar name in Chinese, 小美, 老王). "Tell me
    about Anna", "What do you know about my sister?", "What do you know about me?", 跟我说说小美, 我妹妹最近怎么样？ ->
    True; "Where does Anna live?", "How old is my son?", "What pets do I have?" -> False; False when no person is
    asked about."""
    from .question import analyze_question

    if person is None or asked_value_kinds(question):
        return False
    name = person[0].casefold() if person[0] not in ("", "user") else ""
    # a name written as one: capitalised inside the question, not an acronym ("GPA"); in Chinese a familiar name
    # (小美, 老王, 阿强: jieba's name tags alone also take verb phrases, 喝咖啡)
    inside = {w.casefold() for w in re.findall(r"(?<=\s)[A-Z][a-z][\w'’-]*", question)}
    for term, weight in analyze_question(question).terms:
        if weight < 1.0 or term.casefold() in inside or term.casefold() == name or kin_words(term) or \
                re.fullmatch(r"[小老阿][\u4e00-\u9fff]{1,2}", term):
            continue
        return False
    return True


def _clause_person(clause: str) -> tuple[str, str]:
    """(entity, relation) of the person a clause is about: :func:`~anchormem.facts.subjects.person_owner`, else the
    speaker's relation that is its subject ("My son is 13 now", 我女儿七岁了 -> ("user", "son"/"daughter"))."""
    from ..facts.meaning import _person_of_speaker
    from ..facts.subjects import person_owner

    ent, rel = person_owner(clause)
    if ent or rel:
        return ent, rel
    rel = _person_of_speaker(clause)
    return ("user", rel) if rel else ("", "")


def _theirs(person: tuple[str, str], texts: list[str]) -> Callable[[str], bool]:
    """Whether a clause is about ``person`` (:func:`asked_person`, not the asker): its subject is that relation or
    that name, or a name said beside that relation in ``texts`` ("My daughter Mia is 6" makes "Mia turned seven"
    the daughter's), or opens with one."""
    from ..facts.keys import kin_canonical, kin_covers
    from ..facts.subjects import person_owner
    from .persons import same_name

    name, rel = person
    names, rels = ({name} if name else set()), ({kin_canonical(rel)} if rel else set())
    def covered(r: str) -> bool:  # asked "sister", said 姐姐: hers (:func:`~anchormem.facts.keys.kin_covers`)
        return any(kin_covers(k, kin_canonical(r)) for k in rels)

    for t in texts:
        ent, r = person_owner(t)
        if ent and ent != "user" and r:
            if covered(r):
                names.add(ent)
            elif any(same_name(ent, x) for x in names):
                rels.add(kin_canonical(r))

    def theirs(clause: str) -> bool:
        ent, r = _clause_person(clause)
        if r and covered(r):
            return True
        if ent and ent != "user" and any(same_name(ent, x) for x in names):
            return True
        head = clause.lstrip(" \"'“‘")
        return any(head.startswith(x) and not head[len(x):len(x) + 1].isalnum() for x in names)

    return theirs


def said_at(m: MemoryItem) -> datetime:
    """When ``m`` was said: its message's timestamp (``created_at``), never the time it was added (an older statement
    imported later keeps its own time). Not the time of an event it tells: "旺财去年冬天走了，现在就剩豆豆一只狗了"
    says what holds when it is said (a past scene, "back in college I lived in Ithaca", is no present statement at all:
    :func:`~anchormem.facts.stance.present_clauses`)."""
    return m.created_at


def _own(m: MemoryItem) -> bool:
    return m.role == "user" and m.source == "user" and m.kind != "summary" and m.valid_to is None


def _plan(m: MemoryItem) -> bool:
    return m.event_time is not None and m.event_time > m.created_at + _PLAN_SLACK


def _slots(m: MemoryItem, relation: str = "") -> set[str]:
    """``m``'s current slots ("user|home_city"); with ``relation`` (canonical) the slots of a relation it covers
    named as that relation's ("user|姐姐_home_city" -> "user|sister_home_city" for "sister": one person's slot
    said in two languages)."""
    out = {c.slot for c in m.claims if c.valid_to is None}
    out |= {m.fact.slot} if m.fact is not None else set()
    return {_as_relation(x, relation) for x in out} if relation else out


def _as_relation(slot: str, relation: str) -> str:
    from ..facts.keys import kin_canonical, kin_covers

    ent, _, attr = slot.partition("|")
    head, sep, rest = attr.partition("_")
    if not relation:
        return slot
    head = kin_canonical(head) if sep else ""
    return f"{ent}|{relation}_{rest}" if head and (kin_covers(relation, head) or kin_covers(head, relation)) else slot


_WORD_KEYED = ("does:", "count:")  # slots keyed by the word said: one habit or one count in other words


def _keyed(slots: set[str]) -> bool:
    """``slots`` hold one the write path keys by its kind (a home, a job, an amount), not only slots keyed by the
    word said (:data:`_WORD_KEYED`): a habit by the word for what is done ("does:league" / "does:game") or a count by
    the word for what is counted ("count:chicken" / "count:bird": "We keep 4 hens" / "that's six birds"), one thing
    in other words."""
    return any(not x.partition("|")[2].startswith(_WORD_KEYED) for x in slots)


def _values(m: MemoryItem, slot: str, relation: str = "") -> list[str]:
    out = [c.value for c in m.claims if c.valid_to is None and _as_relation(c.slot, relation) == slot]
    return out + ([m.fact.value] if m.fact is not None and _as_relation(m.fact.slot, relation) == slot else [])


def _restates(n: MemoryItem, o: MemoryItem, slot: str, relation: str = "") -> bool:
    """``n`` says the value ``o`` holds for ``slot`` again (:func:`~anchormem.facts.keys.same_value`: one place in
    two scripts, one number said two ways)."""
    from ..facts.keys import same_value

    attr = slot.split("|", 1)[-1]
    return any(same_value(attr, a, b) for a in _values(n, slot, relation) for b in _values(o, slot, relation))


def _may_replace(later: str, earlier: str, asked: frozenset[str] = frozenset()) -> bool:
    """``later`` can say a new value of what ``earlier`` says or its end, as the write path's relative reader reads
    a clause (:mod:`anchormem.facts.relative`): it holds a typed value of a kind ``earlier`` holds too (a name, an
    amount, a job, an age, a count: :func:`~anchormem.facts.meaning.typed_values`) or says an ending (the terminative
    aspect, :func:`~anchormem.facts.aspect.terminative`: "游戏我已经不玩了", "Axed Disney+"). "I'm vegetarian." says
    neither of "I have two cats, Miso and Tofu.". ``asked``: the kinds the question asks for
    (:func:`~anchormem.answering.answer_types.asked_value_kinds`); when ``earlier`` holds one of them, the shared kind
    must be one of them ("Order #B778…" holds a number, no place or employer for "Where do I work now?") and an
    ending naming a value of another kind must end what ``earlier`` says (:func:`_ends_what`: "I cancelled the
    premium plan, 不想再付69元了" ends no cat; a bare "I quit last week" may end the asked job)."""
    from ..facts.aspect import terminative
    from ..facts.meaning import typed_values

    mine = {k for k, v in typed_values(earlier, text_language(earlier)).items() if v}
    focus = asked & mine
    kinds = {k for k, v in typed_values(later, text_language(later)).items() if v}
    if terminative(later):  # a bare ending ("I quit last week") ends what is asked; one naming something
        # ("cancelled the plan, 69元") ends that, unless it speaks of what ``earlier`` says
        if asked and not kinds & asked and not _bare_ending(later) and not _ends_what(later, earlier):
            return False  # the question asks for a kind of value; an ending that names something else and holds
            # none of that kind ends something else ("Quit smoking three weeks ago" answers no "Where do I work?")
        return not focus or not kinds - focus or _ends_what(later, earlier)
    return bool(kinds & (focus or mine))


def _bare_ending(text: str) -> bool:
    """``text`` says an ending and names nothing it ends: no content word is left once its terminative marker
    (:func:`~anchormem.facts.aspect.terminative`) and its time phrases (:func:`~anchormem.text.dates.resolve_dates`)
    are taken out ("I quit last week", 我辞职了, "Done with it as of Monday" -> True; "Quit smoking three weeks ago",
    "I cancelled the premium plan" -> False)."""
    from datetime import datetime, timezone

    from ..facts.aspect import terminative
    from ..text.dates import resolve_dates
    from ..text.tokenize import content_words

    rest = text
    for span in resolve_dates(text, datetime(2000, 1, 1, tzinfo=timezone.utc)):
        rest = rest.replace(span.text, " ")
    marker = terminative(text)
    if marker:
        rest = rest.replace(marker, " ")
    return not [w for w in content_words(rest) if not w.isdigit()]


def _ends_what(later: str, earlier: str) -> bool:
    """The ending ``later`` says is of what ``earlier`` says: they share a content word (a stem, not a bare number:
    :func:`~anchormem.text.tokenize.content_words`: 猫 / 猫都送人了) or a typed value, in either script
    (:func:`~anchormem.facts.keys.same_value`: "I left Tencent" / 在腾讯上班)."""
    from ..facts.keys import same_value
    from ..facts.meaning import typed_values
    from ..text.tokenize import content_words, stem

    def stems(text: str) -> set[str]:
        return {stem(w) for w in content_words(text) if not w.isdigit()}

    if stems(later) & stems(earlier):
        return True
    a = typed_values(later, text_language(later))
    b = typed_values(earlier, text_language(earlier))
    return any(same_value(k, x, y) for k in set(a) & set(b) for x in a[k] for y in b[k])


def _adds_other(later: str, earlier: MemoryItem) -> bool:
    """``later`` says only increments (:func:`~anchormem.facts.counts.changed_count_before`'s readings, all "+":
    又领养了一只狗, "adopted another cat") and ``earlier`` carries no current count claim of a noun it increments: what
    ``earlier`` says still holds beside it."""
    from ..facts.counts import _readings

    got = _readings(later)
    if not got or any(how != "+" for how, *_ in got):
        return False
    counted = {c.slot.partition("|")[2].removeprefix("count:") for c in earlier.claims
               if c.valid_to is None and "|count:" in c.slot}
    return not any(noun and noun in counted for _, _, noun, _, _ in got)


def _ends_other(later: str, earlier: str) -> bool:
    """``later`` says an ending that names what it ends (:func:`_bare_ending` is False) and that is nothing
    ``earlier`` says (:func:`_ends_what`): "膝盖不行了，不跑步了" ends running, not "现在每月4200"."""
    from ..facts.aspect import terminative

    return bool(terminative(later)) and not _bare_ending(later) and not _ends_what(later, earlier)


def _value_clauses(later: str, clauses: list[str]) -> list[str]:
    """The clauses of an earlier turn (``clauses``, several) holding a typed value of a kind ``later`` holds
    (:func:`~anchormem.facts.meaning.typed_values`: "月租4500元。" for "花了3200元"): what ``later`` would say a new
    value of, so it must stand out for the question by a share of their lift; [] when ``later`` says an ending
    (:func:`~anchormem.facts.aspect.terminative`) or no clause holds such a value."""
    from ..facts.aspect import terminative
    from ..facts.meaning import typed_values

    if terminative(later):
        return []
    kinds = {k for k, v in typed_values(later, text_language(later)).items() if v}
    return [c for c in clauses if kinds & {k for k, v in typed_values(c, text_language(c)).items() if v}]


def _same_values(later: str, earlier: str) -> bool:
    """Every typed value ``later`` holds of a kind ``earlier`` holds too is one of ``earlier``'s, in either script
    (:func:`~anchormem.facts.keys.same_value`: 慕尼黑 / Munich): ``later`` says the same again."""
    from ..facts.keys import same_value
    from ..facts.meaning import typed_values

    a = {k: v for k, v in typed_values(later, text_language(later)).items() if v}
    b = {k: v for k, v in typed_values(earlier, text_language(earlier)).items() if v}
    common = set(a) & set(b)
    return bool(common) and all(any(same_value(k, x, y) for y in b[k]) for k in common for x in a[k])


_BACKGROUND: dict[tuple[str, int, str], np.ndarray] = {}
_LOCK = threading.Lock()


def _background(embedder: Any, lang: str) -> np.ndarray:
    """Passage vectors (float32 (k, dim)) of the calibration sentences of ``lang`` (``data/lang/<lang>/
    calibration.json``: unrelated everyday statements), shipped for the bundled embedder, else embedded once."""
    from ..facts.bank_vectors import bank_texts, load

    name, dim = str(getattr(embedder, "name", type(embedder).__name__)), int(getattr(embedder, "dim", 0) or 0)
    key = (name, dim, lang)
    with _LOCK:
        got = _BACKGROUND.get(key)
    if got is None:
        texts = bank_texts("calibration", lang)
        got = load(name, dim, lang, texts, "calibration") if dim else None
        if got is None:
            got = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
        with _LOCK:
            _BACKGROUND[key] = got
    return got


def later_statements(question: str, earlier: list[MemoryItem], pool: list[MemoryItem], *,
                     embedder: Any = None, question_vector: Callable[[], Any] | None = None,
                     cited: frozenset[str] = frozenset()) -> dict[str, MemoryItem]:
    """Per memory of ``earlier`` (by id), the latest-said memory of ``pool`` that is a later statement of it (see the
    module doc); memories without one are left out. ``cited``: ids the evidence test cited. With a calibrated
    ``embedder`` (``embed_documents``) and ``question_vector`` (a callable giving the question's query embedding,
    float32 (dim,)), a cited memory answers the same question when it stands out of the background of unrelated
    statements by at least :data:`LATER_SHARE` of what the earlier one does (its cosine to the question, minus the
    question's mean cosine to the calibration sentences of its own language), and any memory does by meaning when,
    besides, its lift is at most :data:`LATER_MARGIN` below the earlier one's, its cosine to the earlier statement
    is at least :data:`PAIR_LIFT` above the earlier statement's mean cosine to the sentences of its language, and
    either question, earlier and later statement are of one language or the later one is in the other language
    than the earlier one, its lift :data:`CROSS_LIFT` spreads of the question's cosines to them at least and no
    value of the earlier one's said again. Without them a later statement
    is one carrying a claim of the same slot. {} when the question asks no present state of the asker's or of one
    person (:func:`asked_person`)."""
    from ..facts.stance import of_others, person_clauses, present_clauses

    person = asked_person(question)
    if person is None and asks_plan(question):
        return {}  # a question about what is planned: its answer is the plan
    if person is None:  # a question about what happened: only a plan has a later statement, its outcome
        clauses: Callable[[str], list[str]] = _stated
    elif person == ("user", ""):
        clauses = present_clauses
    else:  # someone else's: their clauses, in the words of the user's own statements
        theirs = _theirs(person, [m.text for m in list(earlier) + list(pool) if _own(m)])
        clauses = lambda text: person_clauses(text, theirs)  # noqa: E731
    # a question asked is no earlier statement (a plan is one of what its later outcome tells); one about the
    # asker or another person says something that holds of them (a friend's move, "My mate Dave just moved to
    # Glasgow", or a supposition, 要是我搬回老家长沙…, states nothing of the asker's own that a later statement could
    # replace: fresh24 D11)
    olds = [o for o in earlier if _own(o) and not _asks(o.text) and
            (_planned(o) if person is None else bool(clauses(o.text)) or person == ("user", "") and
             (not of_others(o.text) or _planned(o)))]  # (a plan, whoever's, is one of what its outcome tells)
    if not olds:
        return {}
    first = min(said_at(o) for o in olds)
    cands: list[tuple[MemoryItem, str]] = []
    seen: set[str] = set()
    for n in pool:
        if n.id in seen or not _own(n) or said_at(n) <= first or _plan(n):
            continue
        seen.add(n.id)
        said = clauses(n.text)
        words = " ".join(said)
        if words and not all(says_ahead(c) for c in said):  # what will happen only is no later value
            cands.append((n, words))
    if not cands:
        return {}
    # a question that names the person and nothing of theirs ("Tell me about Anna", "How is my sister doing?",
    # 跟我说说小美) asks for everything said of them: all of it holds at once unless the claims read a new value of
    # a slot, so no later statement by meaning (a puppy Anna adopted is no later answer to where she lives)
    meaning = embedder is not None and question_vector is not None and not asks_whole_person(question, person)
    ident = _asks_identifier(question)
    asked = asked_value_kinds(question)
    if meaning:
        parts = {o.id: _answering_parts(o, clauses) for o in olds}
        texts = list(dict.fromkeys([w for _, w in cands] + [o.text for o in olds] +
                                   [c for p in parts.values() for c in p]))
        vecs = dict(zip(texts, np.asarray(embedder.embed_documents(texts), dtype=np.float32)))
        qv = np.asarray(question_vector(), dtype=np.float32).reshape(-1)
        qlang = text_language(question)
        banks = {lang: _background(embedder, lang) for lang in ("en", "zh")}
        floors = {lang: float(np.mean(b @ qv)) for lang, b in banks.items()}  # the question's cosine to
        # unrelated statements of each language, and its spread there
        spreads = {lang: max(float(np.std(b @ qv)), 1e-6) for lang, b in banks.items()}
    out: dict[str, MemoryItem] = {}
    for o in olds:
        best: MemoryItem | None = None
        closers = {c.superseded_by for c in o.claims if c.valid_to is not None}
        o_words = o.text if person == ("user", "") else " ".join(clauses(o.text))
        part = o.text
        if meaning:  # the clause of o that answers the question (a long turn speaks of many things)
            ol = text_language(o.text)
            part = max(parts[o.id], key=lambda c: float(qv @ vecs[c]))
            lo = float(qv @ vecs[o.text]) - floors[ol]
        # what o answers with is a plan: its later statement is its outcome, said once the planned time came
        outcome = _planned(o, part) and (person is None or not present_clauses(part))
        if person is None and not outcome:
            continue  # a question about what happened: only what answers it as a plan has a later statement
        for n, words in cands:
            if n.id == o.id or said_at(n) <= said_at(o) or words in o.text:
                continue
            if outcome and said_at(n) < _planned_end(o):
                continue  # said before the planned time came: no outcome
            if n.id in closers or any(c.fact_id in closers for c in n.claims):  # the write path read it as the
                continue  # change of a claim of o's that it closed (n, or the fact n carries): that change is the
                # claims' (o's current view no longer says it), not a later answer to what o still says
            ns, os_ = _slots(n, (person or ("", ""))[1]), _slots(o, (person or ("", ""))[1])
            shared = ns & os_
            if shared and all(_restates(n, o, slot, (person or ("", ""))[1]) for slot in shared):
                continue  # the same value said again ("I live in Munich" / 我住在慕尼黑): nothing is earlier
            if shared and _side_by_side(shared):
                continue  # names of a counted set's members, both current: the write path kept them side by side
            ok = bool(shared)
            if not ok and _counts_members(n, o):
                continue  # n counts more than one of the set o names a member of ("… so that's two cats" after "I
                # have a cat named Miso"): the name holds beside the count
            if not ok and _adds_other(words, o):
                continue  # n adds one more of something o holds no count of ("我们又领养了一只狗" after "我养了一只猫"):
                # both hold (fresh26 D16)
            if not ok and meaning and _keyed(os_) and not outcome and _ends_other(words, o_words):
                continue  # o's value is typed by the write path (a rent, a home) and n ends something it does not
                # name ("不跑步了，改成每周游泳三次" is no later rent: fresh26 D4)
            if not ok and meaning and (outcome or not (_keyed(ns) and _keyed(os_))):  # both read as slots, none
                # shared: the write path says they speak of different things ("done moving… Leeds" is no later
                # answer to a job)
                nl = text_language(words)
                same = ol == nl  # both statements in one language: their lifts are over one background, whatever
                # the question's language ("Do I still play League?" of "I play League every night, 基本打到两点。"
                # and "游戏我已经不玩了"); the question in the other one, n must stand out as across languages
                one = same and nl == qlang
                if not (same or n.id in cited or (CROSS_LANGUAGE and nl != ol)):
                    continue  # across languages: a later statement in the other language than the earlier one
                if ident and n.id not in cited:
                    continue  # a number or code asked for by its kind ("What's my order number?") is answered by a
                    # statement the evidence test cites for that kind, not by any later number ("我的手机号是…")
                nv = vecs[words]
                ln = float(qv @ nv) - floors[nl]  # each over its language's floor
                fair = ln * spreads[ol] / spreads[nl]  # n's lift on o's scale: in spreads of the question's cosines
                # to each language's background (the same when both are of one language)
                valued = _value_clauses(words, parts[o.id][1:])  # o's clauses holding a value of a kind n holds:
                # n stands out as much as a share of the best of them does ("月租4500元。" for "花了3200元")
                lo_n = max([lo] + [float(qv @ vecs[c]) - floors[ol] for c in valued])
                stands_out = fair >= LATER_SHARE * max(lo_n, 0.0)
                wv = vecs[o.text]  # it speaks of what o speaks of: closer to it than unrelated statements in n's
                # own language are
                near = float(nv @ wv) >= float(np.mean(banks[nl] @ wv)) + PAIR_LIFT
                # across languages, a later statement the evidence test cites needs no margin to o's lift: a
                # question sits nearer its own language than either floor removes
                ok = stands_out and near and (fair >= lo - LATER_MARGIN or nl != ol and n.id in cited) and \
                    (_may_replace(words, o_words, asked) or outcome and n.id in cited) and \
                    (one or n.id in cited or (ln >= CROSS_LIFT * spreads[nl] and not _same_values(words, o_words)))
            if ok and (best is None or said_at(n) > said_at(best)):
                best = n
        if best is not None:
            out[o.id] = best
    return out


def _stated(text: str) -> list[str]:
    """The clauses of ``text`` that state what holds now, the speaker's or a person's of theirs (a plan's outcome:
    "朵朵的钢琴演出很成功" after "我女儿朵朵六一要参加学校的钢琴演出")."""
    from ..facts.stance import person_clauses, present_clauses

    return present_clauses(text) or person_clauses(text, _anyone)


def _asks(text: str) -> bool:
    """Every sentence of ``text`` is a question ("如果我换成500M的套餐，每个月要多少钱？"): it states nothing."""
    from ..facts.rules import _is_question
    from ..text.segment import split_sentences

    sentences = [s for s in split_sentences(text) if s.strip()]
    return bool(sentences) and all(_is_question(s) for s in sentences)


def _planned(m: MemoryItem, part: str = "") -> bool:
    """``m`` (or its ``part`` that answers a question) tells a plan: an event time ahead of when it was said
    (:func:`_plan`), or a sentence, no question, that is a modal or plan of the speaker's
    (:func:`~anchormem.facts.changes.modal`: "I might move to Berlin") or tells what will happen
    (:func:`~anchormem.facts.plans.says_future`: "我女儿朵朵六一要参加学校的钢琴演出")."""
    from ..facts.changes import modal
    from ..facts.plans import says_future
    from ..facts.rules import _is_question
    from ..text.segment import split_sentences

    return _plan(m) or any(not _is_question(s) and (modal(s) or says_future(s))
                           for s in split_sentences(part or m.text))


def _planned_end(m: MemoryItem) -> datetime:
    """When what a plan ``m`` tells is over: its resolved event's end, else its time."""
    return m.event_time_end or m.event_time or m.created_at


def _answering_parts(o: MemoryItem, clauses: Callable[[str], list[str]]) -> list[str]:
    """The parts of ``o`` one of which answers a question: its whole text and, for a turn of several clauses, each
    clause that can state what holds (:func:`~anchormem.facts.stance.present_clauses` or a person's): "月租4500元。" of
    "我上周三刚搬到杭州，在西湖区租了一套两居室，月租4500元。"."""
    cs = [c for c in clauses(o.text) if c.strip(",，;；.。!！?？ ")]
    return [o.text] + (cs if len(cs) > 1 else [])


def _asks_identifier(question: str) -> bool:
    """Whether ``question`` asks for a number or code by its kind (a key term among ``identifier_words`` of
    data/lang/<lang>/answers.json: "What's my order number?", 我的快递单号是多少？)."""
    from .evidence import _identifier_words
    from .question import analyze_question

    ids = _identifier_words()
    return any(t.casefold() in ids for t, _ in analyze_question(question).terms)


def later_by_slot(items: list[MemoryItem]) -> dict[str, MemoryItem]:
    """Per memory of ``items`` (by id), the latest-said memory of ``items`` that answers the same slot question
    later, read from the stored claims alone (no question, no embedder: what a summary line is checked against):
    both the user's own and current, the earlier one no question asked, the later one said after it, no plan, with
    a clause that can state what holds now (:func:`~anchormem.facts.stance.present_clauses`, or a person's: "My
    sister Mei just moved to Beijing"),
    carrying a current claim of a slot the earlier one carries, not the same value again (:func:`_restates`) and not
    the change the write path already closed the earlier claim with. Memories without one are left out."""
    from ..facts.stance import person_clauses, present_clauses

    own = [m for m in items if _own(m) and _slots(m)]
    cands = [n for n in own if not _plan(n) and any(not says_ahead(c) for c in  # what will happen: no later value
                                                    present_clauses(n.text) + person_clauses(n.text, _anyone))]
    out: dict[str, MemoryItem] = {}
    for o in own:
        if _asks(o.text):  # a question asked is no earlier statement ("如果我换成500M的套餐，每个月要多少钱？")
            continue
        closers = {c.superseded_by for c in o.claims if c.valid_to is not None}
        for n in cands:
            if n.id == o.id or said_at(n) <= said_at(o) or n.text in o.text or n.id in closers or \
                    any(c.fact_id in closers for c in n.claims):
                continue
            rel = _relation_of(o)
            shared = _slots(n, rel) & _slots(o, rel)
            if shared and not all(_restates(n, o, slot, rel) for slot in shared) and not _side_by_side(shared) and \
                    (o.id not in out or said_at(n) > said_at(out[o.id])):
                out[o.id] = n
    return out


def _counts_members(n: MemoryItem, o: MemoryItem) -> bool:
    """``n`` carries a current count of more than one of a set whose member ``o`` names (``count:cat`` "two cats"
    beside ``cat_name`` Miso; :func:`~anchormem.facts.counts.several_of`)."""
    from ..facts.counts import member_key, several_of

    keys = {member_key(x.partition("|")[2]) for x in _slots(o)} - {""}
    said = [(c.slot.partition("|")[2], c.value) for c in n.claims if c.valid_to is None]
    said += [(n.fact.attribute, n.fact.value)] if n.fact is not None and n.fact.polarity > 0 else []
    return any(several_of(a, str(v), k) for k in keys for a, v in said)


def _side_by_side(shared: set[str]) -> bool:
    """Every slot of ``shared`` names members of a counted set (``dog_name``, ``cat_names``:
    :func:`~anchormem.facts.counts.member_key`): two current claims of it hold side by side, the write path having
    closed the one a departure or a renaming ended ("We also have a cat called Tofu now": facts.counts.joins_set),
    so neither memory is an earlier statement of the other."""
    from ..facts.counts import member_key

    return all(member_key(slot.partition("|")[2]) for slot in shared)


def _relation_of(m: MemoryItem) -> str:
    """The relation (canonical) whose slot ``m`` carries ("user|sister_home_city" -> "sister"), or ""."""
    from ..facts.keys import is_person, kin_canonical

    for slot in sorted(_slots(m)):
        head, sep, _ = slot.partition("|")[2].partition("_")
        if sep and ":" not in head and is_person(head):
            return kin_canonical(head)
    return ""


def _anyone(clause: str) -> bool:
    """The clause is about a person of the speaker's or someone named (:func:`_clause_person`)."""
    ent, rel = _clause_person(clause)
    return bool(rel) or bool(ent and ent != "user")


def earlier_line(text: str, later: MemoryItem) -> str:
    """A summary line ``text`` marked as earlier than ``later``: "earlier, before 2024-05-30: I live in Leeds." /
    "较早，2024-05-30之前：我住在利兹。"."""
    day = day_of(later.created_at)
    return f"较早，{day}之前：{text}" if has_cjk(text) else f"earlier, before {day}: {text}"


def earlier_note(later: MemoryItem, *, zh: bool = False) -> str:
    """The note an earlier statement is presented with, ``later`` being the statement said after it: "an earlier
    statement, before 2024-05-30" / "较早的说法，2024-05-30之前"."""
    day = day_of(later.created_at)
    return f"较早的说法，{day}之前" if zh else f"an earlier statement, before {day}"


def latest_said_answer(question: str, ans: Answer, found: list[Hit], *, max_citations: int, embedder: Any = None,
                       question_vector: Callable[[], Any] | None = None) -> tuple[Answer, list[Hit]]:
    """``ans`` citing first the latest later statement (:func:`later_statements`) of its first citation, among the
    search hits ``found`` and its own citations, then that citation quoted as earlier ("an earlier statement, before …"), then the rest
    (at most ``max_citations``). Returns (the answer, the later statement as a hit: ``explain["said_after"]``, the id
    of the statement it follows); ``ans`` unchanged (and no hits) when the question does not ask the asker's own
    present state, it abstained, or its first citation has no later statement."""
    if ans.abstained or not ans.citations:
        return ans, []
    head = ans.citations[0]
    pool = list({m.id: m for m in [h.memory for h in found] + list(ans.citations)}.values())
    later = later_statements(question, [head], pool, embedder=embedder, question_vector=question_vector,
                             cited=frozenset(c.id for c in ans.citations))
    n = later.get(head.id)
    if n is None:
        return ans, []
    rest = [c for c in ans.citations[1:] if c.id != n.id and not (c.created_at == n.created_at and
                                                                  (c.text in n.text or n.text in c.text))]
    cites = ([n, head] + rest)[:max_citations]
    zh = has_cjk(question)
    text, cites = quoted(cites, zh=zh, notes={head.id: earlier_note(n, zh=zh)})
    hit = Hit(memory=n, score=next((h.score for h in found if h.memory.id == n.id), 0.0),
              explain={"said_after": head.id})
    return ans.model_copy(update={"citations": cites, "text": text, "evidence": list(ans.evidence) + [hit]}), [hit]


def latest_said_hits(question: str, hits: list[Hit], *, embedder: Any = None,
                     question_vector: Callable[[], Any] | None = None) -> tuple[list[Hit], dict[str, str]]:
    """``hits`` (search results, best first) with each later statement (:func:`later_statements`, among ``hits``)
    moved right above the first earlier statement it follows, and the notes for those earlier ones: (the hits,
    {earlier id: its note, :func:`earlier_note`}). Unchanged (and no notes) for a question that does not ask the asker's own present
    state or when no hit has a later statement."""
    mems = [h.memory for h in hits]
    later = later_statements(question, mems, mems, embedder=embedder, question_vector=question_vector)
    if not later:
        return hits, {}
    by_id = {h.memory.id: h for h in hits}
    out: list[Hit] = []
    placed: set[str] = set()
    for h in hits:
        n = later.get(h.memory.id)
        if n is not None and n.id not in placed:
            out.append(by_id[n.id])
            placed.add(n.id)
        if h.memory.id not in placed:
            out.append(h)
            placed.add(h.memory.id)
    notes = {o: earlier_note(n, zh=has_cjk(by_id[o].memory.text)) for o, n in later.items()}
    return out, notes
