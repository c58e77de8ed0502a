"""Change detection relative to the user's own memories: a new value of the same type, said the same way.

The rules, frames and exemplar bank (:mod:`.rules`, :mod:`.frames`, :mod:`.meaning`) name a slot from a closed
inventory; a change said of anything outside it ("健身卡一年2999" -> "续费涨价了，今年要3599", "我的手机套餐每月59块" ->
"换了个套餐，每个月39块", "I run every morning" -> "Haven't gone for a run since May") is never a change there. This
module reads a change as memory systems do (retrieve what the user already said, decide UPDATE or nothing), offline:

1. **Which clauses** (:func:`units_of`): the runs of clauses of a user turn that no fact was read from (or only a
   first fact of a slot the user has no value in: "Landlord bumped the rent to $2,050" read as ``rent`` when the rent
   was said as "Rent on my one-bed is $1,850"), past the gates: a question, a hypothetical, plan or reported speech
   (cues.json), someone else as the subject ("My parents moved…", "A recruiter from Boeing…"), the past, a trip,
   people in general or what is someone else's (``past_time`` / ``visit`` / ``general`` of
   ``data/lang/<lang>/relative.json``; "My neighbour's rent"). A run holds typed values (:func:`clause_values`: an
   ``amount`` with its unit class, a ``count`` with its counted noun or classifier, a ``name``, a ``job``; a name
   addressed, "Thanks, Mel!", is none) or a terminative marker (:func:`~anchormem.facts.aspect.terminative`, not
   an ``opinion``: "I don't like the office coffee"). A name, a job or a count is a change only with an inchoative
   marker (:func:`~anchormem.facts.aspect.inchoative`: "now", "moved", "total", 现在, 剩); said without one it is a
   mention.
2. **Which memories**: the user's current memories nearest the run (the store's own ``dense_search``, ``k`` of the
   calibration), said by the same speaker, cut into clauses (a short clause without a value is the topic of the
   next: "健身卡嘛，一年2999"); those holding a value of the same type (same unit class; for a count the same counted
   noun or classifier) that differs from the new one; never a name or a job of someone else's ("My wife works at
   Apple"). An ending takes the clauses sharing a content word with it; naming none ("烟终于戒了！" after
   "我每天抽一包烟"), it takes the user's sentences, resolved by meaning (below).
3. **Same thing?** Both clauses with their values masked (``"我的手机套餐每月<NUM>"`` ~ ``"换了个套餐，每个月<NUM>"``)
   are embedded in one batch; the best old clause must reach ``match``, or ``match_shared`` when the two share a
   content word (the old value named beside the new, "I left Amazon"; one counted noun; one unit of weight or
   time), or ``match_typed`` when both are about one well-known slot by the exemplar bank (``home_city``,
   ``employer``: :meth:`RelativeChanges._typed_slot`); it must lead the runner-up by ``margin``. An ending: ``end``
   (the run or the piece holding its marker, unmasked), with a shared word; naming nothing, the piece holding the
   marker against whole sentences: ``end_meaning``, leading the runner-up by ``end_margin``, and not bounded to one
   occasion (:func:`~anchormem.facts.aspect.episodic`: "no tennis this week"). A first employer, home or job said
   as a change replaces the older words about that slot (:mod:`.replaces`).
4. **The change**: when the old clause carries a current claim whose value it holds, the new fact takes that
   claim's slot (so the third value chains). When it carries none, an **open claim** is made for it at change
   time (:class:`OpenClaim`): a fact memory of the old clause's words (its piece holding the value; for an ending,
   the statement or list item it ends, :func:`~anchormem.facts.cuts.ended_words`; so the rest of the memory stays
   current), said when the old memory was said, in the bank's slot when both clauses are about
   one, else in the slot ``<kind>:<old memory id[:12]>.<n>`` (``n``: the clause's place in the memory; ``habit``
   for an ending; a count with a counted noun: ``count:<noun key>``, the slot the rules use). The old memory carries
   it too (:attr:`~anchormem.stores.protocol.NewMemory.carried_by`), so reads strip its words once it is closed
   (:func:`~anchormem.facts.claims.current_view`); the new fact takes that slot and supersedes it. An ending is a -1
   fact in the turn's grounded words naming the claim it ends (:attr:`~anchormem.facts.model.Fact.ends`).

Everything then goes through :func:`~anchormem.facts.reconcile.plan_facts` as any fact: the grounding check, the
review gate, the write's serialised per-slot step, history and SUPERSEDE events. Only with the offline extractor
and a semantic embedder (it runs beside the meaning fallback); thresholds are ``calibration`` of relative.json.

    rc = RelativeChanges(embedder)
    facts, opened = rc.facts(found, store=store, tenant="default", user_id="u1")
"""

from __future__ import annotations

import logging
import re
import uuid
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from .. import langdata
from ..text.segment import split_sentences
from ..text.tokenize import has_cjk
from ..types import FactSlot, MemoryItem, Scope
from .values import counted_cover
from .typed_values import (TypedValue, _lang, _says_word, _value_piece, clause_values, data, masked,
                           settings)
from .keys import ENDING_EVENTS, value_key
from .meaning import unit_fact
from .model import Fact
from .addresses import is_address_slot, street_address
from .aspect import episodic
from .subjects import opens_with_someone as _someone, speakers
from .topics import many_in_other_words, same_topic, shared as _shared, topic_words as _topic_words

__all__ = ["TypedValue", "clause_values", "counted_cover", "masked", "OpenClaim", "RelativeChanges", "settings"]

_LOG = logging.getLogger(__name__)


