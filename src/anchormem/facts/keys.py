"""Slot keys for things liked, done, owned and eaten, so that one topic said two ways is one slot.

A fact's attribute for a thing (``likes:<thing>``, ``does:<activity>``, ``allergy:<thing>``, ``count:<thing>``)
is keyed by :func:`topic_key`, not by the user's exact words, so that a change of mind is seen as one:

- "I love jogging in the park" and "I hate jogging now" -> ``likes:run`` (+1, then -1);
- "I drink coffee every morning", "I stopped drinking coffee" and 我不再喝咖啡了 -> ``does:coffee``;
- "我喜欢吃辣" and "我现在受不了辣了" -> ``likes:spicy food``; "I smoke like half a pack a day" and 戒烟第三天了 ->
  ``does:smoke``.

The key is the concept the head word names (:func:`concept_key`: ``topic_synonyms`` of data/lang/*/slots.json, one
key for both languages), never a fragment of the words: amounts and their hedges ("like 3 coffees a day", 一天两根),
and a time after a Chinese thing (第三天, 三年多) are not part of it. Keys stored as words before (``does:咖啡``) are
still compared with the concept keys (:func:`related_attributes`); nothing is migrated. In a habit's value an amount
is part of it: "3 coffees a day" then "cut down to one coffee a day" is a new amount of the habit
(:func:`same_value`, :func:`habit_amount`).

English words are lemmatised (``lemminflect``: "jogging" -> "jog", "cats" -> "cat"); articles, possessives,
light verbs ("drink", "eat", "play", "go", "do", "have", "take"; 吃/喝/玩/打/去/做) and trailing place, time and
company phrases ("in the park", "every morning", "with friends", "on weekends") are dropped. The value keeps the
user's own words; only the key is normalised.

:func:`value_key` compares values of one slot: ``diet`` values have canonical forms across languages
("vegetarian" = "素食" = "吃素"), other values compare by :func:`~anchormem.facts.model.normalize_object`.

:data:`TOPIC_HEADS` ``likes`` and ``does`` are siblings: a negative statement about one contradicts a positive one
about the other ("I love spicy food" then "I don't eat spicy food any more"), see
:func:`anchormem.facts.reconcile.conflicts`.

:func:`occupation_en` / :func:`occupation_zh` are patterns over job nouns ("nurse", "software engineer", 护士,
工程师: ``occupation_nouns`` of data/lang/*/jobs.json): the facts rules read "I'm a nurse" / 我当护士 as an
``occupation`` and type "my brother is a doctor" as ``brother_occupation`` (:func:`person_slot`); the evidence test
links such a statement to job questions. The relation words (:func:`kin_groups`, :func:`person_words`,
:func:`relation_words`...) are data/lang/*/kin.json. Every word list is read on first use (no import-time I/O); the
old constant names (``OCCUPATION_EN``, ``PERSON_WORDS``, ``KIN_CANONICAL``...) still resolve, lazily, to the same
values.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ..text.tokenize import has_cjk, words as segment
from .kin import (_escaped, _modifiers, kin_canonical, kin_canonical_map, kin_covers, kin_groups, kin_narrower,
                  kin_short, one_character_relation, other_person_words, person_modifiers, person_words,
                  plural_person, relation_pattern, relation_words)

__all__ = ["topic_key", "concept_key", "cut_zh_time", "habit_amount", "value_key", "same_value", "TOPIC_HEADS",
           "light_verbs", "NAMED_SLOTS", "related_attributes", "sibling_attribute", "occupation_en", "occupation_zh",
           "not_job_words", "title_measures", "is_occupation", "is_person", "person_slot", "negated_person_value", "person_words",
           "person_modifiers", "clean_value", "kin_groups", "kin_canonical_map", "kin_short", "kin_narrower",
           "category_members", "in_category", "other_person_words", "relation_words", "plural_person",
           "relation_pattern", "one_character_relation", "kin_canonical", "kin_covers", "person_key",
           "possessed_attribute", "pet_kind", "names_within", "ENDING_EVENTS"]

TOPIC_HEADS = ("likes", "does")  # liking and doing the same thing: opposite polarities contradict



@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    """Words dropped from a thing's key (``topic_stop_words`` of data/lang/*/slots.json)."""
    from .. import langdata

    return frozenset(langdata.words("slots", "topic_stop_words"))


@lru_cache(maxsize=1)
def light_verbs() -> frozenset[str]:
    """Verbs that add nothing to the thing they take ("drink", "eat", 吃, 喝: ``light_verbs`` of
    data/lang/*/slots.json): "drink coffee" and 喝咖啡 are keyed by the thing."""
    from .. import langdata

    return frozenset(langdata.words("slots", "light_verbs"))


@lru_cache(maxsize=1)
def _trail() -> re.Pattern:
    """A trailing place / time / company / frequency phrase, not part of the thing ("jogging in the park":
    ``topic_trail`` of data/lang/en/slots.json)."""
    from .. import langdata

    return re.compile(r"\s+(?:" + _escaped(langdata.load("slots", "en").get("topic_trail", ())) + r")\b.*$", re.I)


