"""Clause frames: change detection as subject + verb class + slot + value, from language data.

One clause states a fact of the speaker's when:

- its **subject** is the speaker ("I", "we", 我, 我们; no subject at all in a user's turn is the speaker too:
  "Just moved to Oslo"), or the slot noun is the speaker's ("my rent", "our rent", a bare "Rent's now 975",
  我的房租, 房租 after 把: "房东把房租提高到3500了"), or a topicalised object stands before the speaker ("奶茶我戒了");
  someone else as the subject ("my sister", "she", 我朋友, 他) or as the possessor ("my neighbour's rent",
  我朋友的房租) gives nothing;
- its **verb** is of a class of ``classes`` in ``data/lang/<lang>/frames.json`` (move, join, leave, become, stop,
  switch, ...), which names the slot (``home_city``, ``employer``, ``occupation``, ``does``) and the value type it
  takes after the verb (a place, an organisation, a job noun, a thing, a number); or the clause holds a **slot noun**
  (``slot_nouns``, ``slots.numeric_slots``: rent / 房租, salary / 工资, phone / 手机号, home) with a number or a place
  after it, a person of the speaker's with an age ("my son ... turning 5", 我儿子 ... 六岁), or a number whose unit
  names its slot (``unit_slots``: "74 kg" -> weight);
- a switch verb with a slot noun ("I switched jobs", 我换工作了, 我换手机号了) names the slot a later clause of the
  sentence fills with its value ("..., now at Cisco", "...，现在在美团"): :func:`frame_facts` returns that slot as
  ``pending`` for the next clause.

The caller (:func:`anchormem.facts.rules.extract_from_text`) applies the mood gates first (questions,
hypotheticals, modals and plans, reported speech: ``cues.json``), so a frame is only read from a clause that states
something. Nothing is read or compiled before first use.

    frame_facts("The landlord hiked our rent to 2200")  -> ([("rent", "2200", 1)], "")
    frame_facts("烟我已经戒掉了")                           -> ([("does:smoke", "烟", -1)], "")
    frame_facts("我换工作了")                               -> ([], "employer")
    frame_facts("现在在美团", pending="employer")           -> ([("employer", "美团", 1)], "")
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import has_cjk
from . import triggers
from .keys import cut_zh_time
from .values import duration_at

__all__ = ["frame_facts", "merge_frames", "Frame", "pronoun_slots", "slots_named"]

Frame = tuple[str, str, int]  # (attribute, value, polarity)
_CAP = r"(?-i:[A-Z])[\w&.'-]*(?:\s+(?:(?-i:[A-Z])[\w&.'-]*|of|de|la|am|&)(?!\w))*"


@lru_cache(maxsize=1)
def _num_zh() -> str:
    """A Chinese number as a regex: digits or the numeral characters of data/lang/zh/values.json."""
    return rf"(?:\d[\d,.]*|[{langdata.load('values', 'zh').get('numerals', '')}]+)"


def _data(lang: str) -> dict[str, Any]:
    return langdata.load("frames", lang)


@lru_cache(maxsize=2)
def _compiled(lang: str) -> dict[str, Any]:
    """Regexes built from the frames data of ``lang`` (first use only)."""
    from .keys import not_job_words, occupation_en, occupation_zh, person_modifiers, relation_pattern, relation_words

    persons = relation_words()  # kin, friends, parents, in-laws

    d = _data(lang)
    alt = langdata.alternation
    flags = 0 if lang == "zh" else re.I
    wb = (lambda p: p) if lang == "zh" else (lambda p: r"(?:(?<=\w)(?=['’])|(?<![\w'’]))(?:" + p + r")(?!\w)")
    numeric = {w: k for k, ws in langdata.load("slots", lang).get("numeric_slots", {}).items() for w in ws}
    nouns = {w: k for k, ws in d.get("slot_nouns", {}).items() for w in ws}
    nouns.update(numeric)
    out: dict[str, Any] = {
        "nouns": nouns, "numeric": set(numeric.values()),
        "noun_rx": re.compile(wb(alt(tuple(nouns))), flags),
        "classes": [(name, spec, re.compile(wb(alt(tuple(spec["verbs"]))), flags),
                     tuple(sorted(spec.get("preps", []), key=len, reverse=True)))
                    for name, spec in d.get("classes", {}).items()],
        "switch_nouns": {w: k for k, ws in d.get("switch_nouns", {}).items() for w in ws},
        "other": re.compile(wb(alt(tuple(d.get("other_subjects", []))) + "|" +
                               (relation_pattern(True, persons) if lang == "zh" else
                                r"(?:my|our)\s+(?:" + person_modifiers() + r"\s+)*(?:" +
                                relation_pattern(False, persons) + r")s?")), flags),
        "speaker": re.compile(wb(alt(tuple(d.get("speaker", []))).replace("'", "['’]")), flags),
        "units": {u.casefold(): s for u, s in d.get("unit_slots", {}).items()},
        "stop": tuple(sorted(d.get("value_stop", []), key=len, reverse=True)),
        "skip": {w.casefold() for w in d.get("thing_skip", [])},
        "pending": tuple(sorted(d.get("pending_markers", []), key=len, reverse=True)),
        "verb_use": re.compile(r"(?<![\w'’])(?:" + alt(tuple(d["verb_subjects"])).replace("'", "['’]") + r")\s+$", flags)
        if d.get("verb_subjects") else None,
        "coordinated": re.compile(r"(?<![\w'’])(?:" + alt(tuple(d["speaker"])).replace("'", "['’]") + r")\s[^.!?;:]*\s(?:" +
                                  alt(tuple(d["verb_coordinators"])) + r")\s+$", flags)
        if d.get("verb_coordinators") else None,
    }
    if lang == "zh":
        out["job"] = re.compile(r"^(?:一名|一个|一位|名)?(?P<v>[\u4e00-\u9fff]{0,4}?" + occupation_zh() + ")")
        out["person"] = re.compile(r"(?:我的?|我们的?)?(?P<p>" + relation_pattern(True, persons) + ")")
        out["unit_rx"] = re.compile(rf"(?P<v>{_num_zh()}\s*(?:{alt(tuple(out['units']))}))")
    else:
        out["job"] = re.compile(r"^(?:an?\s+)?(?P<v>(?:(?!" + not_job_words() + r"\b)[\w-]+\s+){0,2}?" + occupation_en() +
                                r")(?!['’]s\b)", re.I)
        out["person"] = re.compile(r"\b(?:my|our)\s+(?P<p>(?:" + person_modifiers() + r"\s+)*(?:" +
                                   relation_pattern(False, persons) + r"))\b", re.I)
        out["unit_rx"] = re.compile(rf"(?P<v>\d[\d,.]*\s*(?:{alt(tuple(out['units']))}))\b", re.I)
        out["age"] = re.compile(r"(?:\b(?:" + alt(tuple(d.get("age_cues", []))) + r")\s+(?:now\s+)?(?:age\s+)?"
                                r"(?P<v>\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"
                                r"|\b(?P<w>\d{1,3})\s*(?:" + alt(tuple(d.get("age_after", []))) + r")\b)", re.I)
    return out


def said_as_verb(before: str, after: str, lang: str) -> bool:
    """A slot noun between ``before`` and ``after`` is a verb: after a ``verb_subjects`` word ("I pay 120 a month"),
    or coordinated with the speaker's earlier verb and taking its object at once ("I rent a flat in Austin and pay
    $1,800 a month": ``verb_coordinators`` of frames.json; not "…and pay is $5,000")."""
    c = _compiled(lang)
    if c["verb_use"] is not None and c["verb_use"].search(before):
        return True
    return c["coordinated"] is not None and bool(c["coordinated"].search(before)) and \
        bool(re.match(r"\s*(?:[$€£¥]|\d|about\b|around\b|like\b|roughly\b)", after, re.I))


