"""The quantity reader: typed amounts (a number, its unit, the attribute it measures) and counts, per clause.

A change of a number is said in more ways than a list of change patterns holds ("My raise finally went through,
seventy-two thousand now", "Landlord bumped it to 1,450", 涨薪了！现在1.5w, "Mia turned seven", "we're down to two
chickens", 剩五盆了). What a number *is* is said in fewer ways: its unit or currency (:mod:`.values` reads "1.2w",
四千八, "$2,400", "84kg", "an hour ten"), and a word near it naming what it measures ("rent", "make", "weigh", 月薪,
通勤: ``attributes`` of ``data/lang/<lang>/quantities.json``, with the ``numeric_slots`` of slots.json). This module
reads those, per clause of a user turn, past the gates the job reader uses
(:func:`~anchormem.facts.jobs.open_clauses`: a question, a hypothetical, plan or modal, reported speech, the past,
a trip; someone else's attribute: "my friend's rent", 他的工资):

1. **Amounts**: each value of the clause whose kind an attribute takes (money, weight, duration, distance; a bare
   number only within the attribute's ``range``), named by the attribute word nearest to it in the clause, else in
   its sentence, else in the turn. Where no word names it, **by meaning**: the user's current claims whose values
   are of the same kind, when exactly one attribute holds them and the clause says the value is new ("now",
   现在, "down to": :func:`~anchormem.facts.aspect.inchoative`, ``left`` words) or reached ("bumped it to", 涨到:
   ``result_before`` of relative.json).
2. **Ages**: the speaker's own ("I'm 34", "I just turned 35", 我今年34岁: ``age``), or a value the parser reads as an
   age ("turned seven", 六岁) of the person named in the clause: a relative
   ("my daughter", 儿子: ``<person>_age``), a name the user's current age claims hold ("Mia turned seven" after
   "My daughter Mia is 6": ``daughter_age``), or another name (``<name>_age``). An age said of no one in its
   clause ("Four years old and still eats shoes", "he's five already") is of the one name the turn said before
   it, when that name's age claim is the user's and no other person is named.
3. **Counts**: a number with a counted noun ("three cats", 三只猫; ``counted`` of slots.json) is the ``count:<noun>``
   slot the rules use; a count said without its noun ("Four left", 剩五盆了, "plant count: 19") takes the user's one
   current count claim (by its measure word in Chinese: 盆 ~ 八盆多肉). A count is held when a frame says so
   ("I have", 家里: ``count_frames``) or when it lists as many named members as it counts, verb or none ("Two cats
   in this house: Miso and Tofu": :func:`_enumerated`; those names are then read here as ``cat_names``). The names
   said with a held count are the rules' own facts (``cat_names``): a count change never touches them. A count
   said as a change ("又养了一只狗", "two more pullets") is no count held: :mod:`.counts` reads it against the stored count.

Each reading is a +1 fact (``extractor="quantities"``) that replaces the slot's current value through the usual
reconcile path; the caller passes it through the grounding check. A slot the other readers already filled in the turn
keeps their fact (:func:`merge_quantity_facts`).

    quantity_facts("My raise finally went through, seventy-two thousand now.")
    # -> [Fact(attribute="salary", value="seventy-two thousand", ...)]

Nothing is read before first use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import has_cjk
from .model import Fact, detect_language
from .counts import _readings as _count_readings
from .frames import said_as_verb
from .values import Value, parse, plain, same_number

__all__ = ["quantity_facts", "merge_quantity_facts", "attribute_words"]

_AMOUNT_KINDS = ("money", "weight", "duration", "distance", "number")


@lru_cache(maxsize=2)
def _data(lang: str) -> dict[str, Any]:
    return langdata.load("quantities", lang)


@lru_cache(maxsize=1)
def _nouns() -> frozenset[str]:
    """The ``numeric_slots`` nouns of slots.json (case-folded): a noun said as a verb ("I pay 120 a month for my gym")
    names no attribute."""
    return frozenset(w.casefold() for lang in langdata.LANGUAGES
                     for ws in langdata.load("slots", lang).get("numeric_slots", {}).values() for w in ws)


_PRONOUN_BEFORE = re.compile(r"(?<![\w'’])(?:I|we|you|they|he|she)\s+(?:\w+\s+)?$", re.I)


@lru_cache(maxsize=1)
def attribute_words() -> dict[str, tuple[tuple[str, str], ...]]:
    """Language -> ((word, attribute), ...), longest word first: the ``attributes`` words of
    data/lang/<lang>/quantities.json and the ``numeric_slots`` nouns of slots.json (the same slot keys)."""
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for lang in langdata.LANGUAGES:
        pairs = {(w, a) for a, spec in _data(lang).get("attributes", {}).items() for w in spec.get("words", [])}
        pairs |= {(w, a) for a, ws in langdata.load("slots", lang).get("numeric_slots", {}).items() for w in ws}
        pairs = {(w, a) for w, a in pairs if a not in _data(lang).get("not_read", [])}
        out[lang] = tuple(sorted(pairs, key=lambda p: (-len(p[0]), p[0])))
    return out


@lru_cache(maxsize=1)
def _specs() -> dict[str, dict[str, Any]]:
    """attribute -> {"kinds": set, "range": (lo, hi) | None}, over both languages (a numeric slot of slots.json that
    quantities.json does not type takes money and bare numbers)."""
    out: dict[str, dict[str, Any]] = {}
    for lang in langdata.LANGUAGES:
        for a, spec in _data(lang).get("attributes", {}).items():
            cur = out.setdefault(a, {"kinds": set(), "range": None})
            cur["kinds"] |= set(spec.get("kinds", []))
            if spec.get("range"):
                lo, hi = spec["range"]
                r = cur["range"]
                cur["range"] = (min(lo, r[0]), max(hi, r[1])) if r else (float(lo), float(hi))
        for a in langdata.load("slots", lang).get("numeric_slots", {}):
            out.setdefault(a, {"kinds": {"money", "number"}, "range": (1.0, 1e9)})
    return out


@lru_cache(maxsize=64)
def _rx(lang: str, key: str) -> re.Pattern | None:
    """The entries of ``key`` of quantities.json as one pattern: Latin ones as whole words, CJK ones anywhere."""
    ws = sorted(set(_data(lang).get(key, [])), key=len, reverse=True)
    return _alternation(ws)


def _alternation(ws: list[str]) -> re.Pattern | None:
    if not ws:
        return None
    parts = [re.escape(w) if has_cjk(w) else r"(?<!\w)" + re.escape(w) + r"(?!\w)" for w in ws]
    return re.compile("|".join(parts), re.I)


@lru_cache(maxsize=2)
def _word_rx(lang: str) -> re.Pattern:
    pairs = attribute_words()[lang]
    rx = _alternation([w for w, _ in pairs])
    assert rx is not None
    return rx


def _langs(text: str) -> tuple[str, ...]:
    return ("zh", "en") if has_cjk(text) else ("en",)


def _named(text: str, v: Value) -> list[tuple[int, str]]:
    """(distance in characters, attribute) of each attribute word in ``text`` that takes ``v`` (its kind, its range),
    nearest first; ``v``'s offsets are in ``text``."""
    out = []
    for lang in _langs(text):
        table = dict((w.casefold(), a) for w, a in attribute_words()[lang])
        for m in _word_rx(lang).finditer(text):
            attr = table.get(m.group(0).casefold())
            if attr is None or not _takes(attr, v):
                continue
            if m.group(0).casefold() in _nouns() and m.group(0).casefold() not in _listed(lang) and (
                    _PRONOUN_BEFORE.search(text[:m.start()]) or said_as_verb(text[:m.start()], text[m.end():], lang)):
                continue  # a slot noun said as a verb: "I pay 120 yuan a month for my gym", "… and pay $1,800"
            if m.start() < v.end and v.start < m.end():
                continue  # the word is inside the value ("84kg" is no "kg" word)
            dist = v.start - m.end() if m.end() <= v.start else m.start() - v.end
            out.append((max(0, dist), attr))
    return sorted(out)