@lru_cache(maxsize=1)
def _zh_lead() -> re.Pattern:
    """A Chinese light verb before a thing (喝咖啡: ``light_verbs`` of data/lang/zh/slots.json)."""
    from .. import langdata

    return re.compile(r"^(?:" + _escaped(langdata.load("slots", "zh").get("light_verbs", ())) + r")(?=.)")


@lru_cache(maxsize=1)
def _zh_measure() -> re.Pattern:
    """An amount before a Chinese thing (两杯, 一碗: ``topic_lead_measures`` of data/lang/zh/slots.json)."""
    from .. import langdata

    d = langdata.load("slots", "zh").get("topic_lead_measures", {})
    nums = "".join(re.escape(c) for c in d.get("numerals", ()))
    return re.compile(r"^(?:[" + nums + r"]?(?:" + _escaped(d.get("measures", ())) + r"))+")


@lru_cache(maxsize=1)
def _zh_trail() -> re.Pattern:
    """Particles after a Chinese thing (了, 啦, 东西: ``topic_trail_particles`` of data/lang/zh/slots.json)."""
    from .. import langdata

    return re.compile(r"(?:" + _escaped(langdata.load("slots", "zh").get("topic_trail_particles", ())) + r")+$")


_NUMBERS = {w: str(i) for i, ws in enumerate(
    ["zero no", "a an one 一", "two 二 两", "three 三", "four 四", "five 五", "six 六", "seven 七", "eight 八",
     "nine 九", "ten 十"]) for w in ws.split()}


@lru_cache(maxsize=1)
def _diet_canon() -> dict[str, str]:
    """Diet words (all languages) -> canonical diet: "veggie" / 素食 / 吃素 -> "vegetarian" (``diet`` of
    data/lang/*/slots.json)."""
    from .. import langdata

    return {w: canon for lang in langdata.LANGUAGES
            for canon, ws in langdata.load("slots", lang).get("diet", {}).items() for w in ws}


@lru_cache(maxsize=1)
def _quantity() -> re.Pattern:
    """An amount or a frequency before or after a thing ("two cups of", "a lot of", "a few", "five days a week",
    "a day"): not part of the thing's key (``quantity`` / ``frequency`` of data/lang/en/slots.json)."""
    from .. import langdata

    q = langdata.alternation(langdata.words("slots", "quantity", ("en",)))
    f = langdata.alternation(langdata.words("slots", "frequency", ("en",)))
    h = langdata.alternation(langdata.words("slots", "quantity_hedges", ("en",)))
    num = r"(?:" + "|".join(langdata.load("slots", "en").get("quantity_numbers", ())) + r")"
    n = r"(?:(?:" + h + r")\s+)?" + num  # "like 3", "maybe half a": a hedge only softens the amount
    return re.compile(r"\s(?:" + n + r"\s+(?:" + q + r")(?:\s+of)?|" + n + r"\s+(?:times?|days?|nights?)\s+(?:a|per)\s+"
                      r"(?:day|week|month|year)|(?:" + f + r")|(?:" + h + r")(?=\s+" + num + r"\s))(?=\s|$)", re.I)


@lru_cache(maxsize=1)
def _particular_place() -> re.Pattern:
    """A thing (one or two words) at or from a place of ``particular_places`` (data/lang/en/slots.json): "coffee at
    work", "the food at school"."""
    from .. import langdata

    places = langdata.alternation(langdata.words("slots", "particular_places", ("en",)))
    return re.compile(r"^(?:the\s+|that\s+|this\s+)?(?:[a-z][\w'-]*\s+){0,1}[a-z][\w'-]*\s+(?:at|from|in)\s+(?:"
                      + places + r")\b", re.I)


@lru_cache(maxsize=1)
def _frequency() -> re.Pattern:
    """A frequency or hedge alone ("a day", "every morning", "like"): ``frequency`` of data/lang/en/slots.json."""
    from .. import langdata

    f = langdata.alternation(langdata.words("slots", "frequency", ("en",)) +
                             langdata.words("slots", "quantity_hedges", ("en",)))
    return re.compile(r"\s(?:" + f + r")(?=\s|$)", re.I)


@lru_cache(maxsize=1)
def _particular() -> re.Pattern:
    """A noun (not an activity: no "-ing", no light verb) followed by "at" / "from" and a determiner ("the coffee at
    my office", "coffee from the canteen"): one particular thing (``particular_*`` of data/lang/en/slots.json)."""
    from .. import langdata

    preps = langdata.alternation(langdata.words("slots", "particular_prepositions", ("en",)))
    dets = langdata.alternation(langdata.words("slots", "particular_determiners", ("en",)))
    light = "|".join(w for w in light_verbs() if w.isascii())
    return re.compile(r"^(?:the\s+|that\s+|this\s+)?(?!(?:" + light + r")\b)(?:[a-z][\w'-]*(?<!ing)\s+){0,1}"
                      r"[a-z][\w'-]*(?<!ing)\s+(?:" + preps + r")\s+(?:" + dets + r")\s+\w+", re.I)


