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

:data:`OCCUPATION_EN` / :data:`OCCUPATION_ZH` are patterns over job nouns ("nurse", "software engineer", 护士,
工程师): the facts rules read "I'm a nurse" / 我当护士 as an ``occupation`` and type "my brother is a doctor" as
``brother_occupation`` (:func:`person_slot`); the evidence test links such a statement to job questions.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ..text.tokenize import has_cjk, words as segment

__all__ = ["topic_key", "concept_key", "cut_zh_time", "habit_amount", "value_key", "same_value", "TOPIC_HEADS", "LIGHT_VERBS", "NAMED_SLOTS", "related_attributes",
           "sibling_attribute", "OCCUPATION_EN", "OCCUPATION_ZH", "NOT_JOB_WORDS", "is_occupation", "is_person",
           "person_slot", "negated_person_value", "PERSON_WORDS", "PERSON_MODIFIERS", "clean_value", "KIN_GROUPS",
           "KIN_CANONICAL", "KIN_NARROWER", "category_members", "in_category", "OTHER_PERSON_WORDS", "RELATION_WORDS",
           "relation_pattern", "one_character_relation", "kin_canonical", "kin_covers", "person_key",
           "possessed_attribute", "pet_kind"]

TOPIC_HEADS = ("likes", "does")  # liking and doing the same thing: opposite polarities contradict

_STOP = frozenset("the a an some any my our your his her their this that these those to of for".split())
LIGHT_VERBS = frozenset("drink eat play go do have take get 吃 喝 玩 打 去 做 抽 看".split())
# a trailing place / time / company / frequency phrase is not part of the thing ("jogging in the park")
_TRAIL = re.compile(
    r"\s+(?:in|on|at|with|every|each|after|before|during|around|near|daily|weekly|regularly|sometimes|often|"
    r"usually|a lot|twice|once|three times|several times|all the time|together|alone|outside|outdoors|"
    r"at home|these days|again)\b.*$", re.I)
_ZH_LEAD = re.compile(r"^(?:吃|喝|玩|打|去|做|抽|看)(?=.)")
_ZH_MEASURE = re.compile(r"^(?:[一两二三几半]?(?:杯|个|碗|瓶|份|点|块|片|根|包|盒|罐|口))+")
_ZH_TRAIL = re.compile(r"(?:了|啦|的|呢|吧|啊|呀|哦|东西)+$")

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
    num = r"(?:\d+(?:\.\d+)?|half\s+an?|an?\s+half|half|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|" \
          r"a couple of|several|many)"
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
    light = "|".join(w for w in LIGHT_VERBS if w.isascii())
    return re.compile(r"^(?:the\s+|that\s+|this\s+)?(?!(?:" + light + r")\b)(?:[a-z][\w'-]*(?<!ing)\s+){0,1}"
                      r"[a-z][\w'-]*(?<!ing)\s+(?:" + preps + r")\s+(?:" + dets + r")\s+\w+", re.I)


def cut_zh_time(text: str) -> str:
    """``text`` (Chinese words of a thing) without a time said after it and the particles after that: 烟第三天了 ->
    烟, 咖啡三年多 -> 咖啡; ``text`` itself when nothing (or nothing but the time) would be left (第三天)."""
    got = _ZH_TRAIL.sub("", _zh_time_trail().sub("", text))
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
        z = _ZH_TRAIL.sub("", re.sub(r"\s+", "", t))
        z = cut_zh_time(z)  # 戒烟第三天 -> 烟, never the fragment 烟第
        z = _ZH_MEASURE.sub("", _ZH_LEAD.sub("", z))
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
    cut = _TRAIL.sub("", " " + t).strip() or t
    words = [w for w in re.findall(r"[\w'-]+", cut) if w not in _STOP]
    if len(words) > 1:  # "3 coffees", "two beers": the count is the amount, not the thing
        words = [w for w in words if not (w.isdigit() or w in _NUMBERS and w not in ("a", "an", "no"))] or words
    lemmas = [_lemma(w) if w.isascii() and w.isalpha() else w for w in words]
    if len(lemmas) > 1 and lemmas[0] in LIGHT_VERBS:
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
        v = re.sub(r"^(?:a|an)\s+|^(?:一名|一个|一位|名|个)", "", v)
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
        return list(NAMED_SLOTS)
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