def slots_named(text: str) -> frozenset[str]:
    """The slot keys the nouns of ``text`` name, in either language (``slot_nouns`` and ``slots.numeric_slots`` of
    en and zh: "my rent" -> rent, 工资 / 月薪 -> salary, 会员费 -> membership, 手机号 -> phone), for telling what an
    amount is the amount of. A noun used as a verb ("I pay 120 a month for my gym") names nothing.

        slots_named("工资涨了，现在每个月38000。") -> frozenset({"salary"})
    """
    out: set[str] = set()
    for lang in ("en", "zh"):
        if lang == "zh" and not has_cjk(text):
            continue
        c = _compiled(lang)
        for m in c["noun_rx"].finditer(text):
            if said_as_verb(text[: m.start()], text[m.end():], lang):
                continue
            out.add(c["nouns"][m.group(0).casefold() if lang == "en" else m.group(0)])
    return frozenset(out)


# -- subjects and owners -----------------------------------------------------------------------------------------
def _who(pre: str, lang: str, inherited: str) -> str:
    """The subject of the words before a verb: "speaker", "other", or ``inherited`` (none said)."""
    c = _compiled(lang)
    sp = list(c["speaker"].finditer(pre))
    ot = [m for m in c["other"].finditer(pre)]
    if lang == "zh":  # 我朋友 / 我弟弟: someone else, though it starts with 我
        ot += [m for m in _compiled("zh")["person"].finditer(pre) if m.group(0).startswith("我")]
    if not sp and not ot:
        if lang == "en" and re.search(r"(?-i:\b[A-Z][a-z]+)\s*$", pre.strip()) and pre.strip() not in ("", "Now"):
            return "other"  # "Anna moved to Rome"
        return inherited
    last_sp = max((m.start() for m in sp), default=-1)
    last_ot = max((m.start() for m in ot), default=-1)
    if lang == "zh" and last_sp >= 0 and any(m.start() == last_sp for m in ot):
        return "other"
    return "speaker" if last_sp > last_ot else "other"