@lru_cache(maxsize=2)
def _listed(lang: str) -> frozenset[str]:
    """The words quantities.json lists itself (verbs among them: "make", "earn", "weigh")."""
    return frozenset(w.casefold() for spec in _data(lang).get("attributes", {}).values() for w in spec.get("words", []))


def _takes(attr: str, v: Value) -> bool:
    spec = _specs().get(attr)
    if spec is None or v.kind not in spec["kinds"]:
        return False
    if v.kind == "number" and spec["range"] is not None:
        lo, hi = spec["range"]
        return lo <= v.number <= hi
    return True


def _someone_else(clause: str) -> bool:
    """The clause says whose the attribute is, and it is not the speaker's ("my friend's rent", 他的工资)."""
    return any(rx is not None and rx.search(clause) for lang in _langs(clause) for rx in (_rx(lang, "others"),))


def _held(clause: str) -> bool:
    """The clause of a count says the speaker holds that many now ("I have", "we keep", "flock is six hens", 家里, 养,
    "so three cats total", 剩): ``count_frames`` of quantities.json. A count said in an event ("borrowed a bike",
    买了一辆自行车) is no count of the speaker's."""
    return any(rx is not None and rx.search(clause) for lang in _langs(clause) for rx in (_rx(lang, "count_frames"),))