# -- jobs and people ---------------------------------------------------------------------------------------------
# job nouns, singular; a pattern matches them with an optional plural "s"/"es" ("teachers")
_JOBS_EN = """doctor physician surgeon nurse dentist pharmacist vet veterinarian paramedic therapist psychologist
    psychiatrist counsel(?:l)?or teacher professor lecturer tutor principal librarian lawyer attorney solicitor
    barrister
    judge paralegal accountant auditor banker bookkeeper engineer developer programmer coder architect designer
    scientist researcher analyst consultant manager director executive ceo cto founder entrepreneur freelancer
    contractor electrician plumber carpenter mechanic technician builder welder painter artist illustrator
    photographer musician singer actor actress dancer writer author novelist journalist reporter editor translator
    interpreter chef cook baker barista waiter waitress bartender cashier clerk receptionist secretary assistant
    salesman saleswoman salesperson realtor agent marketer recruiter driver pilot farmer firefighter
    police(?:man|woman)?
    (?:police )?officer detective soldier sailor guard cleaner janitor housekeeper nanny caregiver carer hairdresser
    barber stylist tailor student intern apprentice economist mathematician physicist chemist biologist
    programmer administrator admin educator instructor coordinator specialist strategist supervisor dispatcher
    cataloguer cataloger copywriter copyeditor nutritionist dietitian optometrist radiographer sonographer
    hygienist physiotherapist midwife surveyor curator archivist underwriter actuary sommelier courier"""
OCCUPATION_EN = r"(?:" + "|".join(w for w in _JOBS_EN.split()) + r")(?:e?s)?(?![\w-])"
_JOBS_ZH = """医生 医师 大夫 护士 牙医 兽医 药剂师 老师 教师 教授 讲师 校长 律师 法官 会计 会计师 审计师 工程师 程序员 码农
    建筑师 设计师 科学家 研究员 分析师 顾问 咨询师 经理 总监 老板 创业者 厨师 司机 警察 消防员 军人 飞行员 空姐 记者 编辑
    作家 翻译 演员 歌手 画家 摄影师 销售 店员 服务员 收银员 快递员 外卖员 保安 保姆 农民 工人 电工 公务员 学生 研究生 博士生
    实习生 秘书 助理 前台 导游 理发师 心理咨询师 社工 教练 售货员 客服 主播 模特"""
OCCUPATION_ZH = r"(?:" + "|".join(sorted(_JOBS_ZH.split(), key=len, reverse=True)) + r")"
_OCC_EN = re.compile(r"^(?:an?\s+)?(?:[\w-]+\s+){0,2}?" + OCCUPATION_EN + r"$", re.I)
_OCC_ZH = re.compile(r"^(?:一名|一个|一位|名|个)?[\u4e00-\u9fff]{0,4}?" + OCCUPATION_ZH + r"$")
# words before a job noun that make it no job: "a fan of doctors", "a good cook", "a bad driver", "a wannabe actor"
NOT_JOB_WORDS = r"(?:of|fan|friend|not|no|big|huge|wannabe|aspiring|future|patient|client|customer|good|bad|great|" \
    r"terrible|awful|horrible|lousy|poor|decent|better|worse|best|worst|excellent|amazing|careful|safe|fast|slow|" \
    r"quick|natural|born|picky|hopeless|frustrated|amateur|hobby|weekend|self-taught)"
_NOT_JOB_LEAD = re.compile(r"\b" + NOT_JOB_WORDS + r"\b", re.I)

# -- relatives and acquaintances: the one source of the relation words (facts, answering) --------------------------
# relations said several ways, English and Chinese: each word -> the one slot its facts share (:func:`person_key`),
# so "My mom lives in Paris." and a later "My mother moved to Berlin." / 我母亲搬到北京了 are one ``mother_home_city``
KIN_GROUPS: dict[str, tuple[str, ...]] = {
    "mother": ("mother", "mom", "mum", "mommy", "妈妈", "母亲", "妈", "老妈"),
    "father": ("father", "dad", "daddy", "爸爸", "父亲", "爸", "老爸"),
    "wife": ("wife", "老婆", "妻子", "太太"),
    "husband": ("husband", "hubby", "老公", "丈夫"),
    "grandfather": ("grandfather", "grandpa"),
    "grandmother": ("grandmother", "grandma"),
    "boyfriend": ("boyfriend", "男朋友", "男友"),
    "girlfriend": ("girlfriend", "女朋友", "女友"),
    "son": ("son", "儿子"),
    "daughter": ("daughter", "女儿", "闺女"),
    "colleague": ("colleague", "coworker", "同事"),
    "boss": ("boss", "老板"),
}
KIN_CANONICAL: dict[str, str] = {w: canon for canon, words in KIN_GROUPS.items() for w in words}
# a sibling said with one character (我哥, 我姐搬到深圳了): the relation of the doubled word, a slot of its own as that is
KIN_SHORT: dict[str, str] = {"哥": "哥哥", "姐": "姐姐", "弟": "弟弟", "妹": "妹妹"}
# English words broader than Chinese ones, which stay relations (and slots) of their own: 哥哥 is an older brother,
# 弟弟 a younger one, 奶奶 the father's mother, 外婆 / 姥姥 the mother's. "brother" never merges with either (which
# one is meant is unknown); a question about the broader word is answered by a memory of a narrower one, never the
# reverse (:func:`kin_covers`)
KIN_NARROWER: dict[str, tuple[str, ...]] = {
    "brother": ("哥哥", "弟弟"), "sister": ("姐姐", "妹妹"), "grandmother": ("奶奶", "外婆", "姥姥"),
    "grandfather": ("爷爷", "外公", "姥爷")}