def _owner(pre: str, lang: str, inherited: str) -> str:
    """Whose is a slot noun, from the words just before it: "my rent" / 我的房租 / a bare "rent" -> "speaker";
    "my neighbour's rent" / "her rent" / 我朋友的房租 -> "other"."""
    p = pre.rstrip()
    if lang == "zh":
        m = re.search(r"(?P<x>[\u4e00-\u9fff]{0,6})的$", p)
        if m:
            x = m.group("x")
            return "speaker" if re.search(r"(?:我们家|我们|我家|我)$", x) and not _compiled("zh")["person"].search(x) \
                else "other" if x else "speaker"
        if re.search(r"[把将]\s*$", p):
            return "speaker"  # 房东把房租提高到…: the speaker's rent (no one else's is said)
        return _who(p, lang, inherited or "speaker")
    m = re.search(r"(?:(?P<poss>\w+)['’]s|(?P<pron>my|our|his|her|their|your|the|a))\s*$", p, re.I)
    if m and m.group("poss"):
        return "other" if m.group("poss").casefold() not in ("i", "it") else "speaker"
    if m and m.group("pron"):
        pron = m.group("pron").casefold()
        if pron in ("my", "our"):
            return "speaker"
        if pron in ("his", "her", "their", "your"):
            return "other"
    return _who(p, lang, inherited or "speaker") if p else (inherited or "speaker")


# -- values ------------------------------------------------------------------------------------------------------
def _cut(v: str, lang: str) -> str:
    stops = _compiled(lang)["stop"]
    if lang == "zh":
        v = re.split(r"[，。！？,.!?；;]", v)[0]
        v = cut_zh_time(v)  # "烟第三天了": the time after the thing goes whole, not a stop word out of it (烟第)
        changed = True
        while changed:
            changed = False
            for s in stops:
                if v.endswith(s) and len(v) > len(s):
                    v, changed = v[: -len(s)], True
        return v.strip()
    words = v.split()
    for i, w in enumerate(words):
        if w.casefold().strip(",.;!?") in stops or any(" ".join(words[i:]).casefold().startswith(s + " ")
                                                     for s in stops if " " in s):
            words = words[:i]
            break
    return re.sub(r"[\s,.;:!?]+$", "", " ".join(words))


def _not_place(v: str) -> bool:
    """A seat, floor, team or tool, not a place (``not_places`` of data/lang/*/slots.json)."""
    if has_cjk(v):
        return any(w in v for w in langdata.words("slots", "not_places", ("zh",)))
    words = {w.casefold() for w in re.findall(r"[\w']+", v)}
    return bool(words & set(langdata.words("slots", "not_places")))


