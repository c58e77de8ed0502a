"""Change detection from language data: a statement that a slot's value changed, ended or was counted anew.

The patterns live in ``data/lang/<lang>/changes.json`` (:mod:`anchormem.langdata`), as regex templates over
placeholders this module fills from the other data files: ``{SLOT}`` a numeric slot noun ("rent", 房租, "salary",
工资, "weight"; ``slots.numeric_slots``), ``{CHANGE}`` a change verb ("went up to", 涨到; ``changes.numeric_change``),
``{NUM}`` an amount ("1350", "1,350 euros", "两万五"), ``{WEIGHT}`` / ``{AGE}``, ``{PERSON}`` a relative
(:func:`~anchormem.facts.keys.person_words`), ``{JOB}`` a job noun, ``{JOBACT}`` a job as an activity ("nursing";
``slots.job_activities``), ``{ORG}`` an organisation, ``{PLACE}`` a place, ``{COUNT}`` a number and a counted noun
("three cats", 三只猫), ``{NAMES}`` a list of names ("Tom and Jerry", 咪咪和花花), ``{I}`` the speaker (I / we, 我 / 我们)
and ``{ADV}`` adverbs ("just", "now", 已经, 现在; ``cues.adverbs``).

:func:`clause_changes(clause)` and :func:`sentence_changes(sentence)` return ``[(attribute, value, polarity)]``;
:func:`blocked(clause)` says a clause states no fact of the speaker's: a modal or plan ("I might move", "我可能会搬到"),
reported speech ("My boss said she moved", "他说他搬到了"). Nothing is read or compiled before first use.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .. import langdata
from ..text.tokenize import has_cjk
from . import triggers

__all__ = ["clause_changes", "sentence_changes", "blocked", "modal", "numeric_slots", "number_of", "is_numeric_slot",
           "JOB_ACTIVITY", "job_of_activity", "ENDS_ANY", "ends_any"]

ENDS_ANY = "*"  # value_key of a value that ends whatever the slot holds ("我辞职了": the employer, whichever it was)


@lru_cache(maxsize=1)
def numeric_slots() -> dict[str, str]:
    """Every numeric slot noun (all languages) -> its slot key: "rent" / 房租 / 租金 -> "rent"."""
    out: dict[str, str] = {}
    for lang in langdata.LANGUAGES:
        for slot, nouns in langdata.load("slots", lang).get("numeric_slots", {}).items():
            out.update({n: slot for n in nouns})
    return out


def is_numeric_slot(attribute: str) -> bool:
    """``attribute`` holds an amount or an age: compare its values by number (:func:`number_of`)."""
    return attribute in set(numeric_slots().values()) or attribute == "age" or attribute.endswith("_age")


def number_of(value: str) -> str | None:
    """The first amount in ``value`` as a plain number string (:func:`anchormem.facts.values.number_of`): "1,350
    euros" -> "1350", "90k" -> "90000", "两万五" -> "25000", "一万二" -> "12000", "6岁" -> "6", "seven" -> "7";
    None without one."""
    from .values import number_of as _number_of

    return _number_of(value)


@lru_cache(maxsize=1)
def JOB_ACTIVITY() -> dict[str, str]:  # noqa: N802 (a lazily built table)
    """Job activities -> job nouns ("nursing" -> "nurse"), all languages."""
    return langdata.mapping("slots", "job_activities")


def job_of_activity(value: str) -> str | None:
    """The job noun of a job activity ("nursing" -> "nurse"), else None."""
    return JOB_ACTIVITY().get(" ".join(value.casefold().split()))


@lru_cache(maxsize=1)
def _ending_values() -> frozenset[str]:
    return frozenset(w.casefold() for w in langdata.words("changes", "ends_any"))


def ends_any(value: str) -> bool:
    """``value`` is an ending without a value of its own ("辞职", "离职", "resigned": ``ends_any`` of
    data/lang/*/changes.json): its -1 fact ends whatever the slot holds."""
    return " ".join(value.casefold().split()) in _ending_values()


def _counted(lang: str) -> dict[str, str]:
    return {w: key for key, ws in langdata.load("slots", lang).get("counted", {}).items() for w in ws}


@lru_cache(maxsize=1)
def _number_words_en() -> str:
    """A regex for a number said in English words ("seventy-two thousand", "a grand and a half", "three-fifty"):
    ``number_words``, word ``multipliers`` and ``fractions`` of data/lang/en/values.json (the value itself is read by
    :mod:`.values`)."""
    d = langdata.load("values", "en")
    w = langdata.alternation(tuple(d.get("number_words", [])))
    mult = langdata.alternation(tuple(k for k in d.get("multipliers", {}) if len(k) > 2))
    frac = langdata.alternation(tuple(d.get("fractions", {})))
    arts = langdata.alternation(tuple(d.get("articles", ["a"])))
    one = rf"(?:{w})(?:[\s-]+(?:and\s+)?(?:{w}))*(?:\s+(?:{mult}))?"
    return rf"(?:(?:{one}|(?:{arts})\s+(?:{mult}))(?:\s+(?:{frac}))?)(?![\w-])"


@lru_cache(maxsize=2)
def _pieces(lang: str) -> dict[str, str]:
    from .keys import occupation_en, occupation_zh, person_modifiers, person_words, relation_pattern

    alt = langdata.alternation
    units = alt(tuple(langdata.load("slots", lang).get("units", [])))
    adv = langdata.load("cues", lang).get("adverbs", [])
    changes = langdata.load("changes", lang).get("numeric_change", [])
    if lang == "zh":
        _ZH_NUM = langdata.load("values", "zh").get("numerals", "")  # noqa: N806 (the Chinese numeral characters)
        periods = alt(tuple(langdata.load("slots", "zh").get("periods", ["个月"])))
        # a numeral before a period ("一个月2000": per month) is not the value
        num = rf"(?:\d[\d,.]*|[{_ZH_NUM}]+(?![{_ZH_NUM}])(?!\s*(?:{periods})))"
        return {
            "I": "我(?:们家?)?", "ADV": r"(?:" + alt(tuple(adv), raw=True) + r"|\s)*",
            "SLOT": r"(?P<slot>" + alt(tuple(langdata.load("slots", "zh").get("numeric_slots", {}) and
                                           [w for ws in langdata.load("slots", "zh")["numeric_slots"].values()
                                            for w in ws])) + r")",
            "CHANGE": r"(?:" + alt(tuple(changes)) + r")",
            "NUM": rf"(?P<v>{num}\s*(?:{units})?)", "WEIGHT": rf"(?P<v>{num}\s*(?:公斤|千克|斤|kg))",
            "AGE": rf"(?P<v>{num}\s*(?:周)?岁)", "PERSON": r"(?P<person>" + relation_pattern(True, person_words()) + ")",
            "JOB": r"(?P<v>" + occupation_zh() + ")", "JOBN": r"(?:" + occupation_zh() + ")", "JOBACT": r"(?P<v>(?!))",
            "ORG": r"(?P<v>[^，。！？,.!?；;了]{1,20}?)(?=了|$|[，。！？,.!?；;])", "PLACE": r"(?P<v>[^，。！？,.!?；;]+)",
            "COUNT": r"(?P<v>(?:\d+|[" + _ZH_NUM + r"])\s*(?:" + alt(tuple(langdata.load("slots", "zh").get(
                "measure_words", []))) + r")\s*(?P<counted>" + alt(tuple(_counted("zh"))) + "))",
            "NAMES": r"(?P<names>[^，。！？,.!?；;]{1,30})",
            "PET": r"(?P<pet>" + alt(tuple(w for w in langdata.mapping("slots", "pet_kinds")
                                           if w not in _counted("zh"))) + ")"}
    num = r"(?:\d[\d,.]*\s*k?|" + _number_words_en() + ")"
    person = r"(?:" + person_modifiers() + r"\s+)*(?:" + relation_pattern(False, person_words()) + r")"
    return {
        "I": r"(?:I|we)", "ADV": r"(?:(?:" + alt(tuple(adv)) + r")\s+)*",
        "SLOT": r"(?P<slot>" + alt(tuple(w for ws in langdata.load("slots", "en").get("numeric_slots", {}).values()
                                          for w in ws)) + ")",
        "CHANGE": r"(?:" + alt(tuple(changes)) + r")",
        "NUM": rf"(?P<v>[$£€¥]?\s*{num}(?:\s*(?:{units})\b)*)",
        "WEIGHT": rf"(?P<v>{num}\s*(?:kg|kgs|kilos|kilograms|pounds|lbs|lb|stone)\b)",
        "AGE": rf"(?P<v>{num}(?:\s*(?:years?|yrs?)(?:\s+old)?)?)(?![\w,.]*\d)",
        "PERSON": r"(?P<person>" + person + ")",
        "JOB": r"(?P<v>(?:[\w-]+\s+){0,2}?" + occupation_en() + ")",
        "JOBN": r"(?:(?:[\w-]+\s+){0,2}?" + occupation_en() + ")",
        "JOBACT": r"(?P<v>" + alt(tuple(JOB_ACTIVITY())) + r")\b",
        "ORG": r"(?P<v>(?-i:[A-Z])[\w&.'-]*(?:\s+(?:(?-i:[A-Z])[\w&.'-]*|of|&))*)",
        "PLACE": r"(?P<v>(?-i:[A-Z])[\w' .-]*?)(?=\s+(?:last|this|next|in|on|for|with|because|to|and|since|after|"
                 r"before|a\s|two|three|about)\b|[,.;!?]|$)",
        "COUNT": r"(?P<v>(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+(?!more\b)"
                 r"(?P<counted>" + alt(tuple(_counted("en"))) + r"))\b",
        "NAMES": r"(?P<names>(?-i:[A-Z])[\w'-]+(?:\s*,\s*(?-i:[A-Z])[\w'-]+)*\s+and\s+(?-i:[A-Z])[\w'-]+)"}


@lru_cache(maxsize=2)
def _patterns(lang: str) -> list[tuple[re.Pattern, str, int, str]]:
    """The compiled change patterns of ``lang``: (regex, attribute template, polarity, scope)."""
    pieces = _pieces(lang)
    out = []
    for p in langdata.load("changes", lang).get("patterns", []):
        rx = p["pattern"]
        for name, piece in pieces.items():
            rx = rx.replace("{" + name + "}", piece)
        out.append((re.compile(rx, 0 if lang == "zh" else re.I), p["attribute"], int(p.get("polarity", 1)),
                    p.get("scope", "clause")))
    return out


def _attribute(template: str, m: re.Match, lang: str) -> str | None:
    from .keys import person_key

    groups = m.groupdict()
    attr = template
    if "{slot}" in attr:
        slot = numeric_slots().get(" ".join((groups.get("slot") or "").casefold().split()))
        if not slot:
            return None
        attr = attr.replace("{slot}", slot)
    if "{person}" in attr:
        attr = attr.replace("{person}", person_key(groups.get("person") or "").casefold().replace(" ", "_"))
    if "{pet}" in attr:  # a breed or pet word (我们又领养了一只比格，叫饼干): the name slot of its kind
        from .keys import pet_kind

        kind = pet_kind(groups.get("pet") or "")
        if not kind:
            return None
        attr = attr.replace("{pet}", kind)
    if "{counted}" in attr:
        c = _counted(lang).get((groups.get("counted") or "").casefold())
        if not c:
            return None
        attr = attr.replace("{counted}", c)
    return attr


def _value(attr: str, m: re.Match) -> str | None:
    groups = m.groupdict()
    if attr.endswith("_names"):
        v = groups.get("names") or ""
    else:
        v = groups.get("v") or ""
    v = re.sub(r"[\s.!?。！？~…,，]+$", "", v.strip())
    v = re.sub(r"(?:了|啦|的|呢|吧|啊)+$", "", v) if has_cjk(v) else v
    return v or None


def _gates(scope: str):  # noqa: ANN202 (a factory of the trigger module's gate callables)
    """The change patterns of ``scope`` in every language: a text none of them can match states no change."""
    return lambda: [rx for lg in langdata.LANGUAGES for rx, _, _, sc in _patterns(lg) if sc == scope]


triggers.declare("changes.clause", _gates("clause"))
triggers.declare("changes.sentence", _gates("sentence"))


def _run(text: str, scope: str) -> list[tuple[str, str, int]]:
    if not triggers.may_read("changes." + scope, text):
        return []  # no literal any of the patterns needs (facts.triggers): none can match
    lang = "zh" if has_cjk(text) else "en"
    langs = ("zh", "en") if lang == "zh" else ("en",)  # a Chinese clause may carry English phrases ("我搬到了Berlin")
    out: dict[str, tuple[str, str, int]] = {}
    for lg in langs:
        for rx, template, pol, sc in _patterns(lg):
            if sc != scope:
                continue
            m = rx.search(text)
            if not m:
                continue
            attr = _attribute(template, m, lg)
            value = _value(attr or "", m) if attr else None
            if attr and value and attr not in out:
                out[attr] = (attr, value, pol)
    return list(out.values())


def clause_changes(clause: str) -> list[tuple[str, str, int]]:
    """``[(attribute, value, polarity)]`` stated by one clause through the change patterns (first pattern per slot
    wins); [] when none matches. "my rent went up to 1350" -> ``[("rent", "1350", 1)]``; "I quit nursing" ->
    ``[("occupation", "nursing", -1)]``; "房租涨到4800了" -> ``[("rent", "4800", 1)]``."""
    return _run(clause.strip(), "clause")


def sentence_changes(sentence: str) -> list[tuple[str, str, int]]:
    """The changes of the patterns whose scope is the whole sentence ("我涨工资了，现在每月11000")."""
    return _run(sentence.strip(), "sentence")


@lru_cache(maxsize=4)
def _blockers(lang: str, reported: bool = True) -> re.Pattern:
    cues = langdata.load("cues", lang)
    entries = tuple(cues.get("modal", [])) + (tuple(cues.get("reported_speech", [])) if reported else ())
    alt = langdata.alternation(entries)
    return re.compile(alt if lang == "zh" else r"\b(?:" + alt + r")\b", re.I)


@lru_cache(maxsize=1)
def _intent_rx() -> re.Pattern:
    """An intent word of ``intent_before_change`` (zh cues.json) right before a change verb (the verbs of the
    ``classes`` of zh frames.json): 想辞职, 打算搬到, 让我戒. Its start is checked against the words
    (:func:`_intended`)."""
    intents = langdata.load("cues", "zh").get("intent_before_change", [])
    verbs = [v for c in (langdata.load("frames", "zh").get("classes") or {}).values() for v in c.get("verbs", [])]
    if not intents or not verbs:
        return re.compile("(?!)")
    return re.compile("(?P<w>" + langdata.alternation(tuple(intents)) + ")(?:要|去|着)?(?:" +
                      langdata.alternation(tuple(dict.fromkeys(verbs))) + ")")


def _intended(clause: str) -> bool:
    """A Chinese clause saying a change is wished or asked for, not made: an intent word starting and ending on
    a word boundary (jieba) right before a change verb: 最近有点想辞职, 老婆一直让我戒; not 我从联想离职了."""
    hits = list(_intent_rx().finditer(clause))
    if not hits:
        return False
    from ..text.tokenize import pos_tags

    bounds, at = {0}, 0
    for t in pos_tags(clause):
        at += len(t.word)
        bounds.add(at)
    return any(m.start("w") in bounds for m in hits)  # (its end may not be one: jieba reads 想换 as one word)


def blocked(clause: str) -> bool:
    """The clause states no present fact of the speaker's: a modal or plan ("I might move to Berlin", "We're
    considering relocating", "我可能会搬到北京", 最近有点想辞职: :func:`_intended`) or reported speech ("My boss said she moved", "他说他搬到了深圳").
    What an instrument "says" is no one's speech but a reading of the speaker's present (:func:`reading`: "Scale
    said 189 this morning", "my watch says 58")."""
    for lang in ("en", "zh") if has_cjk(clause) else ("en",):
        if _blockers(lang, False).search(clause) or (lang == "zh" and _intended(clause)):
            return True
        if any(not reading(clause, m.start(), m.end()) for m in _reported(lang).finditer(clause)):
            return True
    return False


@lru_cache(maxsize=2)
def _reported(lang: str) -> re.Pattern:
    alt = langdata.alternation(tuple(langdata.load("cues", lang).get("reported_speech", [])))
    return re.compile(alt if lang == "zh" else r"\b(?:" + alt + r")\b", re.I)


@lru_cache(maxsize=1)
def _instruments() -> tuple[re.Pattern, re.Pattern]:
    """(the words before a reporting verb, the words after one) that make them an instrument's reading
    (``instruments`` of cues.json, both languages: "scale", "watch", 体重秤)."""
    en = langdata.alternation(langdata.words("cues", "instruments", ("en",)))
    zh = langdata.alternation(langdata.words("cues", "instruments", ("zh",)))
    return (re.compile(rf"(?:(?<![\w'’])(?:{en})(?:['’]s)?|(?:{zh}))\s*$", re.I),
            re.compile(rf"^\s*(?:(?:my|the|our)\s+)?(?:(?:{en})(?![\w'’])|(?:{zh}))", re.I))


_OTHERS = re.compile(r"(?:\w['’]s?|(?<![\w'’])(?:his|her|their|your))\s+(?:[\w-]+\s+)?$|(?:他|她|他们|她们|你)的?$",
                     re.I)  # someone else's instrument: "my brother's scale", "her watch", 他的手环


def reading(clause: str, start: int, end: int) -> bool:
    """The reporting verb at ``clause[start:end]`` ("said", "according to") reports an instrument of the speaker's,
    not a person: an ``instruments`` word of cues.json right before it ("Scale said 189", "my watch says") or right
    after it ("according to my scale"), not someone else's ("my brother's scale said 95 kg", "her watch says").
    Such a clause reads the speaker's present value; a person's words do not."""
    before, after = _instruments()
    m = before.search(clause[:start])
    if m is not None:
        return not _OTHERS.search(clause[:m.start()])
    return bool(after.match(clause[end:]))


def modal(clause: str) -> bool:
    """The clause is a modal or plan of its speaker's (``modal`` of cues.json: "I might move to Berlin",
    "我女儿六一要参加钢琴演出"), not reported speech."""
    return bool(_blockers("en", False).search(clause) or (has_cjk(clause) and (
        _blockers("zh", False).search(clause) or _intended(clause))))