def _gated(text: str) -> bool:
    """A clause set in the past, on a trip, about people in general, about what is someone else's or only seen
    (:func:`~anchormem.facts.stance.scene`), or naming where the speaker is from (``origin`` of relative.json, with no
    inchoative marker): no change of what holds for the speaker."""
    from .stance import scene

    if _says_word(text, _lang(text), "origin") and not _says_now(text):
        return True  # "老家哈尔滨的", "my hometown is Leeds": where the speaker is from, no home of now
    return bool(scene(text))


def _name_slots(lang: str) -> frozenset[str]:
    """The well-known slots whose value is a name (the bank's ``place`` / ``org`` classes: home_city, employer)."""
    from .meaning import _bank_data

    return frozenset(s for s, sp in _bank_data(lang).get("slots", {}).items() if sp.get("type") in ("place", "org"))


def _bare(masked_text: str) -> bool:
    """Whether a masked clause holds nothing but its masks, punctuation and ``bare_fillers`` of relative.json
    ("<NAME>了。", "<NAME> now."): with no topic word left, its meaning is only the mask's, and two such clauses
    are near whatever their values are about."""
    rest = re.sub(r"<[A-Z]+>", " ", masked_text).casefold()
    words = re.findall(r"[\u3400-\u9fff]|[^\W\d_]+", rest)
    fill = _fillers()
    return not any(w not in fill for w in words)


@lru_cache(maxsize=1)
def _fillers() -> frozenset[str]:
    return frozenset(w.casefold() for lang in langdata.LANGUAGES for w in langdata.load("relative", lang).get(
        "bare_fillers", []))


def _typed_value_fits(slot: str, lang: str, value: TypedValue | None, clause: str) -> bool:
    """Whether the name ``value`` of an old ``clause`` no rule read (it carries no claim) can be the value of the
    bank's typed ``slot``: a ``place`` slot (``home_city``) takes a Latin-script name the gazetteer knows as a place
    (:func:`~anchormem.facts.places.known_place`) or one the clause places something in ("Our apartment's in
    Hatagaya": a ``located_before`` word of places.json right before it), not any capitalised word ("I'm on the
    Family plan", "the Premium tier"); a Chinese name as jieba typed it; an ``org`` slot any name. Either way the
    value passes the slot's value type (:func:`~anchormem.facts.value_types.type_failure`). The clause's
    meaning (the exemplar bank) says what the clause is about, not that its capitalised word is that slot's value."""
    from .meaning import _bank_data
    from .places import known_place, located_at

    from .model import Fact
    from .value_types import type_failure

    if value is None:
        return False
    try:  # the value-type check every reader's fact passes (facts.value_types: 太贵 is no employer, 个女儿 no home)
        if type_failure(Fact(entity="user", attribute=slot, value=value.value, polarity=1)):
            return False
    except ValueError:
        return False
    if _bank_data(lang).get("slots", {}).get(slot, {}).get("type") != "place" or has_cjk(value.value):
        return True
    return known_place(value.value) or located_at(clause, clause.find(value.span or value.value))


def _job_slot(lang: str) -> str:
    """The well-known slot whose value is a job (the bank's ``job`` class: occupation), or ""."""
    from .meaning import _bank_data

    return next((s for s, sp in _bank_data(lang).get("slots", {}).items() if sp.get("type") == "job"), "")


def _other_attribute(text: str, attr: str, old_clause: str) -> bool:
    """The new words name the attribute their amount is about (:func:`~anchormem.facts.frames.slots_named`: 工资,
    rent, 会员费...) and it is not ``attr``, the attribute of the claim they would change (nor one the old words name):
    "My salary is 20000 a month" is no change of a gym fee, 工资 no change of a 宽带套餐. Same currency and period
    are not enough."""
    from .frames import slots_named

    named = slots_named(text)
    if not named or attr in named:
        return False
    old = slots_named(old_clause)  # what the older words name ("Rent on my one-bed is $1,850": rent, whatever
    if old & named:  # attribute the claim was given)
        return False
    return ":" not in attr or bool(old)  # the claim's own attribute (宽带套餐) is another one; an open slot


def _named_fact(out: list[list[Fact]], i: int, fresh: set[int], entity: str, u: Any, nv: TypedValue) -> None:
    """The amount ``nv`` as a new fact of the one attribute the words name, when no fact of it was read already."""
    from .frames import slots_named

    named = slots_named(u.text)
    if len(named) != 1:
        return
    (slot,) = named
    if any(g.attribute == slot for g in out[i]):
        return
    fact = _fact(entity, slot, nv.value, 1, u)
    if fact is not None:
        out[i].append(fact)
        fresh.add(id(fact))


def _says_now(text: str) -> bool:
    """The clause says something holds from now on: an inchoative marker (:func:`~anchormem.facts.aspect.inchoative`:
    "now", "moved", 现在, 搬)."""
    from .aspect import inchoative

    return bool(inchoative(text))


def _reached(text: str, value: TypedValue) -> bool:
    """``value`` is said as one reached: a ``result_before`` word of relative.json right before it ("bumped it to
    1,100", 涨到3000, 换成五十八)."""
    at = text.find(value.value)
    if at < 0:
        return False
    before = text[:at].rstrip().casefold()
    for w in data(_lang(text)).get("result_before", []) + (data("en").get("result_before", []) if has_cjk(text) else []):
        w = w.casefold()
        if before.endswith(w) and (has_cjk(w) or not before[-len(w) - 1:-len(w)].isalnum()):
            return True
    return False