def _value(kind: str, rest: str, lang: str) -> str | None:
    """The value of type ``kind`` at the start of ``rest`` (the words after the verb)."""
    if kind == "phone":  # digit groups with spaces, dashes, dots or parentheses: "07700 900123", "+44 (0)20 7946"
        m = re.search(r"\+?\(?\d[\d\s().-]{4,}\d", rest)
        return m.group(0).strip() if m and sum(ch.isdigit() for ch in m.group(0)) >= 6 else \
            _value("number", rest, lang)
    c = _compiled(lang)
    r = rest.strip()
    if kind in ("none", "before"):
        return None
    if lang == "zh":
        if kind == "job":
            m = c["job"].match(r)
            return m.group("v") if m else None
        if kind == "number":
            return _number(r, lang)
        v = _cut(r, lang)
        if not v or v in c["stop"]:
            return None
        if not v or len(v) > 12 or v in c["skip"] or (kind == "place" and _not_place(v)):
            return None
        return v
    if kind == "place" or kind == "org":
        m = re.match(r"(?:the\s+)?(?P<v>" + _CAP + ")", r)
        if not m:
            return None
        v = _cut(m.group("v"), lang)
        if kind == "org" and v == m.group("v"):  # "Santa Maria hospital": a lowercase head ends the name
            heads = langdata.alternation(tuple(langdata.load("frames", "en").get("org_heads", [])))
            h = re.match(r"\s+(?:" + heads + r")\b", r[m.end():], re.I) if heads else None
            v = v + h.group(0) if h else v
        if not v or v.casefold() in c["skip"] or (kind == "place" and _not_place(v)):
            return None
        return v
    if kind == "job":
        m = c["job"].match(r)
        return m.group("v") if m else None
    if kind == "number":
        return _number(r, lang)
    if kind in ("thing", "verb"):
        r = re.sub(r"^(?:eating|drinking|playing|doing|having|taking|going to|using)\s+", "", r, flags=re.I) \
            if kind == "thing" else r
        v = _cut(r, lang)
        v = re.sub(r"^(?:the|my|all|any|on|a single|a|an)\s+(?=\w)", "", v, flags=re.I)  # "without a cigarette"
        if not v or v.casefold() in c["skip"] or len(v.split()) > 4 or \
                re.match(r"(?:it|that|this|them|by|at|in|on|to|for|from|with|out|up|down|over|off)\b", v, re.I):
            return None
        if kind == "verb":
            from lemminflect import getLemma  # lazy: tables load on first use

            w = re.sub(r"^(?:an?|one|a single)\s+(?=\w)", "", v, flags=re.I).split()[0].casefold()  # "had a drink"
            return (getLemma(w, upos="VERB") or (w,))[0]
        return v
    return None


def _number(text: str, lang: str) -> str | None:
    """The first amount in ``text`` as said, with its unit and period ("$2,050", "seventy-two thousand", 三千五,
    "1400 a month"; a numeral before a period, 一个月2000, is the period's): :func:`anchormem.facts.values.parse`."""
    from .values import parse

    for v in parse(text, lang):
        if v.kind in ("money", "weight", "duration", "number"):
            return v.text
    return None


def _after(rest: str, preps: tuple[str, ...], lang: str) -> str:
    r = rest.lstrip()
    for p in preps:
        if lang == "zh" and r.startswith(p):
            return r[len(p):]
        if lang != "zh" and re.match(re.escape(p) + r"\b", r, re.I):
            return r[len(p):]
    return r


# -- frames ------------------------------------------------------------------------------------------------------
def _noun_frames(clause: str, lang: str, inherited: str, bare: bool = True) -> list[Frame]:
    """Frames from a slot noun of the speaker's with its value: "our rent ... to 2200", 我的房租涨到3500. Without
    ``bare`` a slot noun nobody owns in words ("…，月租4500元") is not read (a later clause of a sentence)."""
    c = _compiled(lang)
    out: list[Frame] = []
    for m in c["noun_rx"].finditer(clause):
        slot = c["nouns"][m.group(0).casefold() if lang == "en" else m.group(0)]
        pre = clause[: m.start()]
        if _owner(pre, lang, inherited) != "speaker":
            continue
        if said_as_verb(pre, clause[m.end():], lang):
            continue  # "I pay 120 a month for my gym", "I rent a flat and pay 1,800": the verb, not the salary
        if not bare and not re.search(r"\b(?:my|our)\s*$|我们?(?:家)?的?\s*$|[把将]\s*$", pre, re.I):
            continue
        rest = clause[m.end():]
        if slot in c["numeric"] or slot == "phone":
            to = re.search(r"\bto\b|到|至|成" if lang == "en" else r"到|至|成", rest)
            v = _value("phone" if slot == "phone" else "number", rest[to.end():] if to else rest, lang)
            if v and not re.match(r"\s*(?:years?|months?|weeks?|days?|年|个月|天)\b", rest[rest.find(v) + len(v):]):
                out.append((slot, v.strip(), 1))
        elif slot == "home_city":
            got = re.match(r"\s*(?:is|'s|are)?\s*(?:now\s+)?(?:in\s+)?" if lang == "en" else r"\s*(?:现在)?(?:在|是)", rest)
            v = _value("place", rest[got.end():], lang) if got and got.group(0).strip() else None
            if v:
                out.append(("home_city", v, 1))
        elif slot in ("employer", "occupation"):
            got = re.match(r"\s*(?:is|'s)\s+(?:now\s+)?" if lang == "en" else r"\s*(?:现在)?是", rest)
            v = _value("org" if slot == "employer" else "job", rest[got.end():], lang) if got else None
            if v:
                out.append((slot, v, 1))
        if out:
            break
    return out