@lru_cache(maxsize=2)
def _list_rx(lang: str) -> tuple[re.Pattern, re.Pattern, frozenset[str]]:
    """(opener, joiner, the word-like joiners that close a list) of ``lang`` (``list_openers`` / ``list_joiners`` of
    quantities.json)."""
    d = _data(lang)
    opens = sorted(d.get("list_openers", []), key=len, reverse=True)
    joins = sorted(d.get("list_joiners", []), key=len, reverse=True)
    word = frozenset(j.casefold() for j in joins if j[:1].isalnum())  # (and, 和: a word closes a list)
    alt = "|".join(rf"\s*,?\s*\b{re.escape(j)}\b\s*" if j[:1].isalnum() and not has_cjk(j) else rf"\s*{re.escape(j)}\s*"
                   for j in joins)  # (", and": one joiner, the serial comma)
    return (re.compile("|".join(re.escape(o) for o in opens) or r"(?!)"), re.compile(alt or r"(?!)", re.I), word)


def _dated(words: str) -> bool:
    """``words`` hold a time phrase ("today", "this week", 昨天: ``value_stops`` of dates.json, or a date)."""
    from ..text.dates import resolve_dates
    from .rules import _time_stops

    return bool(_time_stops().search(" " + words)) or bool(resolve_dates(words, _ANCHOR))


_ANCHOR = datetime(2000, 6, 15, 12, tzinfo=timezone.utc)  # any day: only whether a date is said matters


def _has_name(item: str) -> bool:
    """A listed member holds a name: a capitalised word (not "I"); in Chinese a person's name (jieba ``nr``), or the
    member is a bare noun of two or three characters (豆豆, 球球, 花花: a pet's or a child's name as listed)."""
    if re.search(r"(?<![\w'’])(?!I\b)(?-i:[A-Z])[\w'’.-]*", item):
        return True
    if has_cjk(item):
        from ..text.tokenize import pos_tags

        tags = [t for t in pos_tags(item) if t.word.strip()]
        if any(t.flag.startswith("nr") and len(t.word.strip()) >= 2 for t in tags):
            return True
        return bool(re.fullmatch(r"[\u4e00-\u9fff]{2,3}", item)) and all(t.flag[:1] in ("n", "o") for t in tags)
    return False


