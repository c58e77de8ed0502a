"""Grounded answers without an LLM: quote the memories that pass the evidence test, or abstain."""

from __future__ import annotations

from typing import Any

from ..facts.claims import corrected_note, elided, said_on, schedule_note, with_subject
from ..facts.keys import same_value
from ..tracing import staged
from ..text.tokenize import has_cjk
from ..types import Answer, Citation, Hit, MemoryItem, as_citation
from ..timeutil import day_of, month_of
from .evidence import AnswerConfig, EvidenceScorer, Scored, analyze_question, select

__all__ = ["NO_RECORD", "NO_RECORD_ZH", "extractive_answer", "abstain", "quote", "quoted", "citation_note", "annotate",
           "cited_once", "asks_question", "reading_alone",
           "noted_for_asked"]

NO_RECORD = "I have no record of that."
NO_RECORD_ZH = "我没有这方面的记录。"


def no_record(question: str) -> str:
    return NO_RECORD_ZH if has_cjk(question) else NO_RECORD


def realised_note(m: MemoryItem, *, zh: bool = False) -> str | None:
    """For a current memory of a turn that said a plan came true without its value ("Done moving!": metadata
    ``realises``, :func:`~anchormem.facts.reconcile.plan_facts`), the plan it realised, worded per language
    (``plan_realised`` of data/lang/<lang>/answers.json: 'the plan of 2024-03-11 came true: "I'm moving to Vancouver
    next month."'); None otherwise."""
    plan = m.metadata.get("realises") if m.valid_to is None else None
    if not isinstance(plan, dict) or not plan.get("text"):
        return None
    from .. import langdata

    tpl = langdata.load("answers", "zh" if zh else "en").get("plan_realised") or "{plan}"
    return tpl.format(date=plan.get("said", ""), plan=plan["text"])


def called_off_note(m: MemoryItem, *, zh: bool = False) -> str | None:
    """For a memory of a turn that called a plan off ("the Paris move is off": metadata ``calls_off``,
    :mod:`anchormem.facts.called_off`), the plan it ended, worded per language (``plan_called_off`` of
    data/lang/<lang>/answers.json: 'calls off the plan of 2024-03-11: "I'm moving to Paris next month."'); None
    otherwise."""
    plan = m.metadata.get("calls_off")
    if not isinstance(plan, dict) or not plan.get("text"):
        return None
    from .. import langdata

    tpl = langdata.load("answers", "zh" if zh else "en").get("plan_called_off") or "{plan}"
    return tpl.format(date=plan.get("said", ""), plan=plan["text"])


def plan_note(m: MemoryItem, *, zh: bool = False) -> str | None:
    """The plan a memory's turn realised (:func:`realised_note`) or called off (:func:`called_off_note`), or None."""
    return realised_note(m, zh=zh) or called_off_note(m, zh=zh)


def quote(m: MemoryItem, *, zh: bool = False, note: str | None = None) -> str:
    """``On 2024-03-04, Maya said: "…"`` (the verbatim memory text); for a Chinese question
    ``2024-03-04，你说过：“…”``. A memory whose text was edited by ``update`` since (``updated_at`` set while still
    current) was not said in those words on that day: ``Recorded on 2024-03-04 and edited on 2024-05-01: "…"``
    (``2024-03-04记录，2024-05-01修改为：“…”``). A memory that no longer holds (``valid_to`` set: superseded, read
    by a past question or ``as_of``) says so: ``On 2024-01-10, you said (true until 2024-03): "…"``. ``note``: said in
    the same place when the memory holds no end ("an earlier statement, before 2024-05-30": :mod:`.recency`)."""
    plan = plan_note(m, zh=zh)  # "Done moving!" / "the move is off" says which plan came true or ended
    if plan:
        return _quote(m, zh=zh, note=note) + (f"（{plan}）" if zh else f" ({plan})")
    return _quote(m, zh=zh, note=note)


def _edited_on(m: MemoryItem) -> str | None:
    """The day ``m``'s words were edited by ``update`` when that is not the day they were said and it still holds
    (``updated_at`` set; an archived memory's ``updated_at`` is its tier move, not an edit of its words), else None."""
    if m.updated_at is not None and m.valid_to is None and day_of(m.updated_at) != day_of(said_on(m)) and \
            m.archived_at is None:
        return day_of(m.updated_at)
    return None