def _age_frames(clause: str, lang: str) -> list[Frame]:
    """A person of the speaker's with an age: "my son celebrated turning 5", 我儿子上个月过了六岁生日."""
    from .keys import person_key

    c = _compiled(lang)
    p = c["person"].search(clause)
    if not p or (lang == "zh" and not clause.lstrip().startswith(("我", p.group("p")))):
        return []
    rest = clause[p.end():]
    future = _data(lang).get("future_markers", [])
    if any((f in rest) if lang == "zh" else re.search(r"(?<![\w'])" + re.escape(f) + r"\b", rest, re.I) for f in future):
        return []  # a birthday to come ("turns 30 on the 14th", 下个月满六岁): not the age now
    if lang == "zh":
        m = re.search(rf"(?P<v>{_num_zh()})\s*(?:周)?岁", rest)
        v = m.group("v") + "岁" if m else None
    else:
        m = c["age"].search(rest)
        v = (m.group("v") or m.group("w")) if m else None
    if not v:
        return []
    return [(f"{person_key(p.group('p')).casefold().replace(' ', '_')}_age", v, 1)]


def _speaker_age_frames(clause: str, lang: str, inherited: str) -> list[Frame]:
    """The speaker's own age, now: "I'm 34", "I just turned 35" (``speaker_age_openers`` / ``speaker_age_after`` of
    en/frames.json), 我今年32岁 or, after a clause of the speaker's, "今年32岁" (``age``, value "32岁"); not a birthday
    to come (``future_markers``), not an age in the past (``speaker_age_past``: 我18岁那年…), not someone else's."""
    d = _data(lang)
    if lang == "zh":
        body = clause.strip()
        if not (body.startswith("我") and not body.startswith("我们") or inherited == "speaker") or \
                _compiled(lang)["person"].search(body) or any(f in body for f in d.get("future_markers", [])):
            return []
        m = re.search(rf"^(?:我)?(?:今年|现在|已经|都|也)*(?P<v>{_num_zh()})\s*(?:周)?岁(?:了|啦)?", body)
        if not m or any(body[m.end():].lstrip().startswith(w) for w in d.get("speaker_age_past", [])):
            return []
        return [("age", m.group("v") + "岁", 1)]
    openers = d.get("speaker_age_openers", [])
    if not openers:
        return []
    alt = langdata.alternation(tuple(openers)).replace("'", "['’]")
    after = langdata.alternation(tuple(d.get("speaker_age_after", [])))
    m = re.match(rf"\s*(?:{alt})\s+(?P<v>\d{{1,3}})(?:\s+(?:{after}))?\s*(?:[,.!;]|and\b|$)", clause, re.I)
    if not m or not 5 <= int(m.group("v")) <= 120:
        return []
    return [("age", m.group("v"), 1)]


def _pronoun_age_frames(clause: str, lang: str) -> list[Frame]:
    """An age said of a pronoun ("She's now 7", 她现在7岁了): ``<pronoun>_age``, resolved by the reconcile step to
    the one current ``<person>_age`` the pronoun can stand for (``pronoun_persons``; :func:`pronoun_slots`)."""
    c = _compiled(lang)
    for pron in _data(lang).get("pronoun_persons", {}):
        if lang == "zh":
            if not clause.lstrip().startswith(pron):
                continue
            m = re.search(rf"(?P<v>{_num_zh()})\s*(?:周)?岁", clause)
            v = m.group("v") + "岁" if m else None
        else:
            if not re.match(r"\s*" + _pronoun_said(pron), clause, re.I):
                continue
            m = c["age"].search(clause)
            v = (m.group("v") or m.group("w")) if m else None
        if v:
            return [(f"{pron}_age", v, 1)]
    return []


def _pronoun_said(pron: str) -> str:
    """An English pronoun as the subject of an age ("She's", "he just turned")."""
    return rf"{pron}(?:['’]s|\s+is|\s+just|\s+turned|\s+turns)\b"


def pronoun_slots(attribute: str) -> list[str] | None:
    """The person age slots an anaphoric ``<pronoun>_age`` can stand for ("she_age" -> ["daughter_age", ...]);
    None when ``attribute`` is no such slot."""
    head, sep, rest = attribute.partition("_")
    if rest != "age":
        return None
    for lang in langdata.LANGUAGES:
        persons = _data(lang).get("pronoun_persons", {}).get(head)
        if persons:
            return [f"{p}_age" for p in persons]
    return None