def _enumerated(rest: str, v: Value) -> str:
    """The members ``rest`` (the sentence after the count ``v``) lists, as said, when it lists exactly as many as ``v``
    counts, each with a name ("Two cats at home: Miso and Tofu" -> "Miso and Tofu", "three kids, Ann, Bo and Cy",
    两只猫：咪咪和球球), else "". The list follows an opener (``list_openers`` of quantities.json; at most four words
    between, no time phrase among them: "in the yard:", not "at the park today:"), its members are cut by
    ``list_joiners``, and the count's last member comes after a closing word ("and", 和) or ends the sentence. Such a
    count is held, with or without a verb saying so ("We keep 4 hens: …" is read by :func:`_held` too)."""
    n = v.number
    if not n.is_integer() or not 2 <= n <= 12:
        return ""
    for lang in _langs(rest):
        opener, joiner, closing = _list_rx(lang)
        m = opener.search(rest)
        if not m or len(rest[:m.start()].split()) > 4 or re.search(r"[.!?。！？;；]", rest[:m.start()]):
            continue
        if _dated(rest[:m.start()]):
            continue  # "Three dogs at the park today: Rex, Bo and Pip": a scene of a day, nothing held
        body = re.split(r"[.!?。！？;；)）]", rest[m.end():], maxsplit=1)[0]  # ("(Dana, Theo, and Marcus)")
        seps = list(joiner.finditer(body))
        items = [p.strip() for p in joiner.split(body)]
        k = int(n)
        if len(items) < k or not all(items[:k]) or not all(_has_name(i) for i in items[:k]):
            continue
        if len(items) == k or seps[k - 2].group(0).strip().casefold() in closing:
            return body[:seps[k - 1].start()].strip() if len(items) > k else body.strip()
    return ""


def _time_after(rest: str) -> bool:
    """A length of time follows a bare number ("two days ago", 三天前: ``duration_units`` of data/lang/*/dates.json)."""
    units = langdata.words("dates", "duration_units")
    m = re.match(r"\s*([A-Za-z]+|[\u4e00-\u9fff]{1,2})", rest)
    return bool(m) and any(m.group(1).casefold() == u.casefold() or has_cjk(u) and m.group(1).startswith(u)
                           for u in units)


def _not_held(clause: str, v: Value, prev: int) -> bool:
    """``v`` is not a value the speaker's attribute holds now: a goal or the past said before it since the previous
    value ("goal is 180", 目标减到65, "I was a 26 last year": ``not_now`` words) or a difference said right before it ("down 9 pounds", 少三公斤: ``delta``)."""
    between = clause[prev:v.start]
    for lang in _langs(clause):
        goal, delta = _rx(lang, "not_now"), _rx(lang, "delta")
        if goal is not None and goal.search(between):
            return True
        if delta is not None:
            m = None
            for m in delta.finditer(between):
                pass
            if m is not None and not between[m.end():].strip(" :：$£€¥"):
                return True
    return False


def _after(clause: str, sentence: str, v: Value) -> str:
    """The words of ``sentence`` after the value ``v`` of its ``clause`` (the clause's own rest when it is not found
    in the sentence)."""
    at = sentence.find(clause)
    return sentence[at + v.end:] if at >= 0 else clause[v.end:]


def _reached(before: str) -> bool:
    """The words right before a value say it was reached ("bumped it to", 涨到, 换成: ``result_before`` of
    data/lang/*/relative.json, the change reader's own list)."""
    b = before.rstrip().casefold()
    for w in langdata.words("relative", "result_before"):
        w = w.casefold()
        if b.endswith(w) and (has_cjk(w) or not b[-len(w) - 1:-len(w)].isalnum()):
            return True
    return False


def _acts_for(sentence: str) -> bool:
    """The sentence opens with someone who changes the speaker's own facts ("Our landlady bumped it up, 1950 a
    month", 房东又涨价了，…: ``acting_subjects`` of the exemplar bank): a clause of it without a subject of its own
    goes on about the speaker's attribute."""
    from .meaning import _acts_for_speaker

    return _acts_for_speaker(sentence, "zh" if has_cjk(sentence) else "en")