# a child, in any word for one, is a son or a daughter ("Where does my kid go to school?" / 孩子在哪上学？ by 我女儿…):
# each broad word is answered by the others and by both narrow ones, never the reverse (a son is not "my daughter")
_CHILD_WORDS = ("child", "children", "kid", "孩子")
KIN_NARROWER.update({w: ("son", "daughter", *(o for o in _CHILD_WORDS if o != w)) for w in _CHILD_WORDS})

# people a user speaks of ("my brother is …"): their facts are typed by value (:func:`person_slot`)
PERSON_WORDS = frozenset("""brother sister partner friend cousin aunt uncle niece nephew neighbour neighbor
    roommate flatmate kid child teacher landlord landlady manager coach tutor classmate fiance fiancé fiancee
    fiancée stepmom stepdad stepmother stepfather stepbrother stepsister sibling spouse
    bestie bff buddy 闺蜜 发小 舍友 哥们 好友 哥 姐 弟 妹
    弟弟 哥哥 姐姐 妹妹 朋友 表哥 表姐 表弟 表妹 叔叔 阿姨 爷爷 奶奶 外婆 外公 姥姥 姥爷 孩子 邻居 室友 老师 同学 房东 领导
    经理 教练 未婚妻 未婚夫 侄子 侄女 外甥 外甥女 堂哥 堂姐 堂弟 堂妹 师兄 师姐 师弟 师妹 学长 学姐 学弟 学妹 徒弟""".split()) | frozenset(KIN_CANONICAL)
# people whose sentences are theirs, not the speaker's (:mod:`anchormem.answering.persons`), without typed slots
OTHER_PERSON_WORDS = frozenset("doctor dentist parent in-law brother-in-law sister-in-law 父母 家人".split())
RELATION_WORDS = PERSON_WORDS | OTHER_PERSON_WORDS


@lru_cache(maxsize=16)
def relation_pattern(zh: bool, words: frozenset[str] = RELATION_WORDS) -> str:
    """A regex alternation (no group) of the English or the Chinese ``words``, longest first; English plurals are
    the caller's (``(?:e?s)?``), "children" is included. A one-character Chinese word (哥, 姐, 妈) matches only as a
    word of its own (:func:`one_character_relation`): not inside a longer relation (舅妈, 后妈), not the first half
    of a doubled one (妈妈), not inside a word that names no such relative (师姐, 徒弟: ``not_kin`` of
    data/lang/zh/kin.json), so backtracking never finds it there."""
    if zh:
        parts = [re.escape(w) if len(w) > 1 else one_character_relation(w)
                 for w in sorted((w for w in words if has_cjk(w)), key=lambda w: (-len(w), w))]
    else:
        parts = [re.escape(w) for w in sorted({*(w for w in words if not has_cjk(w)), "children"},
                                               key=lambda w: (-len(w), w))]
    return "|".join(parts)


def one_character_relation(word: str) -> str:
    """A regex for the one-character relation ``word`` (哥, 妈) as a word of its own: not after a character of
    ``one_character_guard`` (舅妈, 干爸), not doubled (妈妈), not inside a word of ``not_kin`` (师姐, 徒弟, 堂哥; both
    of data/lang/zh/kin.json): "我师姐搬到深圳了" names no sister, "我姐搬到深圳了" does."""
    from .. import langdata

    data = langdata.load("kin", "zh")
    w = re.escape(word)
    guard = "".join(data.get("one_character_guard", ""))
    out = f"(?<![{re.escape(guard)}])" if guard else ""
    for c in sorted(data.get("not_kin", [])):
        at = c.find(word)
        if at < 0 or len(c) == 1:
            continue
        before, after = re.escape(c[:at]), re.escape(c[at + 1:])
        out += f"(?<!{before})" if not after else f"(?!{w}{after})" if not before else f"(?!(?<={before}){w}{after})"
    return out + f"{w}(?!{w})"