def _unit_frames(clause: str, lang: str, inherited: str) -> list[Frame]:
    """A number whose unit names its slot, said by the speaker: "I've dropped to 74 kg", 我现在只有65公斤了; with no
    subject said, only as a value now ("Down to 83kg", "83kg now": an inchoative marker; 62公斤了, 掉到62kg:
    ``now_after`` / ``reached_before`` of frames.json); never one followed by what it
    weighs ("80 kg of flour": ``measured_after`` of frames.json; 两公斤鱼: a Chinese word after the unit other than
    the ``value_after`` of zh/frames.json, 了, 的, 左右)."""
    from .aspect import inchoative

    c = _compiled(lang)
    m = c["unit_rx"].search(clause)
    if not m or _who(clause[: m.start()], lang, inherited or "speaker") != "speaker":
        return []
    after = clause[m.end():].lstrip()
    if _who(clause[: m.start()], lang, "") != "speaker" and not inchoative(clause) and \
            not after.startswith(tuple(_data(lang).get("now_after", []))) and \
            not clause[: m.start()].rstrip().casefold().endswith(tuple(_data(lang).get("reached_before", []))):
        return []  # no subject and nothing said to hold now: "一袋十斤", "June, 7lb 2oz." weigh something else
    if lang == "zh" and re.match(r"[\u4e00-\u9fff]", after) and not after.startswith(
            tuple(_data(lang).get("value_after", []))) or lang == "en" and any(
            re.match(re.escape(w) + r"\b", after, re.I) for w in _data(lang).get("measured_after", [])):
        return []  # "两公斤鱼", "80 kg of flour": the number weighs the thing after it
    unit = re.sub(r"^" + _num_zh() + r"\s*", "", m.group("v")).casefold()
    slot = c["units"].get(unit)
    return [(slot, m.group("v").strip(), 1)] if slot else []


def _topicalised(clause: str) -> tuple[str, str] | None:
    """A Chinese object said before the speaker: "奶茶我戒了" -> ("奶茶", "我戒了")."""
    m = re.match(r"^\s*(?P<o>[\u4e00-\u9fff]{1,6}?)(?:呢|啊|嘛|吧)?[，,\s]*(?P<r>我(?:们)?.*)$", clause)
    if not m or m.group("o").endswith(("我", "的")) or re.search(r"现在|已经|最近|今年|去年|上个?月|刚", m.group("o")):
        return None
    return m.group("o"), m.group("r")


def _amount_only(v: str) -> bool:
    """Chinese words that are only an amount or a frequency (一天一杯, 两根, 每周一次): no thing in them (numerals,
    units and measure words of ``time_trail`` / ``measure_words`` of data/lang/zh/slots.json)."""
    d = langdata.load("slots", "zh")
    t = d.get("time_trail", {})
    nums = "".join(t.get("numerals", ())) + "0-9每"
    units = langdata.alternation(tuple(t.get("units", ())) + tuple(d.get("measure_words", ())) +
                                 tuple(d.get("amount_measures", ())))
    return bool(re.fullmatch(r"(?:[" + nums + r"]+(?:" + units + r")?)+(?:左右|以内|以下)?", v))


def _ba_object(pre: str) -> str:
    """The object put before the verb by 把 ("我把咖啡减到..." -> 咖啡), "" without one."""
    m = re.search(r"把(?P<o>[\u4e00-\u9fff]{1,6})\s*$", pre)
    return m.group("o") if m else ""


def _verb_frames(clause: str, lang: str, inherited: str) -> tuple[list[Frame], str]:
    """Frames from a verb class: each verb found, leftmost (then longest) first, until one gives a value."""
    c = _compiled(lang)
    found = sorted(((m.start(), -(m.end() - m.start()), i, m) for i, (_, _, rx, _) in enumerate(c["classes"])
                    for m in rx.finditer(clause)), key=lambda x: x[:3])
    left = ""
    for _, _, i, m in found:
        got, sets = _one_verb(clause, lang, inherited, c["classes"][i], m)
        if got:
            return got, ""
        left = left or sets
    return [], left