def cut_zh_time(text: str) -> str:
    """``text`` (Chinese words of a thing) without a time said after it and the particles after that: 烟第三天了 ->
    烟, 咖啡三年多 -> 咖啡; ``text`` itself when nothing (or nothing but the time) would be left (第三天)."""
    got = _zh_trail().sub("", _zh_time_trail().sub("", text))
    return text if not got or got in _zh_ordinals() else got


@lru_cache(maxsize=1)
def _zh_lead_amount() -> re.Pattern:
    """An amount or frequency before a Chinese thing (一天两根, 每天三杯, 两瓶): numerals with a time unit or an amount
    measure (``time_trail`` / ``amount_measures`` of data/lang/zh/slots.json), followed by something."""
    from .. import langdata

    d = langdata.load("slots", "zh")
    nums = "".join(d.get("time_trail", {}).get("numerals", ())) + "0-9每"
    units = langdata.alternation(tuple(d.get("time_trail", {}).get("units", ())) + tuple(d.get("amount_measures", ())))
    return re.compile(r"^(?:[" + nums + r"]+(?:" + units + r"))+(?=.)")


@lru_cache(maxsize=1)
def _zh_ordinals() -> frozenset[str]:
    from .. import langdata

    return frozenset(langdata.load("slots", "zh").get("time_trail", {}).get("ordinal", ()))


@lru_cache(maxsize=1)
def _zh_time_trail() -> re.Pattern:
    """A time said after a Chinese thing (戒烟第三天, 奶茶一个月, 咖啡三年多): an optional ordinal, numerals, a unit
    (``time_trail`` of data/lang/zh/slots.json), at the end of the words; never the whole of them."""
    from .. import langdata

    d = langdata.load("slots", "zh").get("time_trail", {})
    ordinal = langdata.alternation(tuple(d.get("ordinal", ())))
    nums = "".join(d.get("numerals", ())) + "0-9"
    units = langdata.alternation(tuple(d.get("units", ())))
    after = langdata.alternation(tuple(d.get("after", ())))
    return re.compile(r"(?<=.)(?:" + ordinal + r")?[" + nums + r"]+(?:" + units + r")(?:" + after + r")*$")


@lru_cache(maxsize=4096)
def _lemma(word: str) -> str:
    from lemminflect import getLemma  # lazy: its tables load on first use (no import-time I/O)

    upos = "VERB" if word.endswith("ing") and len(word) > 5 else "NOUN"
    if upos == "NOUN" and not word.endswith(("s", "i", "a" * 2)) and word not in ("children", "people", "men", "women"):
        return word  # only a plural has a lemma of its own ("cola" is no plural of "colon")
    got = getLemma(word, upos=upos)
    return got[0] if got else word


@lru_cache(maxsize=4)
def _value_synonyms(key: str) -> dict[str, str]:
    """A value-synonym table of data/lang/*/slots.json (Chinese word -> the English key): ``topic_synonyms``
    (咖啡 -> "coffee", 烟 -> "smoke") or ``job_synonyms`` (护士 -> "nurse")."""
    from .. import langdata

    return langdata.mapping("slots", key)


def topic_key(text: str, *, opinion: bool = False) -> str:
    """Key of a thing or activity (see module doc): the concept its head word names (:func:`concept_key`), one for
    both languages. ``"Jogging in the park!"`` -> ``"run"``; ``"drinking coffee every morning"`` and 喝咖啡 ->
    ``"coffee"``; ``"吃辣"`` -> ``"spicy food"``; ``"like 3 coffees a day"`` -> ``"coffee"``; ``"smoking"``, 抽烟 and
    ``"烟第三天"`` -> ``"smoke"``; a word no table knows is its own key (``"bouldering"``). With ``opinion`` (the
    key of a ``likes`` fact), a thing at a particular place (``particular_places`` of data/lang/en/slots.json:
    ``"coffee at work"``) keeps it: the coffee at work is not coffee. Never empty for non-empty input (falls back to
    the case-folded text). Keys stored before (``does:咖啡``) still meet these through :func:`related_attributes`."""
    return concept_key(_words_key(text, opinion))


def concept_key(key: str) -> str:
    """The concept a word key is a way of saying (``topic_synonyms`` of data/lang/*/slots.json, followed while the
    word is not a member of the category it leads to): 烟 / 抽烟 / "cigarette" -> "smoke", 咖啡 -> "coffee", 啤酒 ->
    "beer" (a kind of "alcohol", not the category itself: "I love beer" and "I love wine" stay two likings), 拿铁 ->
    拿铁 (a member of "coffee"), "drink" -> "alcohol"; ``key`` itself when no table has it."""
    table = _value_synonyms("topic_synonyms")
    cats = _categories()
    seen = {key}
    while key in table and table[key] not in seen:
        nxt = table[key]
        if key in cats.get(nxt, ()):
            break
        key = nxt
        seen.add(key)
    return key