def _own_subject(clause: str) -> bool:
    """Someone else is the clause's subject, yet what it states is the speaker's: the speaker is its object ("bumped
    us to $2,400", 给我涨了), so is the speaker's attribute ("they bumped my base to 75k"), the subject acts for the
    speaker ("Landlord bumped it to 1,450") or is itself an attribute word (续租的时候房东涨到四千二)."""
    from .meaning import _acts_for_speaker

    if re.search(r"(?<![\w'’])(?:me|us)(?![\w'’])|给我|给我们", clause, re.I):
        return True
    if _acts_for_speaker(clause, "zh" if has_cjk(clause) else "en"):
        return True  # "Landlord bumped it to 1,450", 老板给我涨了工资 (acting_subjects of the exemplar bank)
    bare = re.sub(r"^\s*(?:the|my|our|so|and|but)\s+", "", clause, flags=re.I)
    for lang in _langs(clause):
        rx = _word_rx(lang)
        if rx.match(bare):
            return True
        for m in rx.finditer(clause):  # the speaker's own attribute as the object: "they bumped my base to 75k"
            if m.start() > 0 and re.search(r"(?:\b(?:my|our)\s+|我的?|我们的?)$", clause[:m.start()], re.I):
                return True
    return False


def _new_said(clause: str) -> bool:
    """The clause says its value holds now, in place of another ("now", 现在, "down to", "four left", 剩)."""
    from .aspect import inchoative

    return bool(inchoative(clause)) or any(rx is not None and rx.search(clause)
                                          for lang in _langs(clause) for rx in (_rx(lang, "left"),))


_SELF_AGE = re.compile(r"(?:(?<![\w'’])I(?:['’]m|\s+am|\s+(?:just\s+|finally\s+)?turned)|我(?:今年|已经|都|快|刚|刚刚|现在)*)"
                       r"\s*(?:now\s+|just\s+|already\s+)?$", re.I)
_AFTER_AGE = re.compile(r"\s*(?:$|[,.!;，。！；]|(?:and|now|today|this|years?\b|岁))", re.I)


def _self_age(clause: str, v: Value) -> bool:
    """``v`` is the speaker's own age: an age said right after "I'm" / "I turned" / 我今年 ("I just turned 35", 我今年
    34岁), or a bare number of a plausible age after "I'm" with nothing after it but an end ("I'm 34 and I work as a
    nurse"; not "I'm 25 percent done")."""
    if not _SELF_AGE.search(clause[:v.start]):
        return False
    if v.kind == "age":
        return True
    return v.kind == "number" and not v.period and 13 <= v.number <= 110 and bool(_AFTER_AGE.match(clause[v.end:]))


def _age_owner(clause: str, v: Value, claims: Callable[[], list[Any]]) -> str:
    """The age slot of the person an age in ``clause`` is about (see the module doc), or ""."""
    from .keys import person_words, person_key, relation_pattern
    from .subjects import not_names

    before = clause[:v.start]
    if _self_age(clause, v):
        return "age"
    for zh in (True, False):
        rx = relation_pattern(zh, person_words())
        pat = rx if zh else r"\b(?:my|our)\s+(?:" + rx + r")\b"
        hits = list(re.finditer(pat, before, 0 if zh else re.I))
        if hits:
            word = hits[-1].group(0)
            word = re.sub(r"^(?:my|our)\s+", "", word, flags=re.I)
            return person_key(word).casefold().replace(" ", "_") + "_age"
    names = re.findall(r"(?<![\w'’])(?-i:[A-Z][a-z]+)(?![\w])", before)
    stop = frozenset().union(*(not_names(lang) for lang in langdata.LANGUAGES))
    names = [n for n in names if n.casefold() not in stop]
    if names and re.match(r"\s+[a-z]", clause[v.end:]) and re.search(r"old$", v.text):
        return ""  # "a thirty year old woman": the age of the noun after it
    if not names and has_cjk(before):  # a Chinese noun before the age that a current age claim's words hold
        from ..text.tokenize import pos_tags  # (豆豆今天过四岁生日 after 我儿子豆豆三岁半: son_age)

        nouns = [t.word for t in pos_tags(before) if len(t.word) > 1 and has_cjk(t.word) and t.flag.startswith("n")]
        ages = {c.fact.attribute for c in claims() if c.fact is not None and c.fact.attribute.endswith("_age")
                and c.fact.polarity > 0 and any(n in (c.text or "") for n in nouns)}
        return ages.pop() if len(ages) == 1 else ""
    if not names:
        return ""
    name = names[-1]
    for c in claims():
        f = c.fact
        if f is not None and f.attribute.endswith("_age") and f.polarity > 0 and name in (c.text or ""):
            return f.attribute
    return name.casefold() + "_age"