def _ending(text: str) -> bool:
    """The clause can say a habit ended: a terminative marker (:func:`~anchormem.facts.aspect.terminative`:
    "haven't", "quit", "no longer", 戒, 没再, 不…了; a bare negation is none: "I'll never forget it", "can't wait")
    and no opinion (``opinion`` of relative.json: "I don't like the office coffee" ends no coffee habit)."""
    from .aspect import terminative

    return not _says_word(text, _lang(text), "opinion") and bool(terminative(text))


def _cancels(text: str) -> bool:
    """The run says something was called off ("the trip got cancelled", 成都的trip取消了: ``called_off`` of
    plans.json, :func:`~anchormem.facts.called_off.called_off`): what it ends is what it names, a plan or a thing
    sharing a word with the run, never a claim found by meaning alone (a trip is no job)."""
    from .called_off import called_off

    return called_off(_end_piece(text)) is not None


def _occasion(text: str) -> bool:
    """The clause's amounts are one occasion's, no standing value: bounded to one occasion (``episodic``; ``occasion``
    of relative.json: "yesterday", 昨天) or a purchase or payment (``spent``: "bought", 花了, 捐了), naming no numeric
    attribute (``frames.slots_named``: rent, 体重) and saying nothing holds now ("给慈善基金捐了五百块")."""
    from .frames import slots_named

    if not (episodic(text) or _says_word(text, _lang(text), "occasion", "spent")):
        return False
    return not slots_named(text) and not _says_now(text)


def _end_piece(text: str) -> str:
    """The piece of a run that holds its terminative marker ("胃不行了，咖啡彻底戒了，改喝豆浆" -> "咖啡彻底戒了"; "day 30
    without a cigarette. patches are doing their job" -> "day 30 without a cigarette"): what ended is said there,
    not in the reasons and the aftermath around it. The run itself when no single piece holds one."""
    from .aspect import terminative

    pieces = [p.strip() for p in re.split(r"[,，、;；:：.。!！?？]+", text) if p.strip()]
    hits = [p for p in pieces if terminative(p)]
    return hits[0] if hits else text


@dataclass
class Unit:
    """A run of clauses of one sentence that may state a change of the speaker's: ``text`` (the clauses joined),
    ``sentence``, ``lang``."""

    text: str
    sentence: str
    lang: str


def units_of(text: str, found: list[Fact]) -> list[Unit]:
    """The runs of clauses of ``text`` no fact of ``found`` was read from that pass the gates: not a question, not
    a hypothetical, plan or reported speech (cues.json), not about the past or a trip (:func:`_gated`), and with the
    speaker as the subject, no subject at all ("换了个套餐，每个月39块", "Down to 84kg") or someone acting for the
    speaker ("Landlord bumped the rent"). After a clause of someone else's nothing more of the sentence is read."""
    from .changes import blocked
    from .meaning import _acts_for_speaker
    from .rules import _clause_split, _cue_patterns, _is_question, _speaker_subject

    out: list[Unit] = []
    for sentence in split_sentences(text):
        if _is_question(sentence):
            continue
        read = [(f.clause or f.source_span or "").strip() for f in found if f.source_span == sentence]
        run: list[str] = []
        stop = False
        pieces = [p for c in _clause_split().split(sentence) if c and c.strip()
                  for p in re.split(r"(?<=,)\s+(?=(?:might|may|could|would|should|maybe|if|unless)\b)", c, flags=re.I)]
        for clause in pieces + [""]:  # (", might cancel": a plan of its own, gated alone)
            c = clause.strip()
            other = bool(c) and _speaker_subject(c) == "other" and not _acts_for_speaker(c, _lang(c))
            gated = stop or not c or other or bool(_cue_patterns()[1].search(c)) or blocked(c) or _gated(c) or \
                any(r and (r in c or c in r) for r in read)
            stop = stop or other
            if not gated:
                run.append(c)
                continue
            if run:
                start = sentence.find(run[0])
                end = sentence.find(run[-1], max(start, 0)) + len(run[-1])
                joined = sentence[start:end] if 0 <= start < end else ("，" if has_cjk(run[0]) else ", ").join(run)
                out.append(Unit(joined, sentence, "zh" if len(re.findall(r"[\u4e00-\u9fff]", joined)) >= 2 else "en"))
            run = []
    return out


@lru_cache(maxsize=2)
def _third_person(opening: bool) -> re.Pattern:
    """``third_person_subjects`` of cues.json as the subject of a clause of someone else's: with ``opening``, at the
    start of a clause ("she's a nurse now", 她现在是护士了); else where such a clause starts after a comma ("Priya
    switched careers, she's a nurse now", "…，她现在是护士了"): a unit holding one changes no job of the speaker's and
    ends nothing of theirs (a name it says may still be of something of theirs: "We changed it, she's Luna now")."""
    en = langdata.alternation(langdata.words("cues", "third_person_subjects", ("en",)))
    zh = langdata.alternation(langdata.words("cues", "third_person_subjects", ("zh",)))
    if opening:
        return re.compile(rf"^\s*(?:(?:{en})(?:['’]\w+)?\b|(?:{zh}))", re.I)
    return re.compile(rf"(?<=,)\s+(?=(?:{en})(?:['’]\w+)?\b)|(?<=[，,])(?=(?:{zh}))", re.I)


@dataclass
class OpenClaim:
    """A claim made at change time for an old clause no slot was read from: ``item`` (the new fact memory of the
    old clause's words, said when ``carrier`` was), carried by ``carrier`` (the old memory's id) too."""

    item: MemoryItem
    carrier: str