def _words_key(text: str, opinion: bool) -> str:
    """:func:`topic_key` before its concept: the head words of the thing, amounts, times and light verbs dropped."""
    t = unicodedata.normalize("NFKC", text).casefold().strip()
    t = re.sub(r"[\s.!?。！？,，;；:：~…'\"“”]+$", "", t)
    if not t:
        return t
    if has_cjk(t) and not re.search(r"[a-z]{2,}", t):
        z = _zh_trail().sub("", re.sub(r"\s+", "", t))
        z = cut_zh_time(z)  # 戒烟第三天 -> 烟, never the fragment 烟第
        z = _zh_measure().sub("", _zh_lead().sub("", z))
        z = _zh_lead_amount().sub("", z) or z  # 一天两根烟 -> 烟, 每天三杯咖啡 -> 咖啡
        if "的" in z.strip("的"):  # "公司的咖啡", "这家店的咖啡": one particular thing, not the habit ("咖啡")
            return z
        # Chinese compounds are head-final: "美式咖啡" is a kind of "咖啡"; the last word is the topic
        parts = [w for w in segment(z) if w.strip()] if len(z) > 2 else [z]
        return (parts[-1] if parts and len(parts[-1]) > 1 else z) or t
    # "two cups of tea", "a lot of soda", "like 3 coffees a day"; when the unit is the thing itself ("two cigarettes a
    # day"), only the frequency goes (the count is dropped below)
    t = _quantity().sub(" ", " " + t).strip() or _frequency().sub(" ", " " + t).strip() or t
    if _particular().match(t) or (opinion and _particular_place().match(t)):  # "the coffee at my office", "coffee
        # at work" (liked or not): one particular coffee, not the habit "coffee"
        return " ".join(w for w in re.findall(r"[\w'-]+", t) if w not in ("the", "a", "an"))
    cut = _trail().sub("", " " + t).strip() or t
    stop = _stop_words()
    words = [w for w in re.findall(r"[\w'-]+", cut) if w not in stop]
    if len(words) > 1:  # "3 coffees", "two beers": the count is the amount, not the thing
        words = [w for w in words if not (w.isdigit() or w in _NUMBERS and w not in ("a", "an", "no"))] or words
    lemmas = [_lemma(w) if w.isascii() and w.isalpha() else w for w in words]
    if len(lemmas) > 1 and lemmas[0] in light_verbs():
        lemmas = lemmas[1:]
    return " ".join(lemmas) or t


def value_key(attribute: str, value: str) -> str:
    """Comparable form of a slot's value: canonical diet names, else the normalised words."""
    from .model import normalize_object

    v = normalize_object(value)
    if attribute == "diet":
        v = re.sub(r"^(?:a|an|now|strict|full|fully)\s+|\s+diet$", "", v)
        return _diet_canon().get(v, v)
    if attribute.partition(":")[0] in ("likes", "does", "allergy"):
        return topic_key(value)
    from .changes import ENDS_ANY, ends_any, is_numeric_slot, job_of_activity, number_of

    if ends_any(value):  # "我辞职了", "I resigned": ends whatever the slot holds
        return ENDS_ANY
    if attribute == "occupation" or attribute.endswith("_occupation"):  # "a nurse" = "nurse", 一名医生 = 医生
        v = re.sub(r"^(?:a|an)\s+|^(?:" + title_measures() + r")", "", v)
        v = job_of_activity(v) or v  # "nursing" = "nurse"
        return _value_synonyms("job_synonyms").get(v, v)  # 护士 = "nurse"
    if is_numeric_slot(attribute):  # "1,350 euros" = "1350", 两万五 = 25000, "6岁" = "6"
        return number_of(value) or v
    if attribute.startswith("count:"):  # "three cats" = "3 cats", 三只猫 = 3
        m = re.match(r"(\d+|[a-z]+|[一二两三四五六七八九十])", v)
        return number_of(v) or (_NUMBERS.get(m.group(1), m.group(1)) if m else v)
    return v


def same_value(attribute: str, a: str, b: str) -> bool:
    """``a`` and ``b`` are one value of ``attribute``: one :func:`value_key`, or one name said in two scripts
    ("Bristol" / 布里斯托: :func:`~anchormem.facts.names.same_name`), so a restatement in the other language is
    no change; for a home, one place named whole or by a part of it (苏州工业园区 / Suzhou:
    :func:`~anchormem.facts.places.same_place`)."""
    if value_key(attribute, a) == value_key(attribute, b):
        if attribute.partition(":")[0] == "does":  # "3 coffees a day" -> "one coffee a day": a new amount of it
            x, y = habit_amount(a), habit_amount(b)
            return x is None or y is None or x == y
        return True
    if attribute == "home_city" or attribute.endswith("_home_city"):  # 苏州工业园区 is Suzhou: a refinement, no move
        from .places import same_place

        return same_place(a, b)
    from .names import same_name

    return same_name(a, b)