_PRONOUN_AGE = re.compile(r"(?<![\w'’])(?:he|she|they)(?:['’]s|\s+is|\s+(?:just\s+)?turned)\s+(?:now\s+|already\s+|just\s+)?$",
                          re.I)


_AFTER_PRONOUN_AGE = re.compile(r"\s*(?:$|[,.!?;]|(?:and|now|already|today|this|years?)\b)", re.I)  # ("5 days in": no age)


def _pronoun_age(clause: str, v: Value) -> bool:
    """A bare whole number of a plausible age said of a third person's pronoun ("can't believe he's five already",
    "she just turned 7"): an age, whose owner the turn names before (:func:`_named_before`)."""
    return v.kind == "number" and not v.period and v.number == int(v.number) and 0 < v.number <= 120 and \
        bool(_PRONOUN_AGE.search(clause[:v.start])) and bool(_AFTER_PRONOUN_AGE.match(clause[v.end:]))


def _named_before(clause: str, v: Value, text: str, claims: Callable[[], list[Any]]) -> str:
    """The age slot of the one person or pet the turn names before ``clause``, when the clause names no one itself
    and that name's current age claim is the user's ("Biscuit's birthday again! Four years old" after "Biscuit turned
    3": ``biscuit_age``; "Eli's party was yesterday… can't believe he's five already": ``son_age``): an age said
    of no one in its clause is of whom the turn is about. None when the turn names another person too (a relative
    word or a second name: "Mia's friend came over, she's 7")."""
    from .keys import person_words, relation_pattern
    from .subjects import not_names

    at = text.find(clause)
    if at < 0 or re.search(r"(?<![\w'’])(?-i:[A-Z][a-z]+)", clause[:v.start].replace("I", "", 1)) and \
            not _PRONOUN_AGE.search(clause[:v.start]):
        return ""
    before = text[:at] + clause[:v.start]
    if has_cjk(before) or re.search(r"(?<![\w'’])(?:I|I['’]m|my|me)(?![\w'’])", clause[:v.start]):
        return ""
    stop = frozenset().union(*(not_names(lang) for lang in langdata.LANGUAGES))
    names = {n for n in re.findall(r"(?<![\w'’])(?-i:[A-Z][a-z]+)(?![\w])", before) if n.casefold() not in stop}
    if len(names) != 1 or re.search(r"\b(?:" + relation_pattern(False, person_words()) + r")\b", before, re.I):
        return ""
    (name,) = names
    ages = {c.fact.attribute for c in claims() if c.fact is not None and c.fact.attribute.endswith("_age") and
            c.fact.polarity > 0 and (name in (c.text or "") or c.fact.attribute == f"{name.casefold()}_age")}
    return ages.pop() if len(ages) == 1 else ""


def _counted_claims(claims: Callable[[], list[Any]], v: Value) -> str:
    """The one current count slot a count said without its noun stands for (its measure word in Chinese), or ""."""
    slots = set()
    for c in claims():
        f = c.fact
        if f is None or not f.attribute.startswith("count:") or f.polarity <= 0:
            continue
        if v.measure:
            old = parse(str(f.value))
            if not old or old[0].measure and old[0].measure != v.measure:
                continue
        slots.add(f.attribute)
    return slots.pop() if len(slots) == 1 else ""