def _one_verb(clause: str, lang: str, inherited: str, cls: tuple, m: re.Match) -> tuple[list[Frame], str]:
    from .subjects import possessed_subject

    c = _compiled(lang)
    name, spec, _, preps = cls
    pre, rest = clause[: m.start()], clause[m.end():]
    topic = _topicalised(clause) if lang == "zh" else None
    if topic and topic[1] and m.start() >= len(clause) - len(topic[1]):
        pre = clause[len(clause) - len(topic[1]): m.start()]
    if _who(pre, lang, inherited or "speaker") != "speaker":
        return [], ""
    slot, kind, pol = spec.get("slot", ""), spec.get("value", "none"), int(spec.get("polarity", 1))
    if slot and possessed_subject(pre, lang):
        return [], ""  # "my bestie moved", 我舍友搬去: a possessed noun is the subject (:mod:`.subjects`)
    if name == "switch":
        r = re.sub(r"^(?:my|our|a|the)\s+", "", rest.strip(), flags=re.I)
        for noun, s in sorted(c["switch_nouns"].items(), key=lambda kv: -len(kv[0])):
            if (r.casefold() if lang == "en" else r).startswith(noun):
                got = _pending_value(s, r[len(noun):], lang)
                return ([(s, got, 1)], "") if got else ([], s)
        # the noun as the subject ("我的手机号换了，新号码是…", "my number changed, it's now …"): the speaker's own
        tail = langdata.alternation(langdata.words("frames", "subject_tail", (lang,)))
        subj = re.sub(r"(?:\s+(?:" + tail + r"))+\s*$", "", pre.rstrip(), flags=re.I) if lang == "en" \
            else re.sub(r"(?:" + tail + r")+$", "", pre.rstrip())
        owner = r"(?:^|\s)(?:my|our)\s+$" if lang == "en" else r"^(?:我们?的?)$"
        for noun, s in sorted(c["switch_nouns"].items(), key=lambda kv: -len(kv[0])):
            k = (subj.casefold() if lang == "en" else subj).rfind(noun)
            if k >= 0 and k + len(noun) == len(subj) and re.search(owner, subj[:k], re.I):
                got = _pending_value(s, rest, lang)
                return ([(s, got, 1)], "") if got else ([], s)
        return [], ""
    if kind == "before":  # 在成都生活, 在华为上班: the value is the words after 在 before the verb
        b = re.search(r"在(?P<v>[^在，。！？,.!?；;]{1,12})$", pre)
        v = _cut(b.group("v"), lang) if b else None
        if v and not (slot == "home_city" and _not_place(v)):
            return [(slot, v, pol)], ""
        return [], ""
    v = _value(kind, _after(rest, preps, lang), lang)
    if v and lang == "zh" and kind == "thing" and _amount_only(v):  # 咖啡减到一天一杯, 我把咖啡减到一天一杯
        thing = topic[0] if topic else _ba_object(pre)
        v = v + thing if thing else None  # the amount of the thing said before the verb: 一天一杯咖啡
    if v is None and kind == "thing" and topic:
        v = topic[0]
    if v is None:
        return [], spec.get("sets", "")
    out: list[Frame] = []
    if slot == "does" and c["switch_nouns"].get(re.sub(r"^(?:my|our)\s+", "", v.casefold())) == "employer":
        out.append(("employer", v, pol))  # "I quit my job", 工作我辞了: the employer ends, whichever it is
    elif slot == "does":
        from .keys import topic_key

        at = duration_at(v)  # "戒烟两个月了": the habit is 烟, not 烟两个月
        v = v[:at].rstrip() if at > 0 else v
        out.append((f"does:{topic_key(v)}", v, pol))
    else:
        out.append((slot, v, pol))
    if kind == "job":  # "I'm a software engineer at Meta": the employer too
        tail = _after(rest, preps, lang)
        j = tail.find(v) + len(v)
        at = re.match(r"\s+(?:at|for|with)\s+" if lang == "en" else r"\s*在", tail[j:])
        if at:
            org = _value("org", tail[j + at.end():], lang)
            if org:
                out.append(("employer", org, 1))
    return out, spec.get("sets", "") if pol < 0 else ""


def _pending_value(slot: str, text: str, lang: str) -> str | None:
    """The value of ``slot`` said in a clause that goes on from a switch ("now at Cisco", 现在在美团, 新号码是139…)."""
    c = _compiled(lang)
    t = text.strip().lstrip(",，").strip()
    lead = r"^(?:(?:and|so|but|then|now|currently|these days|today)\s+|(?:I'm|I am|I've|we're|we are|I|we)\s+)+" \
        if lang == "en" else r"^(?:我们|我|然后|现在|目前|如今|已经|也)+"
    t = re.sub(lead, "", t, flags=re.I).strip()
    t2 = t
    for mk in c["pending"]:
        if lang == "zh" and t.startswith(mk):
            t2 = t[len(mk):]
            break
        if lang != "zh" and re.match(re.escape(mk) + r"\s+", t, re.I):
            t2 = t[len(mk):]
            break
    kind = {"employer": "org", "home_city": "place", "phone": "phone"}.get(slot, "")
    return _value(kind, t2, lang) if kind else None