def habit_amount(value: str) -> str | None:
    """The amount of a habit said in its value, as a plain number string: "like 3 coffees a day" -> "3", "one coffee
    a day" -> "1", 喝两瓶啤酒 -> "2", 一天一杯咖啡 -> "1" (a Chinese numeral before an ``amount_measures`` word of
    data/lang/zh/slots.json, not the one of the period 一天); None when no amount is said ("I drink coffee")."""
    from .changes import number_of

    if has_cjk(value):
        m = _zh_amount().search(value)
        if not m:
            return None
        n = m.group("n")
        return str(_zh_numbers()[n]) if n in _zh_numbers() else number_of(n + m.group("u"))
    return number_of(value)


@lru_cache(maxsize=1)
def _zh_numbers() -> dict[str, int]:
    from .. import langdata

    return dict(langdata.load("slots", "zh").get("number_words", {}))


@lru_cache(maxsize=1)
def _zh_amount() -> re.Pattern:
    from .. import langdata

    d = langdata.load("slots", "zh")
    nums = "".join(d.get("time_trail", {}).get("numerals", ())) + "0-9"
    return re.compile(r"(?P<n>[" + nums + r"]+)(?P<u>" + langdata.alternation(tuple(d.get("amount_measures", ()))) + ")")


# who or what can be "gone" (died, ran away): the named slots a "gone" fact closes by value
NAMED_SLOTS = tuple(f"{a}_{n}" for a in ("dog", "cat", "pet", "bird", "fish", "rabbit", "hamster", "horse",
                                         "parrot", "turtle", "puppy", "kitten", "chicken") for n in ("name", "names"))
# a departure or a parting ("Max died", "We broke up", 飞度出手了): it ends other claims and is never itself ended
ENDING_EVENTS = ("gone", "parted")
# whom a parting ("Sarah and I broke up", 我和李明分手了) ends: a "gone" fact closes these by value too
PARTNER_SLOTS = tuple(f"{p}_name" for p in ("girlfriend", "boyfriend", "husband", "wife", "partner", "fiance", "fiancee",
                                            "spouse"))


@lru_cache(maxsize=1)
def _implied_kinds() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """``implied_endings`` of data/lang/*/changes.json: kind -> (slots, ending words casefolded), languages merged."""
    from .. import langdata

    out: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for lang in langdata.LANGUAGES:
        for kind, d in langdata.load("changes", lang).get("implied_endings", {}).items():
            slots, words = out.get(kind, ((), ()))
            out[kind] = (tuple(dict.fromkeys(slots + tuple(d.get("slots", ())))),
                         tuple(dict.fromkeys(words + tuple(w.casefold() for w in d.get("words", ())))))
    return out


def implied_slots(ending: str) -> tuple[str, ...]:
    """The slots an ending that names no object closes (a ``parted`` fact's value: "broke up", "passed away",
    "sold", 分手, 去世, 卖了), by ``implied_endings`` of data/lang/*/changes.json: the slots of the kind one of whose
    words the ending holds (the kinds in file order: "It died" a pet's, "She died" a pet's or a person's); a slot
    ending in "*" is a prefix ("possession:*"). An ending of no kind is a parting: the partner-name slots."""
    e = " ".join(ending.casefold().split()) + " "
    for kind_slots, words in _implied_kinds().values():
        if any(w in e for w in words):
            return tuple(kind_slots)
    return PARTNER_SLOTS


def implied_by(ending: str, attribute: str) -> bool:
    """``attribute`` is one of the slots the implied-object ending ``ending`` closes (:func:`implied_slots`; a slot
    "<person>_*" is any slot of a relative or acquaintance, :func:`is_person`: ``grandmother_home_city``)."""
    head = attribute.split(":", 1)[0].split("_", 1)[0]
    return any(attribute.startswith(s[:-1]) if s.endswith("*") and not s.startswith("<person>") else
               "_" in attribute and is_person(head) if s == "<person>_*" else attribute == s
               for s in implied_slots(ending))


def names_within(name: str, value: str) -> bool:
    """``name`` is a word of ``value`` (case-folded; in Chinese a part of it): "Moose" of "2012 Subaru Outback named
    Moose", 飞度 of 白色的飞度."""
    n, v = name.casefold().strip(), value.casefold()
    if not n:
        return False
    return n in v if has_cjk(n) else bool(re.search(r"(?<![\w'’-])" + re.escape(n) + r"(?![\w'’-])", v))


def pet_kind(word: str) -> str | None:
    """The pet kind a breed or pet word names, whose name slot it shares (``pet_kinds`` of data/lang/*/slots.json):
    "golden retriever" -> "dog", "Labrador" -> "dog", 金毛 -> "dog", 猫咪 -> "cat"; None for any other word."""
    return _pet_kinds().get(" ".join(word.casefold().split()))


@lru_cache(maxsize=1)
def _pet_kinds() -> dict[str, str]:
    from .. import langdata

    return {k.casefold(): v for k, v in langdata.mapping("slots", "pet_kinds").items()}