@dataclass
class _Old:
    memory: MemoryItem
    n: int
    clause: str
    values: list[TypedValue]
    value: TypedValue | None = None
    masked: str = ""
    words: set[str] = field(default_factory=set)
    sentence: str = ""  # the sentence the clause is in
    whole: bool = False  # the candidate is the whole sentence (an ending resolved by meaning)
    own: str = ""  # the words a change closes: the clause without a long topic joined to it (_cut_old)


def _old_clauses(item: MemoryItem) -> list[_Old]:
    from .claims import current_view

    view = current_view(item)
    if view is None:
        return []
    return [_Old(item, n, words, list(values), sentence=sentence, own=own)
            for n, words, values, sentence, own in _cut_old(view.text)]


@lru_cache(maxsize=8192)
def _cut_old(text: str) -> tuple[tuple[int, str, tuple[TypedValue, ...], str, str], ...]:
    """The clauses of an old memory's current text as (place in the memory, words, typed values, sentence, words
    a change closes), cached by text: a bulk load meets the same neighbours again for many new turns. The words
    compared hold the clause's topic; those closed hold it only when it is short (:func:`_piece`)."""
    from .rules import _clause_split

    out: list[tuple[int, str, tuple[TypedValue, ...], str, str]] = []
    n = 0
    for sentence in split_sentences(text):
        topic = ""  # short clauses without a value before one with a value are its topic ("健身卡嘛，一年2999")
        for c in [c for c in _clause_split().split(sentence) if c and c.strip()]:
            c = c.strip()
            if _gated(c):  # "I went to a support group yesterday": an event, no claim to change
                n += 1
                continue
            values = clause_values(c)
            if not values and not _ending(c):
                short = len(re.findall(r"[\u4e00-\u9fff]", c)) <= 6 if has_cjk(c) else len(c.split()) <= 3
                topic = (sentence[sentence.find(topic):sentence.find(c) + len(c)] if topic else c) if short else ""
                out.append((n, c, tuple(values), sentence.strip(), c))
                n += 1
                continue
            joined = not topic
            if not topic and out and out[-1][3] == sentence.strip() and values and \
                    not {v.kind for v in out[-1][2]} & {v.kind for v in values} and not _topic_words(c, list(values)):
                topic = out[-1][1]  # a clause saying nothing but its value ("每月二十五") is about the clause
                # before it, however long ("爱奇艺黄金会员连续包月，每月二十五"): that clause is its topic
            words = sentence[sentence.find(topic):sentence.find(c) + len(c)] if topic and sentence.find(topic) >= 0 \
                and sentence.find(c) > sentence.find(topic) else c
            out.append((n, words, tuple(values), sentence.strip(), c if joined and topic else words))
            topic = ""
            n += 1
    return tuple(out)


def _claim_of(old: _Old) -> Any:
    """The current claim of ``old.memory`` whose words are the old clause's (and whose value the clause holds)."""
    from .claims import own_claims

    for c in own_claims(old.memory):
        if c.valid_to is not None or c.polarity < 0 or not c.span:
            continue
        span = c.span.strip().rstrip(".。!！")
        if not (span in old.clause or old.clause.rstrip(".。!！") in span):
            continue
        if old.value is None or TypedValue(old.value.kind, c.value, c.value).same_value(old.value):
            return c
    return None


def _not_about(text: str, kind: str, shared: str, nv: TypedValue | None, o: _Old, end: bool) -> bool:
    """The new words are not about ``o`` (:mod:`.name_claims`): its name claim's holder, or only an ending's word."""
    from .name_claims import about_holder, ending_word
    from .replaces import _located

    claim = _claim_of(o)
    if claim is not None and not about_holder(text, claim.slot.split("|", 1)[1], claim.value,
                                              placed=nv is not None and _located(text, nv.value)):
        return True
    return kind == "name" and end and nv is not None and not (o.value and o.value.value in _end_piece(text)) and \
        ending_word(text, _end_piece(text), shared, nv.value)  # (the old value named where it ended: a change)