def _lead_note(m: MemoryItem, *, zh: bool, note: str | None) -> str | None:
    """The qualifier in the lead-in of ``m``'s quote (the memory is not edited): a change scheduled ahead ("planned:
    from 2024-04-01") with ``note`` after it, else "true until 2024-03" for one that no longer holds, else ``note``."""
    planned = schedule_note(m, zh=zh)  # a change scheduled ahead: "planned: from 2024-04-01" / what holds till then
    note = f"{planned}; {note}" if planned and note else planned or note
    fixed = corrected_note(m, zh=zh) if not planned else None  # a value the user took back: it never held
    if fixed is not None:
        return f"{fixed}; {note}" if note else fixed
    until = month_of(m.valid_to) if m.valid_to is not None and not planned else None  # no longer holds
    if until is not None:
        return f"{until}以前如此" if zh else f"true until {until}"
    return note


def _quote(m: MemoryItem, *, zh: bool, note: str | None) -> str:
    edited = _edited_on(m)
    if edited is not None:
        said = day_of(said_on(m))
        return f"{said}记录，{edited}修改为：“{m.text}”" if zh else \
            f'Recorded on {said} and edited on {edited}: "{m.text}"'
    note = _lead_note(m, zh=zh, note=note)
    who = m.speaker or (("助手" if zh else "the assistant") if m.source == "assistant" else ("你" if zh else "you"))
    day = day_of(said_on(m))
    if zh:
        return f"{day}，{who}说过（{note}）：“{m.text}”" if note else f"{day}，{who}说过：“{m.text}”"
    return f'On {day}, {who} said ({note}): "{m.text}"' if note else f'On {day}, {who} said: "{m.text}"'


def citation_note(m: MemoryItem, *, zh: bool = False, note: str | None = None) -> str | None:
    """What :func:`quote` (same arguments) shows of ``m`` besides its words, time and speaker, as
    :attr:`~anchormem.types.Citation.note`: the qualifier of its lead-in ("true until 2024-03", "planned: from …",
    ``note``; "edited on 2024-05-01" for an edited memory) and the plan it realised or called off after it, joined
    with "; "; None when it says nothing more (the memory holds now)."""
    edited = _edited_on(m)
    lead = (f"{edited}修改" if zh else f"edited on {edited}") if edited is not None else \
        _lead_note(m, zh=zh, note=note)
    return "; ".join(p for p in (lead, plan_note(m, zh=zh)) if p) or None


def quoted(cites: list[MemoryItem], *, zh: bool = False,
           notes: dict[str, str | None] | None = None) -> tuple[str, list[Citation]]:
    """The answer text quoting ``cites`` in order (:func:`quote`, ``notes``: memory id -> the extra note of its
    lead-in) and the citations, each carrying the note its quote shows (:func:`citation_note`)."""
    notes = notes or {}
    text = ("" if zh else " ").join(quote(m, zh=zh, note=notes.get(m.id)) for m in cites)
    return text, [as_citation(m, citation_note(m, zh=zh, note=notes.get(m.id))) for m in cites]


def annotate(hits: list[Hit], scored: list[Scored], chosen: list[Scored]) -> list[Hit]:
    """Copies of the hits whose ``explain["evidence"]`` holds the evidence features (and ``cited``)."""
    cited = {s.index for s in chosen}
    out = []
    for h, s in zip(hits, scored):
        ex = dict(h.explain)
        ex["evidence"] = {**s.as_dict(), "cited": s.index in cited}
        out.append(h.model_copy(update={"explain": ex}))
    return out


def _distinct(chosen: list[Scored], hits: list[Hit]) -> list[Scored]:
    """``chosen`` without a second memory of the same words said at the same time by the same speaker (the facts
    of one clause, "I work at a hospital as a nurse.": employer and occupation), nor a second fact holding the same
    value of the same slot in another form (:func:`_one_value`): each is quoted once."""
    seen: set[tuple] = set()
    out: list[Scored] = []
    for s in chosen:
        m = hits[s.index].memory
        key = (m.text, m.speaker, m.created_at)
        if key not in seen and not any(_one_value(m, hits[o.index].memory) for o in out):
            seen.add(key)
            out.append(s)
    return out


def _one_value(a: MemoryItem, b: MemoryItem) -> bool:
    """``a`` and ``b`` are facts holding one value of one slot, in two forms ("4500" / "forty-five hundred" / 四千五,
    "Tokyo" / 东京: :func:`~anchormem.facts.keys.same_value`): one quote is enough."""
    fa, fb = a.fact, b.fact
    return fa is not None and fb is not None and fa.slot == fb.slot and fa.polarity == fb.polarity and \
        same_value(fa.attribute, fa.value, fb.value)