def related_attributes(attribute: str) -> list[str]:
    """Attributes whose current facts a new fact is compared with besides its own: the ``likes``/``does``
    sibling, the same topic in the other language (``topic_synonyms`` of data/lang/zh/slots.json: ``does:咖啡`` and
    ``does:coffee`` / ``likes:coffee``), and for ``gone`` (a pet that died or ran away) every pet-name slot, matched
    by value."""
    if attribute == "gone":
        return list(NAMED_SLOTS + PARTNER_SLOTS)
    if attribute == "parted":  # an ending naming no one ("We broke up", "She passed away", 卖了): the slots of its kind
        return [a for kind in _implied_kinds().values() for a in kind[0] if not a.endswith("*")]  # (prefixes: listed)
    sib = sibling_attribute(attribute)
    out = [sib] if sib else []
    head, sep, key = attribute.partition(":")
    if sep and head in TOPIC_HEADS:
        for other in translated_topics(key):
            out += [f"{h}:{other}" for h in TOPIC_HEADS]
    return out


def topic_root(key: str) -> str:
    """The topic key a word of a thing or activity is a way of saying (``topic_synonyms`` of data/lang/*/slots.json,
    followed to its end: 啤酒 -> "beer" -> "alcohol", "cigarette" -> "smoke"); ``key`` itself without one."""
    table = _value_synonyms("topic_synonyms")
    seen = {key}
    while key in table and table[key] not in seen:
        key = table[key]
        seen.add(key)
    return key


@lru_cache(maxsize=1)
def _categories() -> dict[str, frozenset[str]]:
    """``topic_categories`` of data/lang/*/slots.json, the languages' member lists joined per category key."""
    from .. import langdata

    table: dict[str, set[str]] = {}
    for lang in langdata.LANGUAGES:
        for cat, words in langdata.load("slots", lang).get("topic_categories", {}).items():
            table.setdefault(cat.casefold(), set()).update(w.casefold() for w in words)
    return {k: frozenset(v) for k, v in table.items()}


@lru_cache(maxsize=1024)
def category_members(key: str) -> frozenset[str]:
    """The topic keys a category holds (``topic_categories`` of data/lang/*/slots.json, followed through members that
    are categories themselves, each with its :func:`topic_root`), in both languages: "meat" -> {"steak", "bacon",
    "红烧肉", ...}; "caffeine" -> {"coffee", "latte", "拿铁", "tea", ...}; 咖啡 (root "coffee") -> {"latte", "拿铁",
    ...}; an empty set for a key that names no category ("steak")."""
    cats = _categories()
    root = topic_root(key.casefold())
    out: set[str] = set()
    todo = [root]
    while todo:
        for w in cats.get(todo.pop(), ()):
            for m in (w, topic_root(w)):
                if m not in out and m != root:
                    out.add(m)
                    todo.append(m)
    return frozenset(out)


def in_category(key: str, members: frozenset[str]) -> bool:
    """A thing's topic key is one of a category's ``members`` (:func:`category_members`): itself, its root, a way of
    saying it in the other language, its English head word ("grass-fed steak" -> "steak") or a Chinese member it
    ends with (head-final: 美式拿铁 -> 拿铁)."""
    k = key.casefold().strip()
    if not k or not members:
        return False
    keys = {k, topic_root(k), *translated_topics(k)}
    if not has_cjk(k) and " " in k:
        keys.add(k.split()[-1])
    if any(x in members for x in keys):
        return True
    return has_cjk(k) and any(has_cjk(m) and len(m) > 1 and k.endswith(m) for m in members)


def translated_topics(key: str) -> list[str]:
    """The same topic said in other words or the other language: 咖啡 -> ["coffee"], "coffee" -> ["咖啡", ...],
    "smoke" -> ["cigarette", ..., "烟", "抽烟", "香烟"], "cigarette" -> [..., "smoke", "烟", ...]: every key of
    ``topic_synonyms`` with the same :func:`topic_root`, and the root; [] for a topic without one."""
    return list(_translated(key))


@lru_cache(maxsize=4096)
def _translated(key: str) -> tuple[str, ...]:
    table = _value_synonyms("topic_synonyms")
    root = topic_root(key)
    out = {k for k in table if k != key and topic_root(k) == root}
    if root != key:
        out.add(root)
    return tuple(sorted(out))


def sibling_attribute(attribute: str) -> str | None:
    """``likes:x`` <-> ``does:x``; None for any other attribute."""
    head, sep, key = attribute.partition(":")
    if not sep or head not in TOPIC_HEADS:
        return None
    return f"{TOPIC_HEADS[1 - TOPIC_HEADS.index(head)]}:{key}"


# -- jobs and people: word lists of data/lang/*/jobs.json and kin.json, read on first use -------------------------
@lru_cache(maxsize=1)
def occupation_en() -> str:
    """A regex (one group, no capture) over English job nouns, an optional plural "s"/"es" after them ("nurse",
    "teachers"; ``occupation_nouns`` of data/lang/en/jobs.json, regex fragments)."""
    from .. import langdata

    nouns = langdata.load("jobs", "en").get("occupation_nouns", ())
    return r"(?:" + ("|".join(nouns) or "(?!)") + r")(?:e?s)?(?![\w-])"