class RelativeChanges:
    """The relative change reader for one embedder (see the module doc)."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder

    def facts(self, found: list[tuple[Any, list[Fact]]], *, store: Any, tenant: str, user_id: str
              ) -> tuple[list[list[Fact]], list[OpenClaim]]:
        """For each (draft, facts read from it) of an ``add``: the facts with those read relative to the user's
        memories added, and the open claims they close (to write first). Drafts other than user utterances keep
        their facts. One embedding call for the clauses, one for the masked pairs."""
        from .jobs import acting
        from .subjects import clause_subject

        out = [list(fs) for _, fs in found]
        keys = sorted({f"{f.entity.casefold()}|{f.attribute}" for _, fs in found for f in fs})
        have = {c.fact.slot for c in store.current_facts(tenant, user_id, keys) if c.fact} if keys else set()
        fresh = {id(f) for _, fs in found for f in fs if f"{f.entity.casefold()}|{f.attribute}" not in have}
        units = []
        for i, (d, fs) in enumerate(found):
            if d.item.source != "user" or d.item.kind != "utterance":
                continue
            for u in units_of(d.item.text, [f for f in fs if id(f) not in fresh]):
                vals = clause_values(u.text)
                if _someone(u.text):  # "My parents moved to Nice", "A recruiter from Boeing called me": no name
                    vals = [v for v in vals if v.kind != "name"]  # of the speaker's changes
                owner = clause_subject(u.text)  # 我闺蜜搬去西安了, "the office moved to Kings Cross": that noun's
                if owner:  # place, employer or job (its amounts may still be the speaker's: "my commute's down")
                    vals = [v for v in vals if v.kind not in ("name", "job")]
                third = bool(_third_person(True).match(u.text) or _third_person(False).search(u.text))
                if third:  # "Priya switched careers, she's a nurse now": her job, no ending of the speaker's
                    vals = [v for v in vals if v.kind != "job"]  # (a name stays: "We changed it, she's Luna now")
                vals = [v for v in vals if v.kind != "job" or not acting(v.value, u.text)]  # ("manager took a photo")
                if not _says_now(u.text):  # a name, a job or a count only mentioned ("I had an interview with
                    vals = [v for v in vals if v.kind == "amount"]  # Boeing", "[photo: two children]"): no change
                if _occasion(u.text):  # an occasion's amount ("昨天给慈善基金捐了五百块") changes no standing one,
                    vals = [v for v in vals if v.kind != "amount" or _reached(u.text, v)]  # unless said as reached
                end = _ending(u.text) and not owner and not third
                if vals or end:
                    units.append((i, u, vals, end))
        _LOG.debug("relative units %s", [(u.text, [v.value for v in vals], end) for _, u, vals, end in units])
        if not units:
            return out, self._firsts(found, out, [], fresh, store, tenant, user_id)
        vecs = np.asarray(self.embedder.embed_documents([u.text for _, u, _, _ in units]), dtype=np.float32)
        scope = Scope(tenant=tenant, user_id=user_id)
        cands: list[list[_Old]] = []
        for (i, u, vals, end), vec in zip(units, vecs):
            k = int(settings(u.lang).get("k", 8))
            ids = [mid for mid, _ in store.dense_search(scope, vec, k, None)]
            items = store.get_many(tenant, ids) if ids else {}
            olds = []
            for mid in ids:
                it = items.get(mid)
                if it is None or it.source != "user" or it.kind not in ("utterance", "fact") or \
                        it.valid_to is not None or it.speaker != found[i][0].item.speaker:
                    continue  # (only what this speaker said: two named speakers may share a user scope)
                olds += _old_clauses(it)
            cands.append(olds)
        # the pairs to compare: (unit index, kind, masked new, old clause)
        pairs: list[tuple[int, str, TypedValue | None, _Old]] = []
        for j, ((i, u, vals, end), olds) in enumerate(zip(units, cands)):
            seen: set[tuple[str, str]] = set()
            near = " ".join(p for p in re.split(r"[,，;；。.!！?？]+", u.text) if any(v.span in p for v in vals))
            for old in olds:
                if old.own and old.own != old.clause and not _shared(
                        _topic_words(near, vals), _topic_words(old.clause, old.values), near, old.clause):
                    old = _Old(old.memory, old.n, old.own, old.values, sentence=old.sentence, own=old.own)
                    # (a long topic joined to a value-only clause is compared only when the piece of the new words
                    # holding their value names it: "包月要三十了" ~ "爱奇艺黄金会员连续包月，每月二十五")
                key = (old.clause.casefold().rstrip(".。!！ "), "")
                for kind in dict.fromkeys(v.kind for v in vals):
                    if kind in ("name", "job") and not speakers(old.clause):
                        continue  # "My wife works at Apple": her employer is no value of the speaker's to change
                    news = [nv for nv in vals if nv.kind == kind and any(v.compatible(nv) for v in old.values) and
                            not any(v.same_value(nv) for v in old.values if v.kind == kind)]
                    if not news or (key[0], kind) in seen:
                        continue
                    if kind == "amount" and _occasion(old.clause) and _occasion(old.sentence or old.clause):
                        continue  # "Bought whites for 60 pounds": an occasion's amount is no value that changes
                    nv = news[0] if kind in ("name", "job") else news[-1]  # "from 5 to 3": the last amount
                    ov = next(v for v in old.values if v.compatible(nv))
                    if _bare(masked(old.clause, old.values, kind)):
                        continue  # "太贵了。" -> "<NAME>了。": no topic left to say what the value is of
                    seen.add((key[0], kind))
                    pairs.append((j, kind, nv, _Old(old.memory, old.n, old.clause, old.values, ov,
                                                       sentence=old.sentence, own=old.own)))
                if end and (key[0], "end") not in seen and not _ending(old.clause) and speakers(old.clause):
                    seen.add((key[0], "end"))
                    pairs.append((j, "end", None, _Old(old.memory, old.n, old.clause, old.values,
                                                         sentence=old.sentence, own=old.own)))
                whole = (old.sentence.casefold().rstrip(".。!！ "), "whole")  # (what ended may be the sentence's
                if end and old.sentence and whole not in seen and not _ending(old.sentence):  # whole habit: "我每天
                    seen.add(whole)  # 早上一杯美式，雷打不动，中午再来杯拿铁" ~ "咖啡彻底戒了")
                    pairs.append((j, "end", None, _Old(old.memory, old.n, old.sentence, old.values, whole=True)))
        if not pairs:
            return out, self._firsts(found, out, [], fresh, store, tenant, user_id)
        uniq: dict[str, int] = {}  # each text embedded once (a run's masked words meet many old clauses)
        ix = []
        for j, kind, nv, o in pairs:
            u, vals = units[j][1], units[j][2]
            a = uniq.setdefault(_end_piece(u.text) if kind == "end" else masked(u.text, vals, kind), len(uniq))
            ix.append((a, uniq.setdefault(o.clause if kind == "end" else masked(o.clause, o.values, kind), len(uniq)),
                       uniq.setdefault(masked(_value_piece(u.text, nv), vals, kind), len(uniq))
                       if kind == "count" and nv is not None else -1))
        mv = np.asarray(self.embedder.embed_documents(list(uniq)), dtype=np.float32)
        scored: dict[tuple[int, str], list[tuple[float, str, TypedValue | None, _Old, int]]] = {}
        bridged: set[int] = set()  # the pairs that name one topic in other words (topics.same_topic)
        for n, (j, kind, nv, o) in enumerate(pairs):
            u, vals = units[j][1], units[j][2]
            mine = [v for v in vals if v.kind == kind] if kind == "amount" else vals  # (a name beside an amount
            theirs = [v for v in o.values if v.kind == kind] if kind == "amount" else o.values  # is its topic)
            shared = _shared(_topic_words(u.text, mine), _topic_words(o.clause, theirs), u.text, o.clause)
            if not shared and nv is not None and o.value is not None and any(
                    v.kind == kind and v.same_value(o.value) for v in vals):
                shared = o.value.value  # "I left Amazon, 现在在 Cloudflare": the old value named beside the new
            if not shared and kind == "end":  # one topic in other words: "without a cigarette" ~ "I smoke"
                shared = same_topic(_end_piece(u.text), o.clause)
                bridged.add(n) if shared else None
            if not shared and kind == "end" and _topic_words(o.clause, o.values):  # an ending naming a name the
                piece = _end_piece(u.text).casefold()  # user said: "Axed Disney+" ~ "I pay for Spotify Premium,
                shared = next((v.value for v in o.values if v.kind in ("name", "job") and len(v.value) > 1 and
                               v.value.casefold() in piece), "")  # Disney+ and the NYT app" (not a clause saying
                # nothing but the name, "丰田的。" after "我在4S店卖车": the sentence is what ended, by meaning)
            if not shared and nv is not None and o.value is not None:  # one thing counted or measured: 两只狗 ~
                shared = counted_cover(nv.noun, o.value.noun) if nv.noun and o.value.noun else \
                    nv.unit if nv.unit in ("weight", "duration", "distance") and nv.unit == o.value.unit and \
                    (_says_now(u.text) or _reached(u.text, nv)) else ""  # (a weight or a duration is the one said
                # before only when said as the value now, "Now it takes an hour": two durations are not one thing)
            a, b, c = ix[n]
            sim = float(mv[a] @ mv[b])  # (an ending: the piece holding its marker; the run as said too when the
            if kind == "end" and shared and not o.whole:  # two share a word, whichever is nearer)
                sim = max(sim, float(vecs[j] @ mv[b]))
            if c >= 0 and shared:  # a count of one counted noun: the piece saying it, as near as the run ("…a beagle
                sim = max(sim, float(mv[c] @ mv[b]))  # called Penny, so two dogs now" ~ "Our only dog is Bruno")
            scored.setdefault((j, kind), []).append((sim, shared, nv, o, n))
        opened: list[OpenClaim] = []
        made: dict[tuple[str, int], OpenClaim] = {}
        changed: set[int] = set()
        for (j, kind), rows in sorted(scored.items(), key=lambda kv: kv[0][1] == "end"):  # values first
            i, u, vals, _ = units[j]
            if kind == "end" and j in changed:
                continue  # "套餐又改了，现在每个月49块": a new value, not an ending
            cal = settings(u.lang, kind)
            rows.sort(key=lambda r: -r[0])
            if kind == "end":  # an ending closes a clause it names, when one is named; else a sentence by meaning
                rows = [r for r in rows if not many_in_other_words(r, rows, bridged) and
                        not (r[4] in bridged and episodic(u.text))]  # (今天下雨，不跑了: one occasion)
                rows = [r for r in rows if r[1] and not r[3].whole] or \
                    ([] if episodic(u.text) or _cancels(u.text) else [r for r in rows if r[3].whole])
                # ("no tennis this week"; "成都的trip取消了": a cancellation ends what it names, never by meaning)
                if not rows:
                    continue
                rows = [(sim, "" if o.whole else sh, nv, o, pn) for sim, sh, nv, o, pn in rows]
            rows = [r for r in rows if not _not_about(u.text, kind, r[1], r[2], r[3], units[j][3])]  # (a name claim:
            if not rows:  # only words about its holder change it; a word an ending names is no topic of a new name)
                continue
            best, shared, nv, o, pair_n = rows[0]
            second = max((r[0] for r in rows[1:] if not _cut_from(r[3].memory, o.memory)), default=-1.0)
            typed = self._typed_slot(kind, u.lang, vecs[j], o.clause) if kind == "name" and \
                best >= min(cal.get("match_typed", 1.0), cal.get("match_shared", 1.0)) else ""
            if kind == "job":  # a job of the speaker's said to hold now, against one they said before: the value's
                typed = _job_slot(u.lang)  # type is the slot (occupation), whatever else the clauses say
            if kind == "name" and not typed:  # the rules typed the new words already (跳槽到小鹏汽车了: employer)
                typed = next((g.attribute for g in out[i] if id(g) in fresh and _overlaps(g, u.text) and
                              g.polarity > 0 and g.attribute in _name_slots(u.lang) and nv is not None and
                              TypedValue("name", g.value, g.value).same_value(nv)), "")
            if typed and _claim_of(o) is None and not _typed_value_fits(typed, u.lang, o.value, o.clause):
                typed = ""  # "I'm on the Family plan" is no home (_typed_value_fits)
            # an ending naming nothing the user said ("day 30 without a cigarette" after "I smoke"): the clause it
            # ends is resolved by meaning alone, the nearest by a clear margin and close enough
            need = (cal.get("end", 0.9) if shared else cal.get("end_meaning", 1.0)) if kind == "end" else \
                cal.get("match_shared", 0.9) if shared else cal.get("match_typed", 1.0) if typed else \
                cal.get("match", 0.95)
            if len(rows) == 1 and kind in ("amount", "count") and nv is not None and \
                    (_says_now(u.text) or _reached(u.text, nv)):  # the one value of its type the user said, and
                need = min(need, cal.get("match_sole", need))  # one said to hold now: "Landlord bumped it to 1,100"
            _LOG.debug("relative %s %r ~ %r: %.3f (runner-up %.3f, shared %r, typed %r, need %.2f)", kind, u.text,
                       o.clause, best, second, shared, typed, need)
            margin = cal.get("end_margin", 1.0) if kind == "end" and not shared else cal.get("margin", 0.0)
            if best < need or best - second < margin:
                continue
            d = found[i][0]
            entity = d.item.speaker or "user"
            claim = _claim_of(o)
            if claim is not None and kind != "end" and is_address_slot(claim.slot.split("|", 1)[1]) and \
                    (nv is None or street_address(nv.value) is None):
                continue  # "I moved to Bristol" against "My delivery address is 7 Rose Lane, York": a town is no address
            if claim is not None and claim.slot.split("|", 1)[1] in ENDING_EVENTS:
                continue  # a departure or parting said before ends nothing more ("we split up the bill")
            if claim is not None:
                attr = claim.slot.split("|", 1)[1]
                old_value = claim.value
            else:
                attr = typed or self._open_slot(kind, o, nv)
                old_value = o.value.value if o.value is not None else _habit(o.clause)
            words = ""  # an ending's open claim: the words of the statement (or list item) it ends, not the sentence
            if claim is None and kind == "end":
                words = self._ended_words(o, shared, _end_piece(u.text))
                old_value = _habit(words) if o.value is None else old_value
            if claim is None and kind == "count" and o.value is not None and any(
                    v.kind == "name" and v.value in _piece(o.own or o.clause, o.value.value) for v in o.values):
                words = o.value.value  # a count said with its names ("Our only dog is Bruno, a boxer"): the change
                # closes the count's words, not the names, which still hold
            if kind == "amount" and nv is not None and _other_attribute(u.text, attr, o.clause):
                _LOG.debug("relative: %r names another attribute than %s (%r)", u.text, attr, o.clause)
                _named_fact(out, i, fresh, entity, u, nv)  # 工资涨了，现在每个月38000 vs 宽带套餐: a new fact
                continue
            if claim is not None and nv is not None and kind == "name" and any(
                    id(g) in fresh and g.attribute != attr and nv.value.casefold() in (g.value or "").casefold()
                    and g.attribute != "name" and not g.attribute.endswith(("_name", "_names"))
                    and g.extractor != "meaning"  # (the exemplar bank's guess gives way: "she's Luna now")
                    for g in out[i]):  # the rules read that very value as another kind of slot: "I work at Google now"
                continue  # (employer) is no new value of a typed claim of another slot ("two kids, Max and Ella")
            if kind == "end":
                fact = _grounded_end(entity, attr, shared, u, found[i][0].item.text)
                if fact is not None:
                    fact = fact.model_copy(update={"ends": value_key(attr, old_value)})
            else:
                assert nv is not None
                fact = _fact(entity, attr, nv.value, 1, u)
            if fact is None or any(g.attribute == fact.attribute and id(g) not in fresh for g in out[i]):
                continue
            # a first fact of a slot read from these words ("Landlord bumped the rent to $2,050": rent, when the
            # user's rent was said as "Rent on my one-bed is $1,850") gives way to the change of the older claim;
            # one of the very slot the change is in (跳槽到小鹏汽车了: employer) stays, its value read by the rules
            mine = [g for g in out[i] if id(g) in fresh and _overlaps(g, u.text)]
            same = [g for g in mine if g.attribute == fact.attribute and g.polarity > 0 and kind != "end"]
            out[i] = [g for g in out[i] if g not in mine or g in same] + ([] if same else [fact])
            changed.add(j)
            _LOG.debug("relative CHANGE %s %s: %r -> %r", kind, attr, o.clause, u.text)
            if claim is None:
                ok = made.get((o.memory.id, o.n))
                if ok is None:
                    ok = made[(o.memory.id, o.n)] = _open(o, entity, attr, old_value, old_value, words=words)
                    opened.append(ok)
        return out, self._firsts(found, out, opened, fresh, store, tenant, user_id)

    def _firsts(self, found: list[tuple[Any, list[Fact]]], out: list[list[Fact]], opened: list[OpenClaim],
                fresh: set[int], store: Any, tenant: str, user_id: str) -> list[OpenClaim]:
        """``opened`` and the open claims the first facts of typed slots replace (:mod:`.replaces`), for the slots
        no change above is in already."""
        from .replaces import typed_firsts

        taken = {oc.item.fact.attribute for oc in opened if oc.item.fact is not None}
        rest = {x for x in fresh if not any(id(g) == x and g.attribute in taken for fs in out for g in fs)}
        return opened + typed_firsts(self.embedder, found, out, rest, store=store, tenant=tenant, user_id=user_id,
                                     margin=settings("en").get("replace_margin", 0.0))

    def _typed_slot(self, kind: str, lang: str, new: np.ndarray, old_text: str) -> str:
        """A well-known slot for a name both clauses are about (the exemplar bank's ``place`` / ``org`` classes:
        ``home_city``, ``employer``), when the class scoring best (:func:`~anchormem.facts.meaning.classify`), and
        above the bank's ``none``, is the same for the two clauses as said (``new``: the run's vector; ``old_text``
        embedded here, only for a best match that may need it); "" when
        they differ or the value is no name (an amount stays in an open slot: "健身卡" is no rent)."""
        if kind != "name":
            return ""
        from .meaning import _bank, _bank_data, classify

        spec = _bank_data(lang).get("slots", {})
        allowed = {s for s, sp in spec.items() if sp.get("type") in ("place", "org")}
        if not allowed:
            return ""
        bank = _bank(self.embedder, lang)
        old = np.asarray(self.embedder.embed_documents([old_text])[0], dtype=np.float32)
        tops = []
        for vec in (new, old):
            scores = classify(vec, bank, allowed, lang)[1]
            best = max(allowed, key=lambda c: scores.get(c, -1.0))
            tops.append(best if scores.get(best, -1.0) > scores.get("none", -1.0) else "")
        return tops[0] if tops[0] and tops[0] == tops[1] else ""

    def _ended_words(self, o: _Old, word: str, ending: str) -> str:
        """What an ending ends of ``o``'s sentence (:func:`~anchormem.facts.cuts.ended_words`)."""
        from .cuts import ended_words

        return ended_words(o.sentence or o.clause, o.clause, o.memory, word=word, whole=o.whole, ending=ending,
                           embedder=self.embedder)

    @staticmethod
    def _open_slot(kind: str, o: _Old, nv: TypedValue | None = None) -> str:
        if kind == "count" and o.value is not None and o.value.noun:  # (the broader of two kinds counted: a count of
            noun = counted_cover(nv.noun, o.value.noun) if nv is not None and nv.noun else ""  # children after one
            return f"count:{noun or o.value.noun}"  # of daughters is the children's slot, count:child)
        return f"{'habit' if kind == 'end' else kind}:{o.memory.id[:12]}.{o.n}"