def abstain(question: str, evidence: list[Hit]) -> Answer:
    return Answer(text=no_record(question), citations=[], abstained=True, evidence=evidence)


@staged("evidence")
def extractive_answer(question: str, hits: list[Hit], cfg: AnswerConfig | None = None, *,
                      scorer: EvidenceScorer | None = None, embedder: Any = None,
                      prompts: list[str | None] | None = None, past: bool = False) -> Answer:
    """Answer by quoting the 1-3 supporting hits verbatim (speaker, date; the same words said at once are quoted
    once), or abstain. Never writes words that are not quoted. ``scorer`` (or ``embedder`` to build one) enables
    the per-embedder calibration. ``prompts`` (optional, one per hit, None where unknown): the other speaker's turn
    each hit replies to; its questions count as the hit's words ("They were scared" answers "How did they handle
    the accident?"). ``past``: the question asked about the past (its past words taken out of ``question``): a
    value denied or ended answers it (:attr:`~.evidence.QuestionInfo.past`). A hit search marked ``scheduled`` (not
    in effect yet at the time read: :func:`anchormem.retrieval.currency.not_yet_last`) is quoted after the others."""
    scorer = scorer or EvidenceScorer(embedder, cfg)
    cfg = cfg or scorer.config
    q = analyze_question(question)
    q.past = past
    scored = scorer.score(q, hits, prompts)
    chosen = _distinct(select(scored, cfg, terms=q.terms), hits)
    # a value scheduled for a time after the one read (search's explain["scheduled"]: retrieval.currency) is quoted
    # after what holds then, never first
    chosen = sorted(chosen, key=lambda s: "scheduled" in hits[s.index].explain)
    evidence = annotate(hits, scored, chosen)
    if not chosen:
        return abstain(question, evidence)
    zh = has_cjk(question)
    text, cites = quoted([hits[s.index].memory for s in chosen], zh=zh)
    return Answer(text=text, citations=cites, abstained=False, evidence=evidence)


def asks_question(memory: MemoryItem) -> bool:
    """``memory`` is a question its speaker asked and nothing else (kind ``"question"``, every sentence a question
    or social filler: :func:`anchormem.ingest.classify.asks_only`): "Should I move to Berlin?", "How does the
    customer prefer to be contacted?", 我应该搬到上海吗？; not "I got an offer in Munich. Should I take it?". It records
    that the question was asked, never its answer."""
    from ..ingest.classify import asks_only

    return memory.kind == "question" and asks_only(memory.text)


def _said_key(m: MemoryItem) -> tuple:
    """What makes two memories one citation: the same words (case and spacing aside), speaker and time said."""
    return " ".join(m.text.split()).casefold(), (m.speaker or "").casefold(), m.created_at


def _without_quote(text: str, q: str, zh: bool, *, repeated: bool) -> str:
    """``text`` without its last quote ``q`` (and the space before it); with ``repeated``, only when ``q`` is in it
    twice (the first stays)."""
    if q not in text or (repeated and text.count(q) < 2):
        return text
    at = text.rindex(q)
    return (text[:at] if zh else text[:at].rstrip()) + text[at + len(q):].lstrip(" " if not text[:at] else "")


def cited_once(ans: Answer, question: str) -> Answer:
    """``ans`` as every ``ask`` path returns it: never citing a question the user asked (:func:`asks_question`:
    it may have been read beside its reply, it is no evidence; its quote goes too, and with no citation left the
    answer abstains), and citing each text once (a fact memory and the utterance it was drawn from in the same
    words, or two facts of one clause: one citation in the place of the first, the utterance kept, with its
    provenance; a quote of the same words repeated is left out the second time). ``ans`` itself when neither
    happens."""
    if not ans.citations:
        return ans
    zh = has_cjk(question)
    text = ans.text
    from .question import asks_about_asking

    about_asking = asks_about_asking(question)  # "What did I ask about returns?": the user's question is the answer
    stating = [m for m in ans.citations if about_asking or not asks_question(m)]
    for m in ans.citations:
        if not about_asking and asks_question(m):
            text = _without_quote(text, quote(m, zh=zh), zh, repeated=False)
    if not stating:
        return abstain(question, ans.evidence)
    groups: dict[tuple, list[MemoryItem]] = {}
    for m in stating:
        groups.setdefault(_said_key(m), []).append(m)
    if len(stating) == len(ans.citations) and all(len(g) == 1 for g in groups.values()):
        return ans
    cites, done = [], set()
    for m in stating:
        key = _said_key(m)
        if key in done:
            text = _without_quote(text, quote(m, zh=zh), zh, repeated=True)
            continue
        done.add(key)
        kept = next((x for x in groups[key] if x.kind == "utterance"), m)  # in the place (and with the note) of m
        cites.append(as_citation(kept, getattr(m, "note", None)) if kept is not m else m)
    return ans.model_copy(update={"text": text, "citations": cites})