@lru_cache(maxsize=1)
def occupation_zh() -> str:
    """A regex (one group, no capture) over Chinese job nouns, longest first (护士, 工程师: ``occupation_nouns`` of
    data/lang/zh/jobs.json)."""
    from .. import langdata

    nouns = sorted(langdata.load("jobs", "zh").get("occupation_nouns", ()), key=len, reverse=True)
    return r"(?:" + ("|".join(re.escape(w) for w in nouns) or "(?!)") + r")"


@lru_cache(maxsize=1)
def title_measures() -> str:
    """A regex alternation (no group) of the Chinese measure words before a job noun (一名医生, 一位老师:
    ``title_measures`` of data/lang/zh/jobs.json, in their order)."""
    from .. import langdata

    return _escaped(langdata.load("jobs", "zh").get("title_measures", ())) or "(?!)"


@lru_cache(maxsize=1)
def not_job_words() -> str:
    """A regex (one group) of the words before a job noun that make it no job: "a fan of doctors", "a good cook",
    "a wannabe actor" (``not_job_words`` of data/lang/en/jobs.json)."""
    from .. import langdata

    return r"(?:" + _escaped(langdata.load("jobs", "en").get("not_job_words", ())) + r")"


@lru_cache(maxsize=1)
def _occ_en() -> re.Pattern:
    return re.compile(r"^(?:an?\s+)?(?:[\w-]+\s+){0,2}?" + occupation_en() + r"$", re.I)


@lru_cache(maxsize=1)
def _occ_zh() -> re.Pattern:
    return re.compile(r"^(?:" + title_measures() + r")?[\u4e00-\u9fff]{0,4}?" + occupation_zh() + r"$")


@lru_cache(maxsize=1)
def _not_job_lead() -> re.Pattern:
    return re.compile(r"\b" + not_job_words() + r"\b", re.I)


# the names these lists had as module constants: still importable, each built on first access
_LAZY = {"OCCUPATION_EN": occupation_en, "OCCUPATION_ZH": occupation_zh, "NOT_JOB_WORDS": not_job_words,
         "KIN_GROUPS": kin_groups, "KIN_CANONICAL": kin_canonical_map, "KIN_SHORT": kin_short,
         "KIN_NARROWER": kin_narrower, "PERSON_WORDS": person_words, "OTHER_PERSON_WORDS": other_person_words,
         "RELATION_WORDS": relation_words, "PERSON_MODIFIERS": person_modifiers, "PLURAL_PERSON": plural_person,
         "LIGHT_VERBS": light_verbs}