def _grounded_end(entity: str, attr: str, word: str, u: Any, source: str) -> Fact | None:
    """The -1 fact of an ending in the turn's words: the shared word when its clause is negated ("羽毛球就没再打过"),
    else the first piece of the unit that is ("钢琴课停了，太贵了，最近也没练" -> "最近也没练"), as the grounding check
    (:func:`~anchormem.facts.grounding.check_support`) reads negation; None when none is."""
    from .grounding import check_support

    from .aspect import without_markers

    pieces = [p.strip(" ,，、;；.。!！") for p in re.split(r"[,，、;；]", u.text)]
    ended = [] if word else [_habit(without_markers(_end_piece(u.text))).strip(" ,，、;；.。!！")]  # what ended, by
    for value in [word] + ended + [p for p in pieces if p and p != word]:  # meaning ("烟终于戒了" -> "烟终于")
        f = _fact(entity, attr, value, -1, u)
        if f is not None and check_support(f, source).ok:
            return f
    return None


def _cut_from(a: MemoryItem, b: MemoryItem) -> bool:
    """One memory is a fact memory cut from the other (the utterance carries its claim): one thing said, so never
    the runner-up of the other ("每天早上六点起来跑步，绕小区五公里" and its fact "绕小区五公里")."""
    return a.id != b.id and (any(c.fact_id == a.id for c in b.claims) or any(c.fact_id == b.id for c in a.claims))