def _alone(m: MemoryItem) -> MemoryItem:
    """``m`` with words that read alone: a fact memory whose text is a piece of its turn (``source_text``) that lost
    the turn's subject ("work at Google." of "I live in Leeds and work at Google.") quoted with it, the words between
    elided ("I … work at Google.": :func:`~anchormem.facts.claims.with_subject`); ``m`` itself otherwise."""
    src = m.source_text or ""
    if m.kind != "fact" or not src or m.text.strip() not in src or m.text.strip() == src.strip():
        return m
    text = with_subject(src, m.text.strip())
    if text == m.text.strip():
        return m
    return m.model_copy(update={"text": elided(src, text)})


def reading_alone(ans: Answer) -> Answer:
    """``ans`` with each cited fact memory's words made to read alone (:func:`_alone`), its quotes in ``ans.text``
    changed with it; ``ans`` itself when none needs it. The citation keeps its id, note and provenance."""
    cites, text = [], ans.text
    for c in ans.citations:
        v = _alone(c)
        if v is not c:
            for a, b in (('"', '"'), ("“", "”")):
                text = text.replace(f"{a}{c.text}{b}", f"{a}{v.text}{b}")
        cites.append(v)
    if all(v is c for v, c in zip(cites, ans.citations)):
        return ans
    return ans.model_copy(update={"text": text, "citations": cites})


def _asked_end(m: MemoryItem, asked: list[str]):
    """The end of the claims of ``m`` whose slot attribute is one of ``asked`` (the slots the question names), when
    ``m`` no longer holds and they ended before it did (a turn saying two facts closes with the later one); else
    None."""
    if m.valid_to is None or not asked:
        return None
    ends = [c.valid_to for c in m.claims if c.valid_to is not None and c.slot.partition("|")[2] in asked]
    end = max(ends) if ends else None
    return end if end is not None and end < m.valid_to else None


def noted_for_asked(ans: Answer, question: str) -> Answer:
    """``ans`` with each quote of a memory that no longer holds noted with the end of the fact the question asks
    about: a turn holding two facts ("I live in Leeds and work at Google.") is closed when the later one ended, but
    "Where did I live before?" is answered "true until" the home's end (the slots it names:
    :func:`~anchormem.answering.slot_questions.asked_slots`). A quote whose memory holds no claim of an asked slot,
    or a question naming none, keeps the quote's own validity. ``ans`` itself when no note changes."""
    from .slot_questions import asked_slots

    if ans.abstained or not ans.citations or not any(c.valid_to is not None for c in ans.citations):
        return ans
    asked = asked_slots(question)
    zh = has_cjk(question)
    text, cites, at = ans.text, [], 0
    for c in ans.citations:
        end = _asked_end(c, asked)
        mark = (f"“{c.text}”" if zh else f'"{c.text}"')
        i = text.find(mark, at)
        if end is None or i < 0:
            cites.append(c)
            at = i + len(mark) if i >= 0 else at
            continue
        old = f"{month_of(c.valid_to)}以前如此" if zh else f"true until {month_of(c.valid_to)}"
        new = f"{month_of(end)}以前如此" if zh else f"true until {month_of(end)}"
        j = text.rfind(old, at, i)
        if j >= 0:
            text = text[:j] + new + text[j + len(old):]
            i += len(new) - len(old)
        note = c.note.replace(old, new) if c.note else c.note
        cites.append(c.model_copy(update={"valid_to": end, "note": note}))
        at = i + len(mark)
    if all(a is b for a, b in zip(cites, ans.citations)):
        return ans
    return ans.model_copy(update={"text": text, "citations": cites})


def with_citations(ans: Answer, question: str, kept: list[MemoryItem]) -> Answer:
    """``ans`` citing ``kept`` only (a subset of its citations, in order), its text re-quoted in the question's
    language; the abstention (:func:`abstain`) when none is kept; ``ans`` itself when all are."""
    if len(kept) == len(ans.citations):
        return ans
    if not kept:
        return abstain(question, list(ans.evidence))
    text, cites = quoted(kept, zh=has_cjk(question))
    return ans.model_copy(update={"citations": cites, "text": text})