def kin_canonical(word: str) -> str:
    """The canonical word of a relation word (:data:`KIN_CANONICAL`: "mom" -> "mother", 太太 -> "wife"), lower-cased;
    any other word lower-cased as it is ("brother", 哥哥)."""
    w = word.strip().lower()
    return KIN_CANONICAL.get(w, w)


def kin_covers(asked: str, said: str) -> bool:
    """A question about relation ``asked`` is answered by what is said of relation ``said`` (both canonical,
    :func:`kin_canonical`): the same relation, or a narrower one (:data:`KIN_NARROWER`: asked "brother", said
    哥哥). Asked 哥哥, said "brother" or 弟弟: no."""
    return asked == said or said in KIN_NARROWER.get(asked, ())


PERSON_MODIFIERS = r"(?:older|younger|little|big|best|elder|baby|twin|eldest|youngest|oldest|step|new|current|ex|" \
    r"former)"  # words before a relation: "my older brother", "my best friend"
_MODIFIERS = re.compile(r"^(?:" + PERSON_MODIFIERS + r"\s+)+", re.I)


@lru_cache(maxsize=2)
def _slot_words(key: str) -> frozenset[str]:
    """A word set of data/lang/*/slots.json (``nationalities``, ``marital``), all languages, lower-cased."""
    from .. import langdata

    return frozenset(w.lower() for w in langdata.words("slots", key))


_AGE = re.compile(r"^(?:about |around )?\d{1,3}(?:\s*(?:years?|yrs?)(?:\s+old)?)?$|^[\d一二两三四五六七八九十百]{1,4}岁$",
                  re.I)
_NEGATED = re.compile(r"^(?:not|no longer)\s+(.+?)(?:\s+any\s?more)?$", re.I)
_NAME_WORD = re.compile(r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?|[A-Z][a-z'’-]+|[A-Z]\.)")


def is_occupation(value: str) -> bool:
    """``value`` names a job: "a nurse", "software engineer", "an ER doctor", 一名医生, 护士 (a job noun of
    :data:`OCCUPATION_EN` / :data:`OCCUPATION_ZH` as its head, at most two modifiers); not "a fan of doctors",
    "a friend of a teacher"."""
    v = value.strip()
    if has_cjk(v):
        return bool(_OCC_ZH.match(v))
    return bool(_OCC_EN.match(v)) and not _NOT_JOB_LEAD.search(v)


def is_person(word: str) -> bool:
    """``word`` names a relative or acquaintance (:data:`PERSON_WORDS`), one or several: "brother", "older brother",
    "older_brother", "best friend", "brothers", "children", 弟弟."""
    w = word.strip()
    if has_cjk(w):
        return w in PERSON_WORDS
    w = _MODIFIERS.sub("", w.lower().replace("_", " "))
    return w in PERSON_WORDS or _PLURAL_PERSON.get(w, "") in PERSON_WORDS or \
        (w.endswith("s") and w[:-1] in PERSON_WORDS)


PLURAL_PERSON = {"children": "child", "wives": "wife", "grandchildren": "child"}  # irregular plurals of person nouns
_PLURAL_PERSON = PLURAL_PERSON


def person_key(person: str) -> str:
    """The slot form of a person word: its relation's canonical word (:func:`kin_canonical`), modifiers and plural
    kept: "Mom" -> "mother", 妈妈 / 母亲 / 老妈 -> "mother", "older brother" -> "older brother", "moms" -> "mothers",
    老公 -> "husband", 哥哥 -> 哥哥. Any other word is returned as it is."""
    p = person.strip()
    m = _MODIFIERS.match(p)
    lead, head = (p[:m.end()], p[m.end():]) if m else ("", p)
    h = head.lower()
    if h in KIN_SHORT:
        return lead + KIN_SHORT[h]
    if h in KIN_CANONICAL:
        return lead + KIN_CANONICAL[h]
    if h.endswith("s") and h[:-1] in KIN_CANONICAL and h not in _PLURAL_PERSON:  # "moms", "coworkers"
        canon = KIN_CANONICAL[h[:-1]]
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
    (:data:`PERSON_WORDS`, with "older", "best"... allowed before it), typed by the value so that only a change of
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
    if not has_cjk(value) and 0 < len(words) <= 4 and all(_NAME_WORD.fullmatch(w) for w in words) and \
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