def _overlaps(f: Fact, text: str) -> bool:
    c = (f.clause or f.source_span or "").strip().rstrip(".。!！")
    return bool(c) and (c in text or text.rstrip(".。!！") in c)


def _habit(clause: str) -> str:
    t = re.sub(r"^\s*(?:I['’]m|I['’]ve|I|we['’]re|we|我们|我)(?!\w)\s*", "", clause.strip(), flags=re.I)
    return t.rstrip(" .!。！") or clause.strip()


def _fact(entity: str, attr: str, value: str, pol: int, u: Any) -> Fact | None:
    return unit_fact(entity, attr, value, pol, u, extractor="relative")


def _piece(clause: str, word: str, first_only: bool = False) -> str:
    """The comma-delimited piece of ``clause`` holding ``word`` ("I'm in Austin, been here five years with our dog
    Pickles" -> "I'm in Austin"), so that closing its claim leaves the rest of the memory current; the clause when
    the word is in none (or in all of it)."""
    parts = [p for p in re.split(r"(?<=[,，、;；:：])\s*|\s+(?=and\s)", clause) if p.strip()]
    hits = [p for p in parts if word and word.casefold() in p.casefold()]
    if len(parts) < 2 or len(hits) != 1 or (first_only and hits[0] is not parts[0]) or (hits[0] is not parts[0] and
                                             not _topic_words(hits[0].replace(word, " "), [])):
        return clause  # "健身卡嘛，一年2999": the piece says nothing but its value, the topic is before it
    return hits[0].rstrip(" ,，、;；:：")


def _open(o: _Old, entity: str, attr: str, value: str, word: str = "", first_only: bool = False, *,
          words: str = "") -> OpenClaim:
    """The open claim of an old clause: a fact memory of its words (``words`` when given: what an ending ends,
    :meth:`RelativeChanges._ended_words`; else the piece holding ``word``, :func:`_piece`), said when its memory
    was."""
    it = o.memory
    text = words or _piece(o.own or o.clause, word, first_only)
    slot = FactSlot(entity=entity, attribute=attr, value=value, polarity=1, extractor="relative")
    item = it.model_copy(update={
        "id": uuid.uuid4().hex, "text": text, "kind": "fact", "fact": slot, "claims": [], "labels": [],
        "entities": [e for e in it.entities if e.value in text], "valid_to": None, "superseded_by": None,
        "metadata": {**it.metadata}})
    return OpenClaim(item, it.id)