def _gates() -> list[Any]:
    """Every pattern a frame needs to match (facts.triggers): slot nouns, persons, units, verbs of the classes, the
    pronouns an age is said of and the speaker's own age, in each language with frames data."""
    out: list[Any] = []
    for lang in langdata.LANGUAGES:
        if not _data(lang):
            continue
        c = _compiled(lang)
        out += [c["noun_rx"], c["person"], c["unit_rx"]] + [rx for _, _, rx, _ in c["classes"]]
        out += [re.escape(p) if lang == "zh" else re.compile(_pronoun_said(p), re.I)
                for p in _data(lang).get("pronoun_persons", {})]
        out += ["岁"] if lang == "zh" else [re.escape(v) for w in _data(lang).get("speaker_age_openers", [])
                                             for v in {w, w.replace("'", "’")}]  # (the speaker's age)
    return out


triggers.declare("frames", _gates)


def frame_facts(clause: str, *, inherited: str = "", pending: str = "", first: bool = True) -> tuple[list[Frame], str]:
    """``([(attribute, value, polarity)], pending_slot)`` read from one clause (see the module doc).

    ``inherited``: the subject of the previous clause ("speaker" / "other" / ""), for a clause without one;
    ``pending``: the slot a previous clause's switch verb left open ("employer" after "I switched jobs");
    ``first``: the clause starts its sentence (a later one reads a slot noun only when its owner is said).
    The returned ``pending_slot`` is the slot this clause leaves open ("" for none). Never raises on any text."""
    text = clause.strip()
    if not text or not pending and not triggers.may_read("frames", text):
        return [], ""  # (no literal any frame needs: facts.triggers)
    langs = ("zh", "en") if has_cjk(text) else ("en",)
    for lang in langs:
        if not _data(lang):
            continue
        if pending:
            v = _pending_value(pending, text, lang)
            if v and _who(text[: max(text.find(v), 0)], lang, inherited or "speaker") == "speaker":
                return [(pending, v, 1)], ""
        for fn in (_noun_frames, _age_frames, _pronoun_age_frames, _speaker_age_frames, _unit_frames):
            got = _noun_frames(text, lang, inherited, first) if fn is _noun_frames else \
                fn(text, lang, inherited) if fn in (_unit_frames, _speaker_age_frames) else fn(text, lang)
            if got:
                return got, ""
        got, left = _verb_frames(text, lang, inherited)
        if got or left:
            return got, left
    return [], ""


def merge_frames(changes: list[tuple[str, str, int]], got: tuple[str, str, int, str] | None,
                 frames: list[tuple[str, str, int]], clause: str) -> tuple[list[tuple[str, str, int]],
                                                                        tuple[str, str, int, str] | None]:
    """The clause's facts with its frames (:func:`~anchormem.facts.frames.frame_facts`) joined. The change patterns
    and rules keep their reading; the frames fill a clause they left empty, add the companion slot of a slot they
    agree on ("I'm a software engineer at Meta": the employer beside the job) and replace a habit the rules misread
    when the frame found its object said before the speaker ("烟我已经戒掉了": ``does:smoke``, not ``does:掉``)."""
    if not frames:
        return changes, got
    if not changes and not got:
        return list(frames), None
    if got and got[3] != "user":
        return changes, got  # a third person's fact ("Person Q lives in Y")
    have = {c[0] for c in changes} | ({got[0]} if got else set())
    head = frames[0]
    if got and not changes and got[0].startswith(("does:", "likes:")) and head[0].startswith("does:") and \
            head[0] != got[0] and head[2] == got[2] and has_cjk(clause) and \
            0 <= clause.find(head[1]) < clause.find("我"):
        return [head], None  # the topicalised object
    if head[0] not in have:
        return changes, got
    said = {c[1].casefold() for c in changes} | ({got[1].casefold()} if got else set())
    extra = [f for f in frames[1:] if f[0] not in have and f[1].casefold() not in said]
    if not extra:
        return changes, got
    if got and not changes:  # the rules' fact, then the frame's companion slot
        return [(got[0], got[1], got[2])] + extra, None
    return changes + extra, got
