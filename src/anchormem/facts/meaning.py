"""Change detection by meaning: the fallback for a first-person clause the rules and frames read nothing from.

The rules (:mod:`.rules`) and clause frames (:mod:`.frames`) read facts from the wordings their data lists; a change
said another way ("We just got the keys to a flat in Leeds", "They pay me 4100 now", 酒我已经不喝了 without a frame
for it) gives them nothing. This module reads such a clause by meaning instead:

1. **Gates first**, as the rules apply them: questions, hypotheticals, plans and modals, reported speech and someone
   else as the subject state nothing (``cues.json``; a person of the speaker's, "my daughter", only for an age).
2. **Value by type**, anywhere in the clause: a name (capitalised span in English, ``ns`` / ``nt`` / ``nz`` / ``nr``
   / a Latin word in Chinese: a place or an organisation), a number (rent, salary, weight), a job noun
   (:func:`~anchormem.facts.keys.occupation_en`), an age ("9th birthday", 四岁). A clause without a typed value and
   without an ending the user can have said is not embedded at all.
3. **Slot by similarity**: the clauses of one ``add`` are embedded together (one batched ``embed_documents`` call)
   and compared with the exemplar bank of their language (``data/lang/<lang>/slot_exemplars.json``: 10-25 short
   sentences per slot and a ``none`` class of near-misses: trips, friends' moves, opinions, plans). A class scores
   the mean cosine of its ``k``-nearest exemplars (``k`` of the data, capped at the class size // 2); only the
   classes whose value type the clause holds compete with ``none``; the best must lead the runner-up by ``margin``
   and ``none`` by ``none_margin``. The bank is embedded once per embedder (``name``, ``dim``) on first use.
4. **What it may change** (:meth:`MeaningFallback.facts`): a typed fact replaces a current claim of its slot
   whose value differs and is of the same type; it adds a first fact of the slot only with a clear lead
   (``add_margin``); an ending (type ``end``) closes the user's current ``does:`` claim that the clause names (a word
   of the claim's object in the clause, or the claim's own words nearest the clause by cosine): a -1 fact of that
   slot in the turn's words, :attr:`~anchormem.facts.model.Fact.ends` naming the claim; a diet ending ("I started
   eating fish again") is the new diet in the turn's words, replacing a current diet that excludes meat. Every fact
   read here passes the same grounding check as the rules' (:func:`~anchormem.facts.grounding.check_support`).

With an LLM configured none of this runs (:func:`~anchormem.facts.llm_extract.pick_extractor`: the LLM proposes, the
grounding check verifies). Without a semantic embedder (``hash``) it is off.

    fb = MeaningFallback(embedder)
    fb.facts([("I've been in Sydney since the move in April.", [], "user")], current=lookup, listing=everything)
    # -> [[Fact(home_city = "Sydney", +1)]]  when the user's current home_city is "Melbourne"
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .. import langdata
from ..text.segment import split_sentences
from ..text.tokenize import has_cjk, pos_tags
from .bank_vectors import load as load_bank_vectors
from .keys import occupation_en, is_occupation, value_key
from .model import Fact, detect_language
from .subjects import not_names

__all__ = ["MeaningFallback", "clause_units", "typed_values", "classify"]

_BANKS: dict[tuple[str, int, str], tuple[np.ndarray, list[str]]] = {}
_LOCK = threading.Lock()
_CAPS = re.compile(r"(?<![\w'’])(?-i:[A-Z])[\w&'’.-]*(?:\s+(?:(?-i:[A-Z])[\w&'’.-]*|of|de|la|am|&)(?!\w))*")
_FIRST_EN = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|I'd|I'll|we|we're|we’re|we've|we’ve|my|our|myself|me|us)\b", re.I)
_FIRST_ZH = re.compile(r"我|咱")
_NAME_TAGS = frozenset({"ns", "nt", "nz", "nr", "nrt", "nrfg", "eng"})


def _bank_data(lang: str) -> dict[str, Any]:
    return langdata.load("slot_exemplars", lang)


@lru_cache(maxsize=2)
def _end_cues(lang: str) -> re.Pattern:
    """Words that can say an ending: ``ending`` cues (cues.json), ``end_cues`` of the bank, the diet words."""
    words = list(langdata.words("cues", "ending", (lang,))) + list(_bank_data(lang).get("end_cues", [])) + \
        [w for ws in langdata.load("slots", lang).get("diet", {}).values() for w in ws]
    alt = langdata.alternation(tuple(words))
    return re.compile(alt if lang == "zh" else r"\b(?:" + alt + r")\b", re.I)


# -- 1. units: the ungated, unread clauses of a turn ---------------------------------------------------------------
@dataclass
class Unit:
    """A run of clauses of one sentence that passed the gates and from which no fact was read: ``text`` (the clauses
    joined), ``sentence``, ``lang`` ("en" / "zh" for the bank), ``person`` (a relation of the speaker's named as the
    subject or possessor, "daughter", or ""), ``other`` (the subject is that person: only an age is read), ``impersonal`` (no speaker
    said, the subject acts for them, "The gym put the price up": only an amount is read),
    ``values`` (type -> candidate values in order)."""

    text: str
    sentence: str
    lang: str
    person: str
    values: dict[str, list[str]]
    other: bool = False
    impersonal: bool = False


def _taken_up_again(f: Fact) -> bool:
    """``f`` is the habit of a clause saying something is taken up again that no rule read further ("I started
    eating fish and chicken again": ``does:`` of :func:`~anchormem.facts.rules._resumed`): its clause is still read
    by meaning, which may read what it ends (a vegetarian diet)."""
    from . import rulebook

    clause = f.clause or f.source_span or ""
    return f.attribute.startswith("does:") and bool(rulebook.pattern("resumed", ("zh" if has_cjk(clause) else "en",))
                                                     .search(clause))


def clause_units(text: str, found: list[Fact]) -> list[Unit]:
    """The units of ``text`` that may state a fact by meaning: the clauses no fact of ``found`` was read from, after
    the gates (a question, a hypothetical / modal / reported clause, someone else as the subject -- except a person
    of the speaker's, kept as ``person`` for an age), holding the speaker ("I", "my", 我) or their person."""
    from .changes import blocked
    from .rules import _clause_split, _cue_patterns, _is_question, _speaker_subject
    from .stance import scene

    out: list[Unit] = []
    for sentence in split_sentences(text):
        if _is_question(sentence):
            continue
        read = [(f.clause or f.source_span or "").strip() for f in found if f.source_span == sentence and
                not _taken_up_again(f)]
        if any(r == sentence.strip() for r in read):
            continue
        run: list[str] = []
        for clause in [c for c in _clause_split().split(sentence) if c and c.strip()] + [""]:
            c = clause.strip()
            gated = not c or _cue_patterns()[1].search(c) or blocked(c) or bool(scene(c, others=False)) or \
                any(r and (r in c or c in r) for r in read)  # (scene: the past, a trip, what is only seen)
            if not gated:
                run.append(c)
                continue
            if run:
                out.extend(_unit(" ".join(run) if not has_cjk("".join(run)) else "，".join(run), sentence))
            run = []
            if c and _speaker_subject(c) == "other" and not _person_of_speaker(c) and \
                    not _acts_for_speaker(c, "zh" if has_cjk(c) else "en"):
                break  # "My sister moved to Nice, she loves it": nothing after is the speaker's
    return out


def _person_of_speaker(clause: str) -> str:
    """The relation the clause's subject names when it is the speaker's ("my daughter" -> "daughter", 我女儿 -> 女儿)."""
    from .frames import _compiled
    from .keys import person_key

    lang = "zh" if has_cjk(clause) else "en"
    m = _compiled(lang)["person"].search(clause)
    if not m or (lang == "zh" and not m.group(0).startswith("我")):
        return ""
    if _acts_for_speaker(clause, lang):
        return ""
    after = clause[m.end():]
    if _compiled(lang)["person"].match(re.sub(r"^(?:['’]s\s+|的)", "my " if lang == "en" else "我", after, count=1)) \
            and re.match(r"['’]s\s|的", after):
        return ""  # "my daughter's friend", 我女儿的同学: someone else's
    return person_key(m.group("p"))


def _subjectless_zh(text: str, lang: str) -> bool:
    """A Chinese clause that names no subject (its first word, after time words and adverbs, a verb: "调薪了，现在税前
    一万五", "换了个套餐"): in a user's turn the speaker's."""
    if lang != "zh":
        return False
    for t in pos_tags(text):
        if not t.word.strip() or t.flag in ("t", "d", "c", "x", "p") or t.flag.startswith(("t", "d")):
            continue
        return t.flag.startswith("v")
    return False


def _acts_for_speaker(text: str, lang: str) -> bool:
    """The subject is someone who changes the speaker's own facts ("Our landlord raised the rent", 老板给我涨了工资:
    ``acting_subjects`` of the bank), so the clause is the speaker's."""
    words = _bank_data(lang).get("acting_subjects", [])
    if not words:
        return False
    alt = langdata.alternation(tuple(words))
    rx = rf"^\s*(?:(?:my|our|the)\s+)?(?:{alt})\b" if lang == "en" else rf"^\s*(?:我的?|我们的?)?(?:{alt})"
    return bool(re.search(rx, text, re.I))


def _unit(text: str, sentence: str) -> list[Unit]:
    from .rules import _speaker_subject

    lang = "zh" if has_cjk(text) and len(re.findall(r"[\u4e00-\u9fff]", text)) >= 2 else "en"
    first = _FIRST_ZH if lang == "zh" else _FIRST_EN
    acting = _acts_for_speaker(text, lang)
    other = _speaker_subject(text) == "other" and not acting
    person = _person_of_speaker(text)  # "my daughter's 9th birthday": whose age
    if other and not person:
        return []
    impersonal = not person and not first.search(text) and not _subjectless_zh(text, lang)
    # ("The gym put the price up to 30": only an amount; a Chinese clause without a subject is the speaker's)
    if impersonal and (_speaker_subject(text) == "other" and not acting or not _acts_for_speaker(text, lang)):
        return []
    values = typed_values(text, lang)
    from .subjects import clause_subject

    if clause_subject(text):  # "我闺蜜搬到杭州了", "the office moved to Kings Cross": that noun's place, org or job
        values = {k: v for k, v in values.items() if k not in ("name", "job")}
    if other and "age" not in values:
        return []  # "My sister moved to Boston": only her age would be the speaker's to know
    return [Unit(text, sentence, lang, person, values, other, impersonal)]


# -- 2. values by type ---------------------------------------------------------------------------------------------
def typed_values(text: str, lang: str) -> dict[str, list[str]]:
    """Candidate values of ``text`` by type, in order: ``name`` (a place or an organisation), ``number``, ``job``,
    ``age``, ``count`` (a number and a counted noun, "three cats"). ``typed_values("I'm starting at Puma after leaving Adidas", "en")["name"] == ["Puma", "Adidas"]``.
    A new dict each call; the reading is cached by (text, lang): the fact rules and the relative change reader
    read the same clauses."""
    return {k: list(v) for k, v in _typed_values(text, lang)}


def _code(words: list[str]) -> bool:
    """One word with more digits than letters ("#B778", "A1234"): an order number or a code, no place or
    organisation ("Model 3", "A4", "M3" stay)."""
    if len(words) != 1:
        return False
    digits = sum(ch.isdigit() for ch in words[0])
    return digits > sum(ch.isalpha() for ch in words[0])


@lru_cache(maxsize=8192)
def _typed_values(text: str, lang: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    out: dict[str, list[str]] = {"name": [], "number": [], "job": [], "age": []}
    skip = not_names(lang) | not_names("en")
    for m in _CAPS.finditer(text):
        if not text[:m.start()].strip(" \"'“‘(*-"):
            continue  # the clause's first word is capitalised whatever it is ("Seven years now", "Gotta focus")
        if re.search(r"\w['’](?:s|ve|re|ll|d|m|t)\b", m.group(0)):
            continue  # "It's", "They've", "Art's": a contraction or a possessive, no place or organisation
        words = m.group(0).rstrip(".'’").split()
        while words and words[0].casefold().strip(".,") in skip:
            words = words[1:]
        if words and not any(w.casefold() in skip for w in words[-1:]) and not _code(words):
            out["name"].append(" ".join(words))
    if has_cjk(text):
        for w in pos_tags(text):
            word = w.word.strip()
            if w.flag in _NAME_TAGS and (len(word) >= 2) and word not in out["name"] and \
                    (w.flag != "eng" or word[:1].isupper() or word.isupper()) and word.casefold() not in skip and \
                    not (w.flag == "eng" and not text[:text.find(word)].strip(" \"'“‘(*-")) and not _code([word]):
                out["name"].append(word)  # (an English word opening the clause is capitalised whatever it is:
                # "Please change my address to 上海市…", "Update: I quit 字节")
        from .keys import occupation_zh
        out["job"] = [m.group(0) for m in re.finditer(occupation_zh(), text)]
    else:
        for m in re.finditer(r"\b((?:[\w-]+\s+){0,2}?" + occupation_en() + r")", text, re.I):
            words = m.group(1).split()
            while words and (not is_occupation(" ".join(words)) or words[0].casefold() in skip):
                words = words[1:]  # "promoted to data scientist": the job, not "to data scientist"
            if words:
                out["job"].append(" ".join(words))
    out["number"], out["age"] = _amounts(text, lang)
    out["count"] = _counts(text, lang)
    return tuple((k, tuple(v)) for k, v in out.items() if v)


def _amounts(text: str, lang: str) -> tuple[list[str], list[str]]:
    """(amounts, ages) said in ``text``, as said (:func:`anchormem.facts.values.parse`): an amount is money, a weight,
    a duration, or a number said with digits, a multiplier or a period, or of 100 and more ("seventy-two thousand",
    一万二; not "two" or 十); an age is said with its unit or cue (六岁, "turned seven", "9th birthday") or a small number
    beside a weak age cue ("Mia is 6", "7 now": ``age_weak_*`` of data/lang/en/values.json)."""
    from .values import after_delta, parse

    d = langdata.load("values", "en")
    weak_before = tuple(w.casefold() for w in d.get("age_weak_before", []))
    weak_after = tuple(w.casefold() for w in d.get("age_weak_after", []))
    amounts, ages = [], []
    for v in parse(text, "zh" if has_cjk(text) else lang):
        if after_delta(text[:v.start], "zh" if has_cjk(v.text) or has_cjk(text[:v.start][-1:]) else "en"):
            continue  # "能省四百", "lost 5 kg": a difference, no value held
        digits = bool(re.search(r"\d", v.text))
        if v.kind == "age":
            ages.append(re.sub(r"\D", "", v.text) if digits and not has_cjk(v.text) else plain_age(v))
        elif v.kind in ("money", "weight", "duration") or v.kind == "number" and (
                digits or v.period or v.number >= 100):
            amounts.append(v.text)
        if v.kind == "number" and v.number < 120 and v.number.is_integer() and not has_cjk(v.text):
            before = text[:v.start].rstrip().casefold()
            after = text[v.end:].lstrip().casefold()
            if before.endswith(weak_before) or after.startswith(weak_after):
                ages.append(v.text)
    return amounts, ages


def plain_age(v: Any) -> str:
    """An age value as said without its unit (六岁 -> 六, "seven" -> "seven")."""
    from .values import plain

    return re.sub(r"(?:周)?岁$", "", v.text) if has_cjk(v.text) else v.text or plain(v.number)


@lru_cache(maxsize=2)
def _count_rx(lang: str) -> tuple[re.Pattern, dict[str, str]]:
    """A number and a counted noun ("three cats", 两只猫: ``counted`` and ``number_words`` of slots.json), and each
    noun's count key ("cats" -> "cat")."""
    d = langdata.load("slots", lang)
    nouns = {w: k for k, ws in d.get("counted", {}).items() for w in ws}
    alt = langdata.alternation(tuple(nouns))
    if lang == "zh":
        nums = langdata.load("values", "zh").get("numerals", "")
        mws = langdata.alternation(tuple(langdata.load("values", "zh").get("measure_words", [])))
        rx = re.compile(rf"(?:\d+|[{nums}]{{1,3}})\s*(?:{mws})?(?:{alt})")
    else:
        nums = langdata.alternation(tuple(w for w in d.get("number_words", {}) if w not in ("a", "an", "no")))
        rx = re.compile(rf"\b(?:\d+|{nums})\s+(?:{alt})\b", re.I)
    return rx, nouns


def _counts(text: str, lang: str) -> list[str]:
    return [m.group(0) for m in _count_rx("zh" if has_cjk(text) else lang)[0].finditer(text)]


def _count_key(value: str) -> str:
    lang = "zh" if has_cjk(value) else "en"
    _, nouns = _count_rx(lang)
    hit = [k for w, k in nouns.items() if (w in value if lang == "zh" else re.search(rf"\b{re.escape(w)}\b", value, re.I))]
    return max(hit, key=len) if hit else ""


_TYPE_VALUES = {"place": "name", "org": "name", "number": "number", "amount": "number", "job": "job", "age": "age",
                "count": "count"}


def _speaker_first(text: str) -> bool:
    """The clause opens with the speaker as its subject ("I …", "We've …", 我…), after leading adverbs."""
    return bool(re.match(r"^\W*(?:(?:so|and|but|now|just|also|actually|well|oh)\W+)*(?:I|I['’](?:m|ve|d)|we|we['’](?:re|ve)"
                         r")\b|^\W*(?:[\u4e00-\u9fff]{0,4}?)(?:我们|我)(?![的])", text, re.I))


def _same_type(kind: str, value: str) -> bool:
    """An existing claim's value is of the type ``kind`` (so a typed fallback may replace it)."""
    if kind in ("place", "org"):
        return bool(has_cjk(value) or value[:1].isupper() or re.search(r"[A-Z]", value))
    if kind == "count":
        return bool(_count_key(value))
    if kind in ("number", "age"):
        from .values import parse

        return bool(re.search(r"\d", value) or parse(value))
    if kind == "job":
        return is_occupation(value)
    return False


# -- 3. slot by similarity -----------------------------------------------------------------------------------------
def _bank(embedder: Any, lang: str) -> tuple[np.ndarray, list[str]]:
    """(vectors (n, dim) float32, class of each row) of the exemplar bank of ``lang``, embedded once per embedder."""
    key = (str(getattr(embedder, "name", type(embedder).__name__)), int(getattr(embedder, "dim", 0)), lang)
    with _LOCK:
        if key not in _BANKS:
            texts, labels = bank_texts(lang)
            vecs = load_bank_vectors(key[0], key[1], lang, texts)  # shipped for the bundled model
            if vecs is None:
                vecs = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
            _BANKS[key] = (vecs, labels)
        return _BANKS[key]


def bank_texts(lang: str) -> tuple[list[str], list[str]]:
    """(texts, class of each text) of the exemplar bank of ``lang``, slots in file order, then ``none``."""
    d = _bank_data(lang)
    texts, labels = [], []
    for slot, spec in d.get("slots", {}).items():
        texts += spec["examples"]
        labels += [slot] * len(spec["examples"])
    texts += d.get("none", [])
    labels += ["none"] * len(d.get("none", []))
    return texts, labels


def classify(vec: np.ndarray, bank: tuple[np.ndarray, list[str]], allowed: set[str], lang: str
             ) -> tuple[str, dict[str, float]]:
    """The slot class of one clause vector (``dim``,) among ``allowed`` classes (and ``none``), or "none"; with each
    class's score (mean cosine of its k nearest exemplars)."""
    d = _bank_data(lang)
    vecs, labels = bank
    sims = vecs @ vec
    by: dict[str, list[float]] = {}
    for s, lab in zip(sims.tolist(), labels):
        if lab == "none" or lab in allowed:
            by.setdefault(lab, []).append(s)
    k = int(d.get("k", 5))
    scores = {lab: float(np.mean(sorted(v, reverse=True)[:max(1, min(k, len(v) // 2))])) for lab, v in by.items()}
    ranked = sorted(((s, lab) for lab, s in scores.items() if lab != "none"), reverse=True)
    if not ranked:
        return "none", scores
    best, lab = ranked[0]
    second = ranked[1][0] if len(ranked) > 1 else -1.0
    none_margin = float(d["slots"].get(lab, {}).get("none_margin", d.get("none_margin", 0.0)))  # a class may set its own
    if best - second < float(d.get("margin", 0.0)) or best - scores.get("none", -1.0) < none_margin:
        return "none", scores
    return lab, scores


# -- 4. the facts it may state -------------------------------------------------------------------------------------
Current = Callable[[list[str]], list[Any]]  # slot keys -> current fact memories (MemoryItem with .fact)
Listing = Callable[[], list[Any]]  # the user's current fact memories (for an ending)


class MeaningFallback:
    """The fallback reader for one embedder (see the module doc). ``facts(found, current=..., listing=...)``."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder

    def facts(self, found: list[tuple[str, list[Fact], str]], *, current: Current, listing: Listing
              ) -> list[list[Fact]]:
        """For each (turn text, facts read from it by the rules, entity): its facts, with those read by meaning added
        (often none) and an employer that names a place dropped (:func:`_mistyped`: "年初我去了哈尔滨生活": its clause
        is read by meaning instead).
        ``current(slot keys)``: the user's current fact memories in those slots; ``listing()``: all their current
        fact memories (only called when a clause can state an ending). One embedding call for all units."""
        memo: list[list[Any]] = []

        def listed() -> list[Any]:  # the user's current facts, read once per add at most
            if not memo:
                memo.append(list(listing()))
            return memo[0]

        found = [(text, [f for f in fs if not _mistyped(f)], ent) for text, fs, ent in found]
        kept = [list(fs) for _, fs, _ in found]
        units = [(i, u) for i, (text, fs, _) in enumerate(found) for u in clause_units(text, fs)]
        if not units:
            return kept
        ends: list[Any] = []
        if any(self._may_end(u) for _, u in units):
            ends = [m for m in listed() if m.fact is not None and m.fact.polarity > 0 and
                    (m.fact.attribute.startswith("does:") or m.fact.attribute == "diet")]
        todo = [(i, u) for i, u in units if u.values or (ends and self._may_end(u))]
        if not todo:
            return kept
        end_texts = [m.fact.value for m in ends if m.fact.attribute.startswith("does:")]
        vecs = np.asarray(self.embedder.embed_documents([u.text for _, u in todo] + end_texts), dtype=np.float32)
        end_vecs = vecs[len(todo):]
        out = kept
        for (i, u), vec in zip(todo, vecs):
            spec = _bank_data(u.lang).get("slots", {})
            allowed = {s for s, sp in spec.items() if _TYPE_VALUES.get(sp["type"]) in u.values}
            if u.other:
                allowed &= {s for s, sp in spec.items() if sp["type"] == "age"}
            if u.impersonal:
                allowed &= {s for s, sp in spec.items() if sp["type"] == "amount"}
            elif ends:
                allowed |= {s for s, sp in spec.items() if sp["type"] == "end"}
            allowed -= {s for s, sp in spec.items() if sp["type"] == "age" and not u.person}
            if not allowed:
                continue
            lab, scores = classify(vec, _bank(self.embedder, u.lang), allowed, u.lang)
            if lab == "none":
                continue
            lead = scores[lab] - max([x for k, x in scores.items() if k != lab] or [-1.0])
            sp = spec[lab]
            if sp["type"] == "amount":
                f = self._amount(u, [m for m in listed() if m.fact is not None and m.fact.polarity > 0],
                                 found[i][2])
                if f is not None and all(g.attribute != f.attribute for g in out[i]):
                    out[i].append(f)
                continue
            f = self._ending(u, sp, ends, end_vecs, vec, found[i][2]) if sp["type"] == "end" else \
                self._typed(u, lab, sp["type"], found[i][2], current, lead)
            if f is not None and all(g.attribute != f.attribute for g in out[i]):
                out[i].append(f)
        return out

    @staticmethod
    def _may_end(u: Unit) -> bool:
        """The unit can state an ending: the speaker its subject (:func:`_speaker_first`), and an ending cue (``ending`` of
        cues.json, ``end_cues`` of the bank: "over", "sober", "again") or a diet word in it."""
        return not u.other and not u.impersonal and _speaker_first(u.text) and bool(_end_cues(u.lang).search(u.text))

    def _typed(self, u: Unit, slot: str, kind: str, entity: str, current: Current, lead: float) -> Fact | None:
        if kind == "count":  # the slot is the counted thing's: count:cat
            for v in reversed(u.values["count"]):
                f = self._typed(Unit(u.text, u.sentence, u.lang, u.person, {"count": [v]}), f"count:{_count_key(v)}",
                                "count_of", entity, current, lead)
                if f is not None:
                    return f
            return None
        kind = "count" if kind == "count_of" else kind
        attr = f"{u.person}_age" if kind == "age" else slot
        key = f"{entity.casefold()}|{attr}"
        have = [m for m in current([key]) if m.fact is not None and m.fact.polarity > 0]
        if have and not all(_same_type(kind, m.fact.value) for m in have):
            return None  # a fallback changes a claim of the same type only
        if not have and (kind not in ("place", "org", "job", "number") or not _speaker_first(u.text) or
                         lead < float(_bank_data(u.lang).get("add_margin", 1.0))):
            return None  # a first fact of the slot: the speaker its subject, a clearer lead, never a count or age
        old = {value_key(attr, m.fact.value) for m in have} | {m.fact.value.casefold() for m in have}
        cands = [v for v in u.values[_TYPE_VALUES[kind]] if value_key(attr, v) not in old and v.casefold() not in old
                 and not any(v.casefold() in o or o in v.casefold() for o in old if len(o) > 1)]
        if not cands:
            return None
        if kind == "place":
            cands = [v for v in cands if has_cjk(v) or not v.replace(" ", "").isupper()]  # "LGBTQ" is no city
        if kind == "job":
            cands = [v for v in cands if has_cjk(v) or not is_occupation(re.sub(r"e?s$", "", v)) or
                     not v.casefold().endswith("s")]  # "my students", "the dancers": not the speaker's job
        if not cands:
            return None
        value = cands[-1] if kind in ("number", "age") else cands[0]
        return unit_fact(entity, attr, value, 1, u)

    def _amount(self, u: Unit, have: list[Any], entity: str) -> Fact | None:
        """A number that changes the one current numeric claim of the user's whose slot the unit names ("The gym put
        the price up to 30" -> ``gym_membership``: "gym" in the words; never a first fact)."""
        words = set(re.findall(r"[a-z]+|[\u4e00-\u9fff]+", u.text.casefold()))
        cands = [m for m in have if m.fact.entity.casefold() == entity.casefold() and _same_type("number", m.fact.value)
                 and not m.fact.attribute.startswith(("count:", "does:", "likes:")) and not m.fact.attribute.endswith("_age")
                 and any(w in words or (has_cjk(w) and w in u.text) for w in _slot_words(m.fact.attribute)
                         if len(w) > 2 or has_cjk(w))]
        slots = {m.fact.attribute for m in cands}
        if len(slots) != 1:
            return None
        attr = slots.pop()
        old = {m.fact.value.casefold() for m in cands} | {value_key(attr, m.fact.value) for m in cands}
        nums = [v for v in u.values.get("number", []) if v.casefold() not in old and value_key(attr, v) not in old]
        return unit_fact(entity, attr, nums[-1], 1, u) if nums else None

    def _ending(self, u: Unit, sp: dict, ends: list[Any], end_vecs: np.ndarray, vec: np.ndarray,
                entity: str) -> Fact | None:
        if sp.get("end_of") == "diet":  # "I started eating fish again": the diet is now what the turn says
            diet = [m for m in ends if m.fact.attribute == "diet" and value_key("diet", m.fact.value) != "eats meat"]
            return unit_fact(entity, "diet", _words(u.text), 1, u) if diet else None
        habits = [(m, v) for m, v in zip([m for m in ends if m.fact.attribute.startswith("does:")], end_vecs)]
        named = [(m, w) for m, _ in habits if (w := _names(u.text, m.fact.attribute.split(":", 1)[1]))]
        if not named and habits:  # no word of it said: the nearest claim by meaning, named by the turn's object
            thr = float(_bank_data(u.lang).get("end_cosine", 0.9))
            best = max(habits, key=lambda mv: float(mv[1] @ vec))
            w = _names(u.text, best[0].fact.value)
            named = [(best[0], w)] if float(best[1] @ vec) >= thr and w else []
        if len(named) != 1:
            return None
        m, word = named[0]  # the turn's word for it, -1, ending that claim (Fact.ends)
        f = unit_fact(entity, m.fact.attribute, word, -1, u)
        return f.model_copy(update={"ends": value_key(m.fact.attribute, m.fact.value)}) if f is not None else None


def _slot_words(attribute: str) -> list[str]:
    """Words naming a numeric slot in any language: its key's words and its slot nouns (``numeric_slots`` of
    slots.json); a Chinese noun also by its head, its last character (compounds are head-final: 房租 -> 租, "涨租")."""
    from .changes import numeric_slots

    nouns = [n for n, k in numeric_slots().items() if k == attribute]
    return attribute.split("_") + nouns + [n[-1] for n in nouns if has_cjk(n) and len(n) > 1]


def _names(text: str, obj: str) -> str:
    """The word of ``text`` that names a habit's object ("wine" of "wine most evening"; 酒; "running" for "run"),
    or ""."""
    if has_cjk(obj):
        for part in re.findall(r"[\u4e00-\u9fff]{2}", obj) + ([obj] if len(obj) == 1 else []):
            if part in text:
                return part
        return ""
    stop = {"most", "every", "evening", "morning", "day", "night", "week", "a", "the", "of", "each"}
    words = [w for w in re.findall(r"[a-z]+", obj.casefold()) if w not in stop and len(w) >= 3]
    for w in words:
        m = re.search(rf"\b{re.escape(w[:max(3, len(w) - 1)])}\w*", text, re.I)
        if m:
            return m.group(0)
    return ""


def _words(text: str) -> str:
    """The value of a fact read by meaning from its clause: the clause without its leading subject and end mark."""
    t = re.sub(r"^\s*(?:I|I'm|I’m|I've|I’ve|we|we're|we've|我们|我)\s*", "", text.strip(), flags=re.I)
    return t.rstrip(" .!。！") or text.strip()


def _mistyped(f: Fact) -> bool:
    """A fact the rules misread by type, left to the fallback to read by meaning: a Chinese employer whose value is a
    place name (jieba ``ns``) in a clause about living (``live_at`` verbs of frames.json: 去了哈尔滨生活, 到芜湖定居); a generic "my X is Y" whose value is an ending word
    (``end_words`` of the bank: "My running days are over")."""
    if f.extractor == "rules" and f.polarity > 0 and ":" not in f.attribute and \
            f.value.casefold().strip(" .!") in {w.casefold() for w in _bank_data("en").get("end_words", [])}:
        return True  # "My running days are over": the generic "my X is Y" read an ending as a value
    if f.attribute != "employer" or f.polarity < 0 or not has_cjk(f.value) or f.extractor != "rules":
        return False
    live = langdata.load("frames", "zh").get("classes", {}).get("live_at", {}).get("verbs", [])
    if not any(v in (f.clause or f.source_span) for v in live):
        return False  # 我在京东上班: jieba may tag an organisation ns; only a clause about living is re-read
    toks = [w for w in pos_tags(f.value) if w.word.strip()]
    while toks and toks[0].flag in ("p", "v") and len(toks) > 1:
        toks = toks[1:]  # 到芜湖, 去了
    return len(toks) == 1 and toks[0].flag == "ns"


def unit_fact(entity: str, attr: str, value: str, pol: int, u: Unit, extractor: str = "meaning") -> Fact | None:
    """The fact of clause unit ``u`` (``.sentence``, ``.text``), in exactly the slot ``attr`` (an ending names an
    existing claim's slot: it is not re-normalised); None when the fact is not valid."""
    try:
        f = Fact(entity=entity, attribute=attr, value=value, polarity=pol, confidence=1.0, source_span=u.sentence,
                 clause=u.text, language=detect_language(u.sentence), extractor=extractor)
    except ValueError:
        return None
    return f if f.attribute == attr else f.model_copy(update={"attribute": attr})