def __getattr__(name: str):
    if name in _LAZY:
        return _LAZY[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@lru_cache(maxsize=2)
def _slot_words(key: str) -> frozenset[str]:
    """A word set of data/lang/*/slots.json (``nationalities``, ``marital``), all languages, lower-cased."""
    from .. import langdata

    return frozenset(w.lower() for w in langdata.words("slots", key))


_AGE = re.compile(r"^(?:about |around )?\d{1,3}(?:\s*(?:years?|yrs?)(?:\s+old)?)?$|^[\d一二两三四五六七八九十百]{1,4}岁$",
                  re.I)
_NEGATED = re.compile(r"^(?:not|no longer)\s+(.+?)(?:\s+any\s?more)?$", re.I)


@lru_cache(maxsize=1)
def _name_word() -> re.Pattern:
    """A word of a name as said: a title (``titles`` of data/lang/*/names.json: "Dr", "Mr"; a full stop allowed), a
    capitalised word or an initial."""
    from .. import langdata

    return re.compile(r"(?:(?:" + _escaped(langdata.words("names", "titles")) + r")\.?|[A-Z][a-z'’-]+|[A-Z]\.)")


def is_occupation(value: str) -> bool:
    """``value`` names a job: "a nurse", "software engineer", "an ER doctor", 一名医生, 护士 (a job noun of
    :func:`occupation_en` / :func:`occupation_zh` as its head, at most two modifiers); not "a fan of doctors",
    "a friend of a teacher"."""
    v = value.strip()
    if has_cjk(v):
        return bool(_occ_zh().match(v))
    return bool(_occ_en().match(v)) and not _not_job_lead().search(v)


def is_person(word: str) -> bool:
    """``word`` names a relative or acquaintance (:func:`person_words`), one or several: "brother", "older brother",
    "older_brother", "best friend", "brothers", "children", 弟弟."""
    w = word.strip()
    persons = person_words()
    if has_cjk(w):
        return w in persons
    w = _modifiers().sub("", w.lower().replace("_", " "))
    return w in persons or plural_person().get(w, "") in persons or (w.endswith("s") and w[:-1] in persons)


def person_key(person: str) -> str:
    """The slot form of a person word: its relation's canonical word (:func:`kin_canonical`), modifiers and plural
    kept: "Mom" -> "mother", 妈妈 / 母亲 / 老妈 -> "mother", "older brother" -> "older brother", "moms" -> "mothers",
    老公 -> "husband", 哥哥 -> 哥哥. Any other word is returned as it is."""
    p = person.strip()
    m = _modifiers().match(p)
    lead, head = (p[:m.end()], p[m.end():]) if m else ("", p)
    h = head.lower()
    short, canonical = kin_short(), kin_canonical_map()
    if h in short:
        return lead + short[h]
    if h in canonical:
        return lead + canonical[h]
    if h.endswith("s") and h[:-1] in canonical and h not in plural_person():  # "moms", "coworkers"
        canon = canonical[h[:-1]]
        return lead + canon + ("es" if canon.endswith("s") else "s")
    return p


def clean_value(attribute: str, value: str) -> str:
    """A slot's value as stored: without a leading article ("a doctor" -> "doctor", "an ER doctor" -> "ER doctor",
    "a startup" -> "startup", "the hospital" -> "hospital"; "the Netherlands" stays), and a job without its Chinese
    measure word (一名医生 -> 医生), so that one value is stored one way whichever phrasing or extractor found it. A
    count keeps its "a" (it is the number: "a cat"), and a capital "A" stays, as does "a" before a capitalised word
    outside jobs ("A Beautiful Mind", "a Tale of Two Cities"). Never empty for non-empty input."""
    v = value.strip()
    if attribute.startswith("count:"):
        return v
    job = attribute == "occupation" or attribute.endswith("_occupation")
    v = re.sub(r"^(?:a|an)\s+(?=\S)" if job else r"^(?:a|an)\s+(?=[a-z0-9]|[A-Z]{2,}\b)", "", v)
    v = re.sub(r"^the\s+(?=[a-z])", "", v)  # "the hospital"; not "the Netherlands"
    if job:
        v = re.sub(r"^(?:一名|一个|一位)(?=[\u4e00-\u9fff])", "", v)
    return v or value.strip()


def person_slot(person: str, value: str) -> str:
    """The attribute of "my <person> is <value>" when ``person`` is a relative or acquaintance
    (:func:`person_words`, with "older", "best"... allowed before it), typed by the value so that only a change of
    the same kind supersedes: a job -> ``<person>_occupation`` ("a doctor", 一名医生), an age -> ``<person>_age``
    ("30", "25 years old", 三十岁), a marital status -> ``<person>_marital`` ("married"), a name ->
    ``<person>_name`` ("Tom", "Dr. Lee"; not a nationality such as "Italian"); anything else (a description:
    "tall") -> ``<person>:<description>``, a slot of its own, so descriptions never close each other. ``<person>``
    is the relation's slot form (:func:`person_key`: "mom" and 妈妈 are "mother"). Any other ``person`` ("favourite
    tea", "phone number") is returned as it is. Never raises."""
    if not is_person(person):
        return person.strip()
    p = person_key(person)  # "mom" / "mother" / 妈妈: one person, one set of slots
    if is_occupation(value):
        return f"{p}_occupation"
    if _AGE.match(value.strip()):
        return f"{p}_age"
    if value.strip().lower() in _slot_words("marital"):
        return f"{p}_marital"
    words = value.split()
    if not has_cjk(value) and 0 < len(words) <= 4 and all(_name_word().fullmatch(w) for w in words) and \
            not any(w.lower() in _slot_words("nationalities") for w in words):
        return f"{p}_name"
    return f"{p}:{value_key(p, value)}"  # a description is a slot of its own: "tall" never closes "30"


def negated_person_value(person: str, value: str) -> str | None:
    """The job of "my <person> is not a doctor (any more)" / "no longer a doctor": "a doctor" when ``person`` is a
    relative (:func:`is_person`) and the rest is a job (:func:`is_occupation`); else None. The caller stores it with
    the opposite polarity in ``<person>_occupation``, so it closes "My brother is a doctor."."""
    m = _NEGATED.match(value.strip())
    return m.group(1) if m and is_person(person) and is_occupation(m.group(1)) else None


@lru_cache(maxsize=1)
def _possessor_rx() -> re.Pattern:
    from .. import langdata

    preps = langdata.alternation(langdata.words("slots", "possessor_prepositions", ("en",)))
    return re.compile(r"(?:^|[\s,;:—-])(?P<h>[A-Za-z][\w'-]*)\s+(?:" + preps + r")\s*$", re.I)


def possessed_attribute(pre: str, attr: str) -> str:
    """The attribute of "my X is Y" / "my X changed to Y" (``attr``: X; ``pre``: the words before "my") as the words
    say it: the noun before a preposition when "my X" is its object ("Rent on my one-bed is $1,850" -> ``rent``, not
    ``one_bed``; ``possessor_prepositions`` of slots.json), "" when the word before the preposition names nothing
    (``possessor_heads``: "In my opinion"); a person named after its relation word is that person ("my son Theo is
    3" -> ``son``, typed by its value by :func:`person_slot`: ``son_age``), else ``attr``. Never raises."""
    from .. import langdata

    got = _possessor_rx().search(pre)
    if got:
        head = got.group("h").casefold()
        return "" if head in {w.casefold() for w in langdata.words("slots", "possessor_heads", ("en",))} else head
    words = attr.split()
    while len(words) > 1 and words[-1][:1].isupper():
        words.pop()  # (the relation word first, the name after it)
    return " ".join(words) if len(words) < len(attr.split()) and is_person(" ".join(words)) else attr