def _by_meaning(claims: Callable[[], list[Any]], v: Value) -> str:
    """The one attribute of the user's current amount claims whose values are of ``v``'s kind, or ""."""
    attrs = set()
    for c in claims():
        f = c.fact
        if f is None or f.polarity <= 0 or f.attribute.startswith("count:") or f.attribute.endswith("_age"):
            continue
        old = parse(str(f.value))
        if old and (old[0].kind == v.kind or "number" in (old[0].kind, v.kind)) or not old and f.attribute in _specs():
            attrs.add(f.attribute)  # (any amount claim counts: "套餐又改了，现在每个月49块" is not the salary's; an
            # amount attribute's value the parser does not read counts too: "grand" of "Rent's a grand")
    attr = attrs.pop() if len(attrs) == 1 else ""
    return attr if attr in _specs() and _takes(attr, v) else ""


@lru_cache(maxsize=1)
def _topic_words() -> tuple[re.Pattern, dict[str, str]] | None:
    """The ``topic_words`` of every attribute of quantities.json (all languages) as one pattern, and word -> its
    attribute."""
    table = {w.casefold(): a for lang in langdata.LANGUAGES for a, spec in _data(lang).get("attributes", {}).items()
             for w in spec.get("topic_words", [])}
    rx = _alternation(sorted(table, key=len, reverse=True))
    return (rx, table) if rx is not None else None


def _topic(text: str) -> str:
    """The attribute one topic word of ``text`` names ("landlord", 房东 -> "rent"; ``topic_words`` of
    quantities.json), "" when none does or two attributes' words are said."""
    found = _topic_words()
    if found is None:
        return ""
    attrs = {found[1][m.group(0).casefold()] for m in found[0].finditer(text)}
    return attrs.pop() if len(attrs) == 1 else ""


def _fact(attr: str, value: str, clause: str, sentence: str, entity: str) -> Fact | None:
    try:
        return Fact(entity=entity, attribute=attr, value=value, polarity=1, confidence=0.9, sensitive=False,
                    source_span=sentence, clause=clause, language=detect_language(sentence),
                    extractor="quantities")
    except ValueError:
        return None


def _read(clause: str, sentence: str, text: str, claims: Callable[[], list[Any]], cut: dict[str, str],
          others: bool = False) -> list[tuple[str, str]]:
    """(attribute, value) of each quantity ``clause`` states (see the module doc); ``cut``: attribute -> the words of
    the clause that are the fact's own, where shorter than the clause (filled here). ``others``: someone else is the
    subject and nothing says the attribute is the speaker's ("My brother weighs 80 kg"): only an age is read (a
    person's own slot: "我儿子今年5岁" is ``son_age``)."""
    out: list[tuple[str, str]] = []
    lang = "zh" if has_cjk(clause) else "en"
    if _someone_else(clause):
        return out
    prev = 0
    for v in parse(clause, lang):
        if v.kind == "count" and any(v.text in w for *_, w in _count_readings(clause)):
            continue  # "又养了一只狗", "two more pullets": a change of the count (facts.counts), not the count held
        # a count compound ("we're a two-car household") says what the household holds by itself
        held = v.kind == "count" and not others and (_held(clause) or "-" in v.text)
        members = _enumerated(_after(clause, sentence, v), v) if v.kind == "count" and not others and not held \
            else ""
        if held or members:
            out.append((f"count:{v.unit}", v.text))
            if members:  # "Two cats in this house: Miso and Tofu": held by the list alone, which no rule reads
                out.append((f"{v.unit}_names", members))  # (a held count's names are the rules' own facts)
                cut[f"{v.unit}_names"] = sentence
            sep = re.search(r"\s*[:：,，(（—–]|\s+-\s", clause[v.end:])  # "three chickens: Nugget, Pepper and
            if sep:  # Dolly", "Two cars in the driveway: my Corolla and…": the count's own words, never what follows
                cut[f"count:{v.unit}"] = clause[:v.end + sep.start()]
            continue
        said_age = v.kind == "age" or _self_age(clause, v)
        if said_age or _pronoun_age(clause, v):  # ("he's five": only of the one name the turn said before)
            owner = (_age_owner(clause, v, claims) if said_age else "") or _named_before(clause, v, text, claims)
            if owner and not (others and owner == "age"):  # ("my daughter's 9th birthday": 9)
                out.append((owner, plain(v.number) if re.fullmatch(r"\d+(?:st|nd|rd|th)", v.text) else v.text))
            continue
        if others:
            continue  # "My brother weighs 80 kg"; "Landlord bumped us to $2,400" is the speaker's
        if v.kind not in _AMOUNT_KINDS or v.approx and v.kind == "number" and v.number < 10:
            continue
        if v.kind == "number" and (v.said.casefold() in ("one", "a", "an", "一") or _time_after(clause[v.end:])):
            continue  # "the old one broke", "two days ago": no amount
        if _not_held(clause, v, prev):
            prev = v.end
            continue  # "goal is 180", 目标减到65, "down 9 pounds", 比目标还少三公斤, "another 140"
        prev = v.end
        near = _named(clause, v)
        attr = near[0][1] if near else ""
        if not attr:  # the sentence, then the turn ("My raise finally went through, seventy-two thousand now.")
            for scope in (sentence, text):
                at = scope.find(clause)
                if at < 0:
                    continue
                shifted = Value(v.number, v.kind, v.unit, v.period, v.approx, v.start + at, v.end + at, v.text,
                                v.base, v.said, v.measure)
                near = _named(scope, shifted)
                if near:
                    attr = near[0][1]
                    cut[attr] = sentence  # the fact's words hold the word naming it ("工资涨了，现在每个月38000。")
                    break
        if not attr and v.period and not _someone_else(sentence):  # "the landlord raised it again, 7000 a month": an
            # amount per period, its topic said
            attr = _topic(sentence) or _topic(text)
            if attr:
                cut[attr] = sentence
        if not attr and (_new_said(clause) or _reached(clause[:v.start])):
            if v.kind == "number" and (v.measure or re.search(r"\b(?:left|total|count)\b|剩", clause, re.I)):
                attr = _counted_claims(claims, v)
            if not attr:
                attr = _by_meaning(claims, v)
        if attr:
            said = v.text + v.measure if v.measure and clause[v.end:].startswith(v.measure) else v.text
            out.append((attr, said))  # (剩五盆了: "五盆")
    return out


def quantity_facts(text: str, *, entity: str = "user", claims: Callable[[], list[Any]] | None = None) -> list[Fact]:
    """The amount, age and count facts of one user turn (at most one per slot, the last said winning: "from 1,850
    to 2,050" is 2,050). ``claims()``: the user's current fact memories (items with ``fact`` and ``text``), read
    only when a value names no attribute itself. Never raises."""
    from .jobs import open_clauses

    if not parse(text):
        return []  # no number said: nothing to read (most turns; the clause gates are not run)
    got = claims or (lambda: [])
    cache: list[list[Any]] = []

    def listed() -> list[Any]:
        if not cache:
            cache.append(list(got()))
        return cache[0]

    found: dict[str, Fact] = {}
    for clause, sentence, _lang, other in open_clauses(text):
        cut: dict[str, str] = {}
        others = other and not _own_subject(clause) and not _acts_for(sentence)  # ("Our landlady bumped it up,
        for attr, value in _read(clause, sentence, text, listed, cut, others):  # 1950 a month": the clause goes on)
            f = _fact(attr, value, cut.get(attr, clause), sentence, entity)
            if f is not None:
                found.pop(attr, None)
                found[attr] = f
    return list(found.values())


def merge_quantity_facts(found: list[Fact], quantities: list[Fact]) -> list[Fact]:
    """The turn's facts with the quantity reader's joined: a reading whose slot another reader filled, or whose
    number another reader's fact of the turn already holds (in whatever slot), is left out."""
    out = list(found)
    for q in quantities:
        if any(f.attribute == q.attribute for f in out):
            continue
        if any(f.polarity > 0 and same_number(str(f.value), q.value) for f in out):
            continue
        out.append(q)
    return out
