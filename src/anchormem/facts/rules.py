"""Deterministic, offline fact extraction for English and Chinese user turns.

Patterns (first match per clause wins; see the tests for the full list of sentences):

- name: "my name is X", "call me X", "I'm called X", "我叫X", "我的名字是X", "大家叫我X" / "你可以叫我X" (叫我X only as what
  people call the speaker: "我妈妈叫我回家" is no name);
- "my X is Y" / "我的X是Y" / "我最喜欢的X是Y" -> attribute X; "my cat is called Y", "my cat's name is Y",
  "I have a cat called Y", "我的猫叫Y" -> ``cat_name``; when X is a person ("my brother", 我弟弟) the slot is
  typed by the value (:func:`~anchormem.facts.keys.person_slot`): "My brother is Tom." -> ``brother_name``,
  "My brother is a doctor." -> ``brother_occupation``, "My sister moved to Berlin." / "My sister lives in
  Berlin." -> ``sister_home_city``, "我妈妈住在上海" -> ``mother_home_city``, "My brother is tall." -> ``brother``; so
  only a change of the same kind supersedes; several ("My brothers are doctors.") are a person of their own:
  ``brothers_occupation``; one relation said several ways is one person ("mom", "mother", 妈妈, 母亲 -> ``mother``:
  :data:`~anchormem.facts.keys.KIN_GROUPS`), 哥哥 / 弟弟 and "brother" are three;
- home: "I live in Y", "I'm based in Y", "I moved to Y", "I moved out of X and now live in Y", "我住在Y",
  "我搬到了Y", "我搬出了X，现在住在Y" (a Chinese clause without a subject that goes on about the home is the
  speaker's) -> ``home_city``; "I moved out of X", "我搬出了X" -> ``home_city`` X, -1;
- work: "I work at/for Y", "new job at Y", "我在Y工作", "入职Y" -> ``employer``; "I work as Y", "I'm a nurse",
  "I'm a software engineer at Google" (a job noun: :data:`~anchormem.facts.keys.OCCUPATION_EN`),
  "我是一名Y", "我是老师", "我在医院当护士" -> ``occupation``; "I work at a hospital as a nurse" / "I work as a nurse
  at a hospital" -> both; "I used to be a teacher", "I quit my job as a nurse", "我不再是老师了", "我不当老师了"
  -> ``occupation``, -1;
- preferences: "I like/love/enjoy/prefer X", "I'm a fan of X", "我喜欢X" -> ``likes:X`` (+1);
  "I don't like / hate / can't stand X", "我不喜欢X", "我讨厌X" -> ``likes:X`` (-1), the SAME slot;
- "I no longer X", "I don't X any more", "I used to X", "我不再X", "我已经不是X": X is parsed as above with the
  polarity flipped ("I no longer live in Y", "I used to live in Y" -> ``home_city`` -1); otherwise (no longer, 不再)
  ``does:X`` -1. "I stopped/quit X-ing" -> ``does:X`` -1;
- "I'm allergic to X", "我对X过敏" -> ``allergy:X`` (sensitive);
- third person: "Person Q enjoys chess", "Person Q lives in Y" -> entity "Person Q";
- someone else's home, employer or job is that person's claim (:func:`~anchormem.facts.subjects.owned_facts`;
  whose action a clause states: :func:`~anchormem.facts.subjects.person_owner`): "My wife just started at
  Stripe" -> ``wife_employer``, 我老公跳槽去阿里了 -> ``husband_employer``, "My sister Mei moved to Beijing" /
  "Tom just moved to Seattle" -> entity "Mei" / "Tom", ``home_city``; a possessed noun that is no person ("the
  office moved to …") states nothing.

Only user turns are read (assistant and system turns never become user facts). Questions, hypotheticals
("if I lived in…", "I would love…", "如果…") and wishes are skipped. Hedges ("maybe", "I think", "probably",
"可能", "也许", "大概") give confidence 0.6 instead of 1.0. Values are stored without their article
(:func:`~anchormem.facts.keys.clean_value`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timezone
from functools import lru_cache

from .. import langdata
from ..ingest.classify import stated_part
from ..text.dates import resolve_dates
from ..text.segment import split_sentences
from ..text.tokenize import has_cjk
from . import triggers
from .keys import (value_key, NOT_JOB_WORDS, OCCUPATION_EN, OCCUPATION_ZH, PERSON_MODIFIERS, PERSON_WORDS, is_occupation,
                   is_person, negated_person_value, person_key, person_slot, possessed_attribute, relation_pattern)
from .changes import blocked, clause_changes, sentence_changes
from .frames import frame_facts, merge_frames
from .values import duration_at
from .subjects import clause_subject, owned_facts as _owned, person_owner, without_name
from .model import Fact, detect_language, is_sensitive, normalize_object

__all__ = ["extract_facts_rules", "extract_from_text", "HEDGED_CONFIDENCE", "hedge_confidence", "not_the_speakers"]

HEDGED_CONFIDENCE = 0.6



@lru_cache(maxsize=1)
def _cue_patterns() -> tuple[re.Pattern, re.Pattern]:
    """(hedge, hypothetical) cue patterns from data/lang/*/cues.json (English as whole words, Chinese as substrings)."""
    def build(key: str) -> re.Pattern:
        en = langdata.alternation(langdata.words("cues", key, ("en",)))
        zh = langdata.alternation(langdata.words("cues", key, ("zh",)))
        return re.compile(r"\b(?:" + en + r")\b|" + zh, re.I)
    return build("hedge"), build("hypothetical")


_LEAD = re.compile(
    r"^(?:(?:actually|well|so|oh|also|btw|by the way|honestly|anyway|now|but|and|ok|okay|yeah|yes|no|hmm+|um+|"
    r"fun fact|just so you know|fyi|i think|i guess|i believe|i suppose|maybe|perhaps|probably|"
    r"i'm pretty sure|i am pretty sure)\b[\s,:;!-]*)+", re.I)
_LEAD_ZH = re.compile(r"^(?:其实|不过|但是|而且|另外|对了|嗯+|哦+|我觉得|可能|也许|大概|或许|好像|估计|顺便说一下)[，,\s]*")
@lru_cache(maxsize=1)
def _clause_split() -> re.Pattern:
    """Clause boundaries: Chinese commas and semicolons; ", I…" / " and I…"; and " and <verb>" for a verb that starts
    a clause of its own ("I left Google and joined Stripe"; the verbs: ``clause_verbs`` of data/lang/en/changes.json)."""
    frame_verbs = [v for name, spec in langdata.load("frames", "en").get("classes", {}).items() for v in spec["verbs"]
                   if v[:1].isalpha() and v not in ("am", "is", "are") and name != "move"]  # "… and now work at X"
    # (not a move: "I left Lisbon and moved to Berlin" is one statement about the home)
    verbs = langdata.alternation(tuple(langdata.words("changes", "clause_verbs", ("en",))) + tuple(frame_verbs))
    return re.compile(r"[，；;]|,\s*(?=(?:and\s+|but\s+|so\s+)?(?:now\s+|then\s+)?(?:I|I'm|I've|my|My|call me)\b)|"
                      r"\s+(?:and|but)\s+(?=(?:now\s+|then\s+)?(?:I|I'm|I've|my|we|we're|we've)\b)|\s+and\s+(?=(?:now\s+|then\s+)?(?:" + verbs + r")\b)")
_QUESTION_START = re.compile(r"^(?:what|when|where|who|whom|which|why|how|is|are|do|does|did|can|could|should|"
                             r"shall|will)\b", re.I)

# -- value cleanup ---------------------------------------------------------------------------------------------
_EN_CUT = re.compile(
    r"\s+(?:any ?more|a lot(?! of)|for (?:a|\d+|one|two|three|several|many|the past)|in \d{4}|"
    r"in (?:early |late |mid-?)?(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|spring|summer|autumn|fall|winter|the (?:spring|summer|autumn|fall|winter)))\b"
    r"|\s*(?:(?<!\d),|,(?!\d{3}\b)|[;:(（])|\s+-\s", re.I)  # "3,000 euros" keeps its thousands comma
_ZH_TAIL = re.compile(r"(?:了|啦|的|呢|吧|啊|呀|哦|工作|上班|任职)+$")
_ADV = r"(?:(?:really|actually|now|currently|still|also|just|truly|absolutely|definitely|totally|genuinely|" \
       r"kind of|sort of|honestly|do|really do|always|usually|mostly|probably|even|only|finally|recently)\s+)*"
_ZADV = r"(?:[上下这本今明去前后]个?(?:月|周|星期|礼拜|年)[一二三四五六日天]?|(?:周|星期|礼拜)[一二三四五六日天]|" \
        r"今天|昨天|明天|最近|刚刚?|已经|马上|就要?|将要?|准备|打算|现在|目前|也|还|一直|真的|非常|很|特别|超级|挺|比较|" \
        r"确实|其实|可能|也许|大概|好像|最|更|全家|终于|只|\s)*"


_PRONOUNS = frozenset("it that this them those these one so too there here him her 它 这 那 这个 那个 他 她".split())


@lru_cache(maxsize=1)
def _time_stops() -> re.Pattern:
    """Time phrases a value ends at, in either script (``value_stops`` of data/lang/*/dates.json): English as whole
    words after a space, Chinese as substrings."""
    en = langdata.alternation(langdata.words("dates", "value_stops", ("en",)))
    zh = langdata.alternation(langdata.words("dates", "value_stops", ("zh",)))
    return re.compile(r"(?<=[^\W\d_])\s*(?:" + zh + r")|\s+(?:" + en + r")\b|(?<=[\u3400-\u9fff])\s*(?:" + en + r")\b",
                      re.I)


_ANCHOR = datetime(2000, 6, 15, 12, tzinfo=timezone.utc)  # only where a date phrase starts matters


def time_cut(v: str) -> str:
    """``v`` up to its first time phrase past its start, in either script ("上海 last month" -> "上海", "Berlin
    上个月" -> "Berlin", "Lisbon 3 weeks ago" -> "Lisbon"): a :data:`_time_stops` word or any date
    :func:`~anchormem.text.dates.resolve_dates` reads."""
    cut = len(v)
    m = _time_stops().search(v, 1)
    if m:
        cut = m.start()
    for span in resolve_dates(v, _ANCHOR):
        at = v.find(span.text)
        if 0 < at < cut:
            cut = at
    at = duration_at(v)
    if 0 < at < cut:
        cut = at
    if cut == len(v):
        return v
    head = _date_prep().sub("", " " + v[:cut].rstrip()).strip()
    return head or v  # nothing before the date but "on"/"in": the date is the value ("birthday is on March 3")


@lru_cache(maxsize=1)
def _date_prep() -> re.Pattern:
    """A word leading into a date ("in", "since", 于), left at the end of a value cut at that date."""
    en = langdata.alternation(langdata.words("dates", "date_preps", ("en",)))
    zh = langdata.alternation(langdata.words("dates", "date_preps", ("zh",)))
    return re.compile(r"(?:\s+(?:" + en + r")|\s*(?:" + zh + r"))\s*$", re.I)


@lru_cache(maxsize=1)
def _value_ends() -> re.Pattern:
    """Words after which a value has ended whatever the slot (``value_ends`` of data/lang/en/values.json: "New York
    with my wife" -> "New York", "Leeds near the university" -> "Leeds"), as whole words after a space."""
    return re.compile(r"\s+(?:" + langdata.alternation(langdata.words("values", "value_ends", ("en",))) + r")\b",
                      re.I)


def _clean(v: str, *, max_words: int = 8) -> str | None:
    v = v.strip().strip("\"'“”‘’「」")
    v = re.sub(r"^(?:now|currently|still)\s+", "", v, flags=re.I)  # "my phone number is now 555-0101"
    v = time_cut(v)
    if not v:
        return None
    if has_cjk(v) and re.match(r"[A-Za-z<]", v):
        v = re.split(r"\s*[\u3400-\u9fff]", v, maxsplit=1)[0]  # "Company K 下周一开始" -> "Company K"
    # English (also the English head just cut from its Chinese tail), or a Chinese value with English after it
    if not has_cjk(v) or re.search(r"[A-Za-z]", v):
        v = re.split(r"[。！？；]", v, maxsplit=1)[0]  # "上海。 It is nice": a clause ends in either script
        cuts = [m.start() for m in (_EN_CUT.search(v), _value_ends().search(v)) if m]
        if cuts:
            v = v[: min(cuts)]
    v = re.sub(r"[\s.!?。！？~…]+$", "", v).strip()
    if has_cjk(v):
        v = _ZH_TAIL.sub("", v).strip()
    if not v or len(v.split()) > max_words or len(v) > 80 or v.casefold() in _PRONOUNS:
        return None
    return v


# -- patterns --------------------------------------------------------------------------------------------------
# Each rule: (regex, attribute builder (match -> attribute), polarity, entity group or None)
Rule = tuple[re.Pattern, Callable[[re.Match], str], int]

_V = r"(?P<v>.+)"
_NAME_V = r"(?P<v>[^\s,.;!?，。；！？][^,.;!?，。；！？]{0,40})"


def _c(p: str) -> re.Pattern:
    return re.compile(p, re.I)


def _const(attr: str) -> Callable[[re.Match], str]:
    return lambda m: attr


def _named(m: re.Match) -> str:
    """"my X is called Y" / "我X叫Y": ``X_name`` (a person X by its relation's slot form: mom, 妈妈 -> mother)."""
    a = m.group("a")
    return f"{person_key(a) if is_person(a) else a}_name"


def _person_is(m: re.Match) -> str:
    """"my X is Y": X; typed by the (cleaned) value in :func:`_apply` when X is a person."""
    return m.group("a")


def _person_home(m: re.Match) -> str:
    """"my X moved to Y" / "my X lives in Y" / "我X住在Y": ``X_home_city`` for a person X (:data:`PERSON_WORDS`, by
    its relation's slot form: "mom", "mother", 妈妈, 母亲 -> ``mother_home_city``), else X."""
    a = m.group("a")
    return f"{person_key(a)}_home_city" if is_person(a) else a


def _person_employer(m: re.Match) -> str:
    """"my X works at Y" / "我X在Y上班": ``X_employer`` for a person X (by its relation's slot form)."""
    return f"{person_key(m.group('a'))}_employer"


def _changed(m: re.Match) -> str:
    """"my X changed to Y": X (a person's move is :func:`_person_home`'s, not a change of a value)."""
    return m.group("a")


def _likes(m: re.Match) -> str:
    return f"likes:{normalize_object(m.group('v'))}"


def _does(m: re.Match) -> str:
    return f"does:{normalize_object(m.group('v'))}"


_DIET_V = r"(?P<v>vegetarian|vegan|pescatarian|pescetarian|flexitarian|(?:keto|paleo|low-carb|gluten-free|" \
          r"plant-based|vegan|vegetarian)(?:\s+diet)?)\b"
_MEAT = r"steaks?|beef|pork|chicken|bacon|ham|lamb|burgers?|sausages?|turkey|meat"
_COUNTED = r"cats?|dogs?|pets?|kids?|children|child|sons?|daughters?|brothers?|sisters?|siblings?|cars?|" \
           r"houses?|bikes?|fish|birds?|rabbits?|hamsters?|horses?|grandchildren|grandkids?"
# everyday verbs of habits; those in _HABIT_ALONE make a habit on their own ("I run every day"), the others need
# an object ("I drink coffee"; "Yes I do" is no habit)
_HABIT_ALONE = r"smoke|vape|run|jog|swim|cook|bake|drive|walk|hike|bike|cycle|ski|surf|meditate|study|volunteer|" \
               r"paint|knit|garden|fish|climb|dance|sing|skate|work out|exercise|train|box|read|write"
_HABIT = r"drink|eat|play|ride|practi[cs]e|go|use|wear|learn|teach|collect|attend|take|do|watch|listen to|visit|lift"
_PERSON_EN = r"(?:" + PERSON_MODIFIERS + r"\s+)*(?:" + relation_pattern(False, PERSON_WORDS) + \
    r")(?:e?s)?(?![\w'])"  # "my sisters"
_PERSON_ZH = r"(?:" + relation_pattern(True, PERSON_WORDS) + r")"
# "I'm a nurse", "I am an ER doctor", "I'm a software engineer at Google": a job noun after at most two modifiers
# (not "a good cook", "a fan of doctors": keys.NOT_JOB_WORDS)
_JOB_EN = r"(?P<v>(?:(?!" + NOT_JOB_WORDS + r"\b)[\w-]+\s+){0,2}?" + \
    OCCUPATION_EN + r")(?!['’]s\b)"
_NOT_OBJECT = r"it|that|this|there|here|you|him|her|them|so|too|not|to\s+(?:the\s+)?(?:store|bed|sleep|see)|" \
              r"think|know|mean|hope|guess|feel|a look|care|well|back|home|out|about|what|if|when|because"

_EN_RULES: list[Rule] = [
    (_c(r"\b(?:my name is|my name's|call me|i'm called|i am called|i go by)\s+" + _NAME_V), _const("name"), 1),
    (_c(r"\bmy\s+(?P<a>[a-z][\w-]*(?: [a-z][\w-]*)?)\s+(?:is|was|'s)\s+(?:called|named)\s+" + _NAME_V),
     _named, 1),
    (_c(r"\bmy\s+(?P<a>[a-z][\w-]*(?: [a-z][\w-]*)?)'s name is\s+" + _NAME_V), _named, 1),
    (_c(r"\bI\s+(?:have|had|got)\s+an?\s+(?P<a>[a-z][\w-]*(?: [a-z][\w-]*)?)\s+(?:called|named)\s+" + _NAME_V),
     _named, 1),
    (_c(r"\bI\s+" + _ADV + r"(?:live|reside)\s+in\s+" + _V), _const("home_city"), 1),
    (_c(r"\bI(?:'m| am)\s+" + _ADV + r"(?:living|based|residing|settled)\s+in\s+" + _V), _const("home_city"), 1),
    (_c(r"\bI(?:'ve| have)?\s+" + _ADV + r"(?:moved|relocated)\s+(?:back\s+)?(?:to|into)\s+" + _V),
     _const("home_city"), 1),
    # "I moved from Lisbon to Berlin", "We moved to Berlin in May", "we live in Porto now" (the household's home)
    (_c(r"\b(?:I|we)(?:'ve| have)?\s+" + _ADV + r"(?:moved|relocated)\s+(?:back\s+)?from\s+(?-i:[A-Z])[\w' .-]*?\s+"
        r"(?:to|into)\s+" + _V), _const("home_city"), 1),
    # "I moved out of Lisbon and now live in Berlin", "I left Lisbon and moved to Berlin": the new home
    (_c(r"\b(?:I|we)(?:'ve| have)?\s+" + _ADV + r"(?:moved\s+(?:out\s+of|away\s+from)|relocated\s+from|left)\s+"
        r"(?-i:[A-Z])[\w' .-]*?\s+and\s+(?:now\s+|then\s+|have\s+|'ve\s+)?" + _ADV +
        r"(?:(?:live|reside)\s+in|(?:moved|relocated)\s+(?:back\s+)?(?:to|into)|settled\s+in|am\s+living\s+in)\s+"
        + _V), _const("home_city"), 1),
    # "I moved out of Lisbon": that home ends
    (_c(r"\b(?:I|we)(?:'ve| have)?\s+" + _ADV + r"moved\s+(?:out\s+of|away\s+from)\s+(?P<v>(?-i:[A-Z])[\w' .-]*)$"),
     _const("home_city"), -1),
    (_c(r"\bwe(?:'ve| have)?\s+" + _ADV + r"(?:moved|relocated)\s+(?:back\s+)?(?:to|into)\s+" + _V),
     _const("home_city"), 1),
    (_c(r"\bwe\s+" + _ADV + r"(?:live|reside)\s+in\s+" + _V), _const("home_city"), 1),
    (_c(r"\bwe(?:'re| are)\s+" + _ADV + r"(?:living|based|residing|settled)\s+in\s+" + _V), _const("home_city"), 1),
    (_c(r"\bI(?:'m| am| will| 'll|'ll)\s+" + _ADV + r"(?:moving|relocating|move|relocate)\s+(?:back\s+)?to\s+"
        + _V), _const("home_city"), 1),
    (_c(r"\bI\s+" + _ADV + r"work\s+as\s+(?:an?\s+)?" + _V), _const("occupation"), 1),
    # "I quit my job as a nurse", "I left my position as a teacher": that job ended
    (_c(r"\bI(?:'ve| have)?\s+(?:just\s+|finally\s+|recently\s+)?(?:quit|left|lost|gave up|given up|resigned from)\s+"
        r"my\s+(?:job|position|work|career|post)\s+as\s+(?:an?\s+)?" + _V), _const("occupation"), -1),
    (_c(r"\bI(?:'m| am)\s+" + _ADV + r"working\s+as\s+(?:an?\s+)?" + _V), _const("occupation"), 1),
    (_c(r"\bI(?:'m| am|'ve been| have been)\s+" + _ADV + r"(?:now\s+)?(?:an?\s+)?" + _JOB_EN), _const("occupation"), 1),
    (_c(r"\bI\s+" + _ADV + r"work\s+(?:at|for)\s+" + _V), _const("employer"), 1),
    (_c(r"\bI(?:'m| am)\s+" + _ADV + r"working\s+(?:at|for)\s+" + _V), _const("employer"), 1),
    (_c(r"\b(?:new job|a job|started (?:a )?(?:new )?job|started working|joined|got hired)\s+(?:at|with|by)\s+"
        + _V), _const("employer"), 1),
    (_c(r"\bI(?:'m| am)\s+" + _ADV + r"allergic\s+to\s+" + _V),
     lambda m: f"allergy:{normalize_object(m.group('v'))}", 1),
    (_c(r"\bI\s+" + _ADV + r"(?:don't|do not|didn't|did not|never)\s+" + _ADV +
        r"(?:like|enjoy|love|care for)\s+" + _V), _likes, -1),
    (_c(r"\bI\s+" + _ADV + r"(?:hate|dislike|detest|loathe|despise|can't stand|cannot stand|can not stand|"
        r"can't bear|cannot bear)\s+" + _V), _likes, -1),
    (_c(r"\bI(?:'m| am)\s+" + _ADV + r"not\s+(?:a\s+)?(?:big\s+|huge\s+)?(?:fan of|into|keen on)\s+" + _V),
     _likes, -1),
    (_c(r"\bI\s+" + _ADV + r"prefer\s+(?P<v>.+?)(?:\s+(?:over|to|rather than|instead of)\s+.+)?$"), _likes, 1),
    (_c(r"\bI\s+" + _ADV + r"(?:like|love|enjoy|adore)\s+" + _V), _likes, 1),
    (_c(r"\bI(?:'m| am)\s+" + _ADV + r"(?:a\s+)?(?:big\s+|huge\s+)?(?:fan of|into|keen on)\s+" + _V), _likes, 1),
    (_c(r"\bI(?:'ve| have)?\s+(?:stopped|quit|gave up|given up)\s+(?P<v>\w+ing\b.*)"), _does, -1),
    (_c(r"\bI(?:'ve| have)?\s+(?:gave up|given up|cut out)\s+(?P<v>(?!on\b|hope\b|trying\b).+)"), _does, -1),
    # "I quit coffee", "I've stopped sugar" (a lowercase thing: "I quit Google" is an employer, below)
    (_c(r"\bI(?:'ve| have)?\s+(?:just\s+|finally\s+)?(?:quit|stopped)\s+(?P<v>(?!(?:by|at|in|on|to|for|and|"
        r"because|it|that|this|there|my job|the job|working|being)\b)(?-i:[a-z])[\w' -]+)"), _does, -1),
    # diet: "I'm (a) vegetarian", "I went vegan", "I'm on a keto diet"; "I started eating meat again"
    (_c(r"\bI(?:'m| am|'ve been| have been)\s+" + _ADV + r"(?:now\s+)?(?:an?\s+)?(?:strict\s+)?(?:on\s+an?\s+)?"
        + _DIET_V), _const("diet"), 1),
    (_c(r"\bI\s+" + _ADV + r"(?:went|became|turned|have gone|'ve gone|am going|'m going)\s+(?:an?\s+)?" + _DIET_V),
     _const("diet"), 1),
    (_c(r"\bI(?:'ve| have)?\s+" + _ADV + r"(?:started|began|begun|am|'m)\s+(?P<v>eating meat)\b"), _const("diet"), 1),
    (_c(r"\bI\s+" + _ADV + r"(?P<v>eat meat)\s+(?:again|now)\b"), _const("diet"), 1),
    # eating meat says the diet too: "I eat steak every weekend now" (facts/keys.py: value key "eats meat")
    (_c(r"\bI(?:'ve| have)?\s+" + _ADV + r"(?:eat|started eating|began eating|am eating|'m eating)\s+(?:\w+\s+)?(?P<v>"
        + _MEAT + r")\b"), _const("diet"), 1),
    # "I switched from coffee to green tea": the old habit ends
    (_c(r"\bI(?:'ve| have)?\s+" + _ADV + r"(?:switched|changed|moved)\s+from\s+(?P<v>(?-i:[a-z])[\w' -]+?)\s+to\s+"),
     _does, -1),
    # counts of pets, children, cars: "I have two cats", "I've got 3 kids"
    (_c(r"\bI(?:'ve| have)?\s+" + _ADV + r"(?:have|got|own)\s+(?P<v>(?:an?|one|two|three|four|five|six|seven|eight|"
        r"nine|ten|no|\d+)\s+(?:\w+\s+)?(?P<n>" + _COUNTED + r"))\b"),
     lambda m: f"count:{m.group('n')}", 1),
    # employer changes: "I joined Stripe", "I quit Google" (a proper name only: "I joined a gym" is no employer)
    (re.compile(r"\b(?:I|and|then)\s+(?:just\s+|recently\s+|finally\s+)?(?:joined|started at)\s+"
                r"(?P<v>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3})"), _const("employer"), 1),
    (re.compile(r"\bI\s+(?:just\s+|recently\s+|finally\s+)?(?:quit|left)\s+(?:my job at\s+|my job with\s+)?"
                r"(?P<v>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3})"), _const("employer"), -1),
    # "Max passed away", "our dog Max died", "my cat Luna ran away": closes the pet-name fact holding that name
    (re.compile(r"(?:\b(?:[Mm]y|[Oo]ur)\s+(?:dog|cat|pet|bird|fish|rabbit|hamster|horse|parrot|turtle|puppy|kitten)\s+)?"
                r"\b(?P<v>[A-Z][a-z]+)\s+(?:sadly\s+|just\s+|recently\s+)?(?:passed away|died|has died|ran away|"
                r"was put down|was put to sleep)\b"), _const("gone"), 1),
    # habits: "I drink coffee every morning", "I play tennis", "I run" (present tense of an everyday verb)
    (_c(r"\bI\s+" + _ADV + r"(?P<v>(?:" + _HABIT_ALONE + r")(?:\s+(?!(?:" + _NOT_OBJECT + r")\b).+)?|(?:" + _HABIT
        + r")\s+(?!(?:" + _NOT_OBJECT + r")\b)\S.*)[.!?]*$"), _does, 1),
    # "my sister moved to Berlin", "my brother lives in Oslo": the person's home (a place only)
    (_c(r"\bmy\s+(?P<a>" + _PERSON_EN + r")\s+(?:has\s+|have\s+|just\s+|recently\s+)*(?:moved|relocated)\s+(?:back\s+)?"
        r"(?:to|into)\s+" + _V), _person_home, 1),
    (_c(r"\bmy\s+(?P<a>" + _PERSON_EN + r")\s+(?:still\s+|now\s+|currently\s+|both\s+|all\s+)*(?:lives|resides|"
        r"is living|is based|live|reside|are living|are based)\s+in\s+" + _V), _person_home, 1),
    # "My wife works at Google", "My husband just started at Stripe": the person's employer
    (_c(r"\bmy\s+(?P<a>" + _PERSON_EN + r")\s+(?:still\s+|now\s+|currently\s+|just\s+|recently\s+)*(?:works|is working|"
        r"started|has started|joined|has joined|got a job)\s+(?:at|for|with)?\s*(?P<v>(?-i:[A-Z])[^,.;!?]*)"),
     _person_employer, 1),
    # "my shipping address changed to …", "my phone number has changed to …"
    (_c(r"\bmy\s+(?P<a>(?!(?:\w+ )*(?:when|if|i|you|we|they|that|which|who|and|but)\b)[a-z][\w'-]*"
        r"(?: [a-z][\w'-]*){0,3}?)\s+(?:has\s+|have\s+)?(?:changed|been changed|been updated|updated|moved)\s+to\s+"
        + _V), _changed, 1),
    # "my X is Y", but not "my sister Lena is visiting…" (a progressive verb is an event, not a value)
    (_c(r"\bmy\s+(?P<a>(?!(?:\w+ )*(?:when|if|i|you|we|they|that|which|who|and|but)\b)[a-z][\w'-]*"
        r"(?: [a-z][\w'-]*){0,3}?)\s+(?:is|are|was)\s+(?!\w+ing\b)" + _V),
     _person_is, 1),
]

_THIRD = re.compile(
    r"^(?P<e>[A-Z][\w<>-]*(?:\s+[A-Z][\w<>-]*)*)\s+(?:really\s+|also\s+|still\s+)*(?P<verb>likes|loves|enjoys|"
    r"adores|hates|dislikes|lives in|works at|works for|works as an?|works as|moved to)\s+(?P<v>.+)$")
_THIRD_ATTR = {"likes": ("likes", 1), "loves": ("likes", 1), "enjoys": ("likes", 1), "adores": ("likes", 1),
               "hates": ("likes", -1), "dislikes": ("likes", -1), "lives in": ("home_city", 1),
               "moved to": ("home_city", 1), "works at": ("employer", 1), "works for": ("employer", 1),
               "works as": ("occupation", 1), "works as a": ("occupation", 1), "works as an": ("occupation", 1)}

_ZV = r"(?P<v>[^，。！？,.!?；;]+)"
_CALL_ME = r"(?:^|(?:大家|别人|朋友们?|他们|她们|同事们?|同学们?|人们|家里人|你们?|您)(?:都|也|一般|通常|平时|经常)*|" \
           r"(?:可以|就|请|直接)\s*)叫我(?!(?:回|去|来|做|吃|喝|帮|别|不|起|过|走|出|上|下|快|早|给|把|跟|和|在|多|少|再))"
_ZH_RULES: list[Rule] = [
    # "叫我X" only as what people call the speaker ("大家叫我小王", "你可以叫我小王"), not "我妈妈叫我回家"
    (re.compile(r"(?:我的名字(?:是|叫)|我名字叫|我叫|" + _CALL_ME + r")\s*(?P<v>(?!了|做|外卖)[^，。！？,.!?；;\s]{1,20})"),
     _const("name"), 1),
    (re.compile(r"我(?:的|家的?|养的)(?P<a>[^，。！？是叫的]{1,8})(?:的名字)?(?:叫|名叫|叫做)\s*" + _ZV), _named, 1),
    (re.compile(r"我(?P<a>" + _PERSON_ZH + r")(?:的名字)?(?:叫|名叫|叫做)\s*(?![我你他她它])" + _ZV), _named,
     1),  # "我弟弟叫小明" (not "我妈妈叫我回家")
    (re.compile(r"我最喜欢的(?P<a>[^，。！？是]{1,10})是\s*" + _ZV), lambda m: "最喜欢的" + m.group("a"), 1),
    (re.compile(r"我(?:们家?)?" + _ZADV + r"(?:住在|住|家在|定居在)\s*" + _ZV), _const("home_city"), 1),
    # "我妈妈住在上海", "我母亲搬到北京了": the person's home (keys.person_key: 妈妈 / 母亲 / "mom" are one mother)
    (re.compile(r"我(?P<a>" + _PERSON_ZH + r")" + _ZADV + r"(?:住在|住|家在|定居在)\s*" + _ZV), _person_home, 1),
    # "我老公在腾讯上班": the person's employer
    (re.compile(r"我(?P<a>" + _PERSON_ZH + r")" + _ZADV + r"(?:现在|目前)?在\s*(?P<v>[^，。！？,.!?；;在]{1,30}?)\s*(?:工作|上班|任职)"),
     _person_employer, 1),
    (re.compile(r"我(?P<a>" + _PERSON_ZH + r")" + _ZADV + r"(?:从[^，。！？,.!?；;]{1,20}?)?(?:搬到了?|搬去了?|搬家到了?|"
                r"搬回了?|搬来了?)\s*" + _ZV), _person_home, 1),
    # "我从里斯本搬到柏林了", "我们五月搬到了柏林": the move's destination
    (re.compile(r"我(?:们家?)?" + _ZADV + r"(?:[一二三四五六七八九十]{1,2}月(?:份)?|\d{1,2}月(?:份)?)?(?:要|会)?"
                r"(?:从[^，。！？,.!?；;]{1,20}?)?(?:搬到了?|搬去了?|搬家到了?|搬回了?|搬来了?)\s*" + _ZV),
     _const("home_city"), 1),
    # "我搬出了上海": that home ends ("我搬出了上海，现在住在北京": the next clause names the new one)
    (re.compile(r"我(?:们家?)?" + _ZADV + r"(?:搬出了?|搬离了?|搬离开了?)\s*" + _ZV), _const("home_city"), -1),
    (re.compile(r"我" + _ZADV + r"在\s*(?P<v>[^，。！？,.!?；;在]{1,30}?)\s*(?:工作|上班|任职|实习)"), _const("employer"), 1),
    (re.compile(r"(?:新工作在|入职了?|加入了|跳槽到了?)\s*" + _ZV), _const("employer"), 1),
    (re.compile(r"我" + _ZADV + r"是(?:一名|一个|一位)\s*" + _ZV), _const("occupation"), 1),
    # "我是老师", "我现在是医生": a bare job noun that ends the clause (not "我是老师的学生")
    (re.compile(r"我" + _ZADV + r"是\s*(?P<v>(?:(?![的他她你它我不是])[\u4e00-\u9fff]){0,4}?" + OCCUPATION_ZH +
                r")(?=$|[了啊呀哦啦呢，。！!.,\s])"), _const("occupation"), 1),
    # "我在医院当护士", "我现在当老师": a job noun after 当 (not "我当妈妈了")
    (re.compile(r"我" + _ZADV + r"(?:在[^，。！？,.!?；;在当]{1,15}?)?(?:当|做)了?(?:一名|一个|一位)?\s*(?P<v>[\u4e00-\u9fff]{0,4}?"
                + OCCUPATION_ZH + r")(?![\u4e00-\u9fff]*(?:的|了吗|吗))"), _const("occupation"), 1),
    # "我弟弟是一名医生", "我妹妹是Anna": typed by the value (keys.person_slot)
    (re.compile(r"我(?P<a>" + _PERSON_ZH + r")" + _ZADV + r"是\s*" + _ZV), _person_is, 1),
    (re.compile(r"我" + _ZADV + r"对\s*(?P<v>[^，。！？对]{1,20}?)\s*过敏"),
     lambda m: f"allergy:{normalize_object(m.group('v'))}", 1),
    (re.compile(r"我" + _ZADV + r"(?:不喜欢|不太喜欢|不爱|讨厌|受不了|不能接受|反感|烦|不想再)\s*" + _ZV), _likes, -1),
    (re.compile(r"我" + _ZADV + r"(?:喜欢|爱|热爱|偏爱|喜爱|迷上了)\s*" + _ZV), _likes, 1),
    (re.compile(r"我" + _ZADV + r"(?:是|成了|变成了?|开始)?(?P<v>纯素食主义者|纯素食者|素食主义者|素食者|吃素)"),
     _const("diet"), 1),
    (re.compile(r"我" + _ZADV + r"(?:又|重新)?(?:开始)?(?P<v>吃肉)了"), _const("diet"), 1),
    # "我戒烟了", "我把咖啡戒了", "我戒辣了": a habit given up
    (re.compile(r"我" + _ZADV + r"(?:已经|终于)?戒(?:掉|了)?(?P<v>[^，。！？,.!?；;了]{1,8})了?"), _does, -1),
    (re.compile(r"我" + _ZADV + r"(?:已经|终于)?把(?P<v>[^，。！？,.!?；;]{1,8}?)戒(?:掉)?了"), _does, -1),
    (re.compile(r"我" + _ZADV + r"(?:有|养了?)\s*(?P<v>(?:[一二两三四五六七八九十]|\d+)\s*[只条个辆套位匹]\s*"
                r"(?P<n>猫|狗|孩子|儿子|女儿|车|房子?|鱼|鸟|兔子|宠物|兄弟|姐妹))"),
     lambda m: f"count:{_ZH_COUNTED.get(m.group('n'), m.group('n'))}", 1),
    # habits: "我每天早上喝咖啡", "我周末打网球" (not "我吃了一个苹果": a verb with 了 is an event)
    (re.compile(r"我" + _ZADV + r"(?:每天|每周|每晚|每个?周末|周末|经常|常常|平时|一般|通常|天天|早上|晚上|每天早上|每天晚上|都|要|"
                r"总是|习惯|\s)*"
                r"(?P<v>(?:吃|喝|抽|玩|打|跑|游|练|骑|弹|看|学|做|去|熬)(?!了|过)[^，。！？,.!?；;]{1,12})"), _does, 1),
    (re.compile(r"(?:我的|我家的?|我们的)?(?:狗|猫|宠物|小狗|小猫|鸟|兔子)?(?P<v>[A-Za-z]+|[\u4e00-\u9fff]{1,4}?)"
                r"(?:去世了|死了|病死了|走丢了|跑丢了)"), _const("gone"), 1),
    # "我的快递地址改成北京市…", "我的手机号换成了…": the slot's new value
    (re.compile(r"(?:我的|我把(?:我的)?)(?P<a>[^，。！？是把]{1,12}?)(?:已经)?(?:改成了?|改为|换成了?|变成了?|更新为|更新成|现在是)\s*"
                + _ZV), lambda m: m.group("a"), 1),
    (re.compile(r"我的(?P<a>[^，。！？是]{1,12})是\s*" + _ZV), _person_is, 1),
]
_ZH_COUNTED = {"孩子": "child", "儿子": "son", "女儿": "daughter", "猫": "cat", "狗": "dog", "车": "car",
               "房": "house", "房子": "house", "鱼": "fish", "鸟": "bird", "兔子": "rabbit", "宠物": "pet",
               "兄弟": "brother", "姐妹": "sister"}

_NO_LONGER_EN = re.compile(r"\bI\s+(?:" + _ADV + r")(?:no longer|don't|do not|never)\s+(?P<rest>.+)$", re.I)
# "我不再X"; "我(已经)不是X" / "我不当X" / "我不住在X了": a job, state or home denied (other "不" are the habit and like rules')
_NO_LONGER_ZH = re.compile(r"我" + _ZADV + r"(?P<how>不再|不(?=是|当|住|做|对))\s*(?P<rest>[^，。！？]+)")
_USED_TO_EN = re.compile(r"\bI\s+(?:" + _ADV + r")used\s+to\s+(?P<rest>.+)$", re.I)

_USED_TO_TURN = re.compile(r",?\s+(?:but|and|whereas|while)\s+", re.I)  # "used to X but now Y"
_NOT_STATE_EN = re.compile(r"\bI(?:'m| am)\s+(?:no longer|not|never)\s+(?:an?\s+)?(?P<rest>.+)$", re.I)
_NOT_HABIT_ZH = re.compile(r"我" + _ZADV + r"(?:已经)?(?:不|没有?再)(?P<rest>(?:吃|喝|抽|玩|打|跑|游|练|骑|弹|看|学|做|去)"
                           r"[^，。！？,.!?；;]{0,12}?)了?[。！!.\s]*$")
_ANYMORE = re.compile(r"\s+(?:any ?more|anymore)\b", re.I)


def hedge_confidence(text: str, base: float = 1.0) -> float:
    """``base`` lowered to :data:`HEDGED_CONFIDENCE` when ``text`` hedges ("maybe", "I think", "可能"...)."""
    return min(base, HEDGED_CONFIDENCE) if _cue_patterns()[0].search(text) else base


_MOVE = re.compile(r"\b(?:moved|relocated|moving|relocating|move|relocate)\b|搬", re.I)
# what one moves to that is not a home: a seat, a team, a tool, a plan, a version


@lru_cache(maxsize=1)
def _not_places() -> tuple[frozenset[str], re.Pattern]:
    """What one moves to that is not a home (``not_places`` of data/lang/*/slots.json): a seat, a team, a tool, a
    plan, a version ("Slack", "front row"); in Chinese a floor, room, desk or team (楼, 工位, 部门)."""
    return (frozenset(w.lower() for w in langdata.words("slots", "not_places", ("en",))),
            re.compile(langdata.alternation(langdata.words("slots", "not_places", ("zh",)))))


def _is_place(value: str) -> bool:
    """A move's destination names a place: a capitalised name ("Berlin", "the Netherlands"), no digits, no purpose
    ("Slack for team chat"), not a seat, team, tool or plan; in Chinese, not a floor, room, desk or team."""
    if has_cjk(value):
        return not _not_places()[1].search(value)
    words = value.split()
    if words and words[0].lower() == "the":
        words = words[1:]
    return bool(words) and words[0][:1].isupper() and not re.search(r"\d|\bfor\b", value) and \
        not any(w.lower().strip(".,") in _not_places()[0] for w in words)


def _apply(rules: list[Rule], clause: str) -> tuple[str, str, int] | None:
    for pat, attr_fn, pol in rules:
        m = pat.search(clause)
        if not m:
            continue
        value = _clean(m.group("v"), max_words=4 if attr_fn is _named or attr_fn(m) == "name" else 8)
        if not value:
            continue
        attr = attr_fn(m)
        if attr_fn in (_person_is, _changed):
            attr = possessed_attribute(clause[:m.start()] + m.group(0)[:m.group(0).casefold().find("my")], attr)
            if not attr:
                continue  # "In my opinion my X is ...": a possessed noun after a preposition that heads nothing
        if attr_fn is _person_is:
            job = negated_person_value(attr, value)  # "… is not a doctor any more": closes "… is a doctor."
            if job is not None:
                return f"{person_key(attr)}_occupation", job, -pol
            attr = person_slot(attr, value)  # "My brother is Tom." / "… a doctor." / "… tall.": three slots
        home = attr == "home_city" or (attr_fn is _person_home and attr.endswith("_home_city"))
        if attr_fn is _person_home and not home:
            continue  # "my shipping address moved to …" is the generic change rule's, below
        if attr_fn is _changed and _person_home(m) != attr:
            continue  # "my sister moved to a new team": no value of hers
        if attr_fn is _changed and _MOVE.search(m.group(0)) and _is_place(value):
            continue  # "my bestie moved to Denver": a possessed noun's move to a place is its own (:mod:`.subjects`)
        if home and _MOVE.search(m.group(0)) and not _is_place(value):
            continue  # "I moved to the front row", "We moved to Slack for team chat", 我搬到三楼的工位了
        if attr.startswith("does:") and value_key("diet", value) == "eats meat":
            return "diet", value, pol  # "I stopped eating meat": the diet, as "I eat meat" said it
        if attr.startswith(("likes:", "allergy:", "does:")):
            head = attr.split(":", 1)[0]
            attr = f"{head}:{normalize_object(value)}"
        return attr, value, pol
    return None


def _gates() -> list[re.Pattern]:
    """Every pattern one of which a clause matches when :func:`_parse_clause` reads a fact from it (facts.triggers):
    the rules of both languages, the third-person rule and the negation / "used to" patterns that re-read a part of
    the clause."""
    return [_THIRD, _USED_TO_EN, _NO_LONGER_EN, _NOT_STATE_EN, _NO_LONGER_ZH, _NOT_HABIT_ZH] + \
        [rx for rx, _, _ in _EN_RULES + _ZH_RULES]


triggers.declare("rules", _gates)


def _parse_clause(clause: str) -> tuple[str, str, int, str] | None:
    """(attribute, value, polarity, entity) for one clause, or None."""
    if not triggers.may_read("rules", clause):
        return None  # no literal any rule needs: none can match
    c = clause.strip()
    c = _LEAD.sub("", c) if not has_cjk(c[:2]) else _LEAD_ZH.sub("", c)
    c = c.strip()
    if not c:
        return None
    cjk = has_cjk(c)
    # English (also for the Latin part of mixed text)
    m = _THIRD.match(c)
    if m and m.group("e").split()[0] not in ("I", "My", "We", "You", "They", "He", "She", "It", "This", "That"):
        attr, pol = _THIRD_ATTR[m.group("verb")]
        value = _clean(m.group("v"))
        if value:
            return (f"likes:{normalize_object(value)}" if attr == "likes" else attr), value, pol, m.group("e")
    used = _USED_TO_EN.search(c)
    if used:  # "I used to be a teacher", "I used to live in Paris": the state or habit, ended
        rest = used.group("rest")
        turn = _USED_TO_TURN.search(rest)  # "… but now I live in Rome": the new one
        if turn:
            got = _parse_clause(rest[turn.end():])
            if got:
                return got
            rest = rest[:turn.start()]
        inner = _apply(_EN_RULES, ("I'm " + rest[3:]) if rest.lower().startswith("be ") else "I " + rest)
        return (inner[0], inner[1], -inner[2], "user") if inner else None
    neg = _NO_LONGER_EN.search(c)
    if neg and not re.match(r"(?:like|enjoy|love|care for|really like)\b", neg.group("rest"), re.I):
        inner = _apply(_EN_RULES, "I " + _ANYMORE.sub("", neg.group("rest")))
        if inner:
            return inner[0], inner[1], -inner[2], "user"
        if re.match(r"no longer", c[neg.start():][2:].strip(), re.I):
            value = _clean(_ANYMORE.sub("", neg.group("rest")))
            if value:
                return f"does:{normalize_object(value)}", value, -1, "user"
        return None
    state = _NOT_STATE_EN.search(c)
    if state:  # "I'm not vegetarian any more", "I'm no longer allergic to X": the positive state, flipped
        inner = _apply(_EN_RULES, "I'm " + _ANYMORE.sub("", state.group("rest")))
        if inner:
            return inner[0], inner[1], -inner[2], "user"
    got = _apply(_EN_RULES, c)
    if got:
        return got[0], got[1], got[2], "user"
    if cjk:
        zneg = _NO_LONGER_ZH.search(c)
        if zneg:  # "我不再是老师了", "我已经不是老师了", "我不当老师了": the positive statement, flipped
            inner = _apply(_ZH_RULES, "我" + zneg.group("rest"))
            if inner:
                return inner[0], inner[1], -inner[2], "user"
            if zneg.group("how") == "不再":  # "我不再熬夜": a habit given up
                value = _clean(zneg.group("rest"))
                return (f"does:{normalize_object(value)}", value, -1, "user") if value else None
        zstop = _NOT_HABIT_ZH.search(c)
        if zstop:  # "我现在不吃辣了", "我不喝咖啡": the habit (or diet), flipped
            inner = _apply(_ZH_RULES, "我" + zstop.group("rest"))
            if inner:
                return inner[0], inner[1], -inner[2], "user"
        got = _apply(_ZH_RULES, c)
        if got:
            return got[0], got[1], got[2], "user"
    return None


def _is_question(sentence: str) -> bool:
    s = sentence.strip()
    return s.endswith(("?", "？", "吗", "吗。", "呢", "么")) or bool(_QUESTION_START.match(s)) and "." not in s


def extract_from_text(text: str, *, entity: str = "user") -> list[Fact]:
    """Facts in one user turn, in order; one fact per slot (the last statement in the turn wins).

    Per sentence (of a question only the statement it opens with: :func:`~anchormem.ingest.classify.stated_part`):
    the sentence-wide change patterns (:func:`~anchormem.facts.changes.sentence_changes`),
    then per clause the change patterns (:func:`~anchormem.facts.changes.clause_changes`: numeric changes, job and
    employer changes, counts and names...) or else the rules above. A clause with a hypothetical, modal or reported-speech
    cue (:func:`~anchormem.facts.changes.blocked`) states nothing; a clause whose subject is someone else ("my brother
    left Google and joined Stripe", 他说…, 我弟弟跳槽到了…) gives only facts typed to that person."""
    out: dict[tuple[str, str], Fact] = {}

    def keep(attr: str, value: str, pol: int, ent: str, sentence: str, clause: str, conf: float) -> None:
        for attr, value in _work_parts(attr, value):
            try:
                fact = Fact(entity=ent, attribute=attr, value=value, polarity=pol, confidence=conf,
                            sensitive=is_sensitive(attr, value), source_span=sentence,
                            clause=clause.strip().lstrip(",;，；").strip(),
                            language=detect_language(sentence), extractor="rules")
            except ValueError:
                continue
            out.pop(fact.slot, None)
            out[fact.slot] = fact

    hypothetical = _cue_patterns()[1]
    for sentence in split_sentences(text):
        if _is_question(sentence):  # a question states only what it opens with ("My salary is 32000, can I …?")
            sentence = stated_part(sentence)
            if not sentence:
                continue
        conf = hedge_confidence(sentence)
        said = sentence_changes(sentence)  # (first: most sentences have none, and then the gates need not run)
        if said and not blocked(sentence) and _speaker_subject(sentence) != "other":
            for attr, value, pol in said:
                if not (pol > 0 and _person_action(attr) and _elsewhere(sentence)):
                    keep(attr, value, pol, entity, sentence, sentence, conf)
        elif said and not blocked(sentence) and not _elsewhere(sentence):  # "My brother left Google and joined …"
            owner = person_owner(sentence)
            for attr, value, pol, ent in (c for c in _owned(said, None, owner, True)[0] if len(c) > 3):
                keep(attr, value, pol, ent if ent != "user" else entity, sentence, sentence, conf)
        subject = ""  # the speaker as the subject of the previous clause, if it stated one of their facts
        who = ""  # "user" / "other": the subject of the previous clause, for a clause without one
        pending = ""  # the slot a switch verb left open ("I switched jobs, now at Cisco")
        owner = ("", "")  # whose action the previous clause stated (subjects.person_owner)
        for n, clause in enumerate(_clause_split().split(sentence)):
            if not clause or not clause.strip() or hypothetical.search(clause) or blocked(clause):
                subject, who, pending = "", "", ""
                continue
            who = _speaker_subject(clause) or who
            read = without_name(_with_subject(clause, subject))  # "My sister Mei lives in …": her rules read it
            raw = clause_changes(read)
            got = _parse_clause(read)
            frames, pending = frame_facts(read, pending=pending, first=n == 0,
                                          inherited={"user": "speaker", "other": "other"}.get(who, ""))
            # whose facts they are: "My sister Mei moved to Beijing" (Mei's), 我老公跳槽去阿里了 (husband_employer),
            # "Tom just moved" (Tom's); a clause without a subject goes on about the previous one's ("… and joined X")
            mine = person_owner(clause) if _speaker_subject(clause) == "other" or (raw or got or frames) and (
                who == "other" or clause_subject(clause)) else ("", "")
            owner = mine if mine != ("", "") or who != "other" or _speaker_subject(clause) else owner
            person = who == "other" and owner != ("", "") or mine != ("", "")
            changes = raw if person else [c for c in raw if who != "other" or _typed_to_person(c[0])]
            changes, got = merge_frames(changes, got, frames, clause)
            # 大学那会儿我在兰州住过四年, 国庆去了趟三亚, "My sister is visiting Rome": no home, employer or job of now
            if (changes or got) and _elsewhere(clause):
                changes = [c for c in changes if not (c[2] > 0 and _person_action(c[0]))]
                got = None if got and got[2] > 0 and _person_action(got[0]) else got
            if (changes or got) and (person or clause_subject(clause)):
                changes, got = _owned(changes, got, owner if person else ("", ""), True)
            owned = [c for c in changes if len(c) > 3]
            changes = [c for c in changes if len(c) == 3 and (not person or c not in raw or who != "other" or
                                                              _typed_to_person(c[0]))]
            for attr, value, pol, ent in owned:
                keep(attr, value, pol, ent if ent != "user" else entity, sentence, clause, conf)
            if owned and not changes and not got:
                continue
            if changes:
                said = " ".join(c[1].casefold() for c in changes)
                if got and got[3] == "user" and who != "other" and got[0] not in {c[0] for c in changes} and \
                        got[1].casefold() not in said and not any(c[1].casefold() in got[1].casefold() for c in changes):
                    keep(got[0], got[1], got[2], entity, sentence, clause, conf)  # "I'm a nurse at X": both
                for attr, value, pol in changes:
                    keep(attr, value, pol, entity, sentence, clause, conf)
                subject = _subject(_with_subject(clause, subject))
                continue
            said_by_user = (got and got[3] == "user") or who == "user"
            subject = _subject(_with_subject(clause, subject)) if said_by_user else ""
            if not got:
                continue
            attr, value, pol, ent = got
            if ent == "user" and who == "other" and not _typed_to_person(attr):
                continue  # "My brother left Google and joined Stripe": not the speaker's employer
            keep(attr, value, pol, entity if ent == "user" else ent, sentence, clause, conf)
    return list(out.values())


@lru_cache(maxsize=1)
def _subject_patterns() -> tuple[re.Pattern, re.Pattern]:
    """(someone else, the speaker) as a clause's subject: "my brother", "he", 我弟弟, 他 / "I", "we", 我, 我们."""
    third = langdata.alternation(langdata.words("cues", "third_person_subjects", ("en",)))
    third_zh = langdata.alternation(langdata.words("cues", "third_person_subjects", ("zh",)))
    other = re.compile(r"^\s*(?:(?:my|our)\s+" + _PERSON_EN + r"|(?:" + third + r")\b)|^\s*(?:我的?|我们的?)(?:" + _PERSON_ZH + r")|^\s*(?:"
                       + third_zh + r")", re.I)
    user = re.compile(r"^\s*(?:I|I'm|I've|I'd|I'll|we|we're|we've)\b|^\s*我(?:们家?)?", re.I)
    return other, user


def _speaker_subject(clause: str) -> str:
    """"other" when the clause's subject is someone else, "user" when it is the speaker, "" when it has none."""
    c = clause.strip()
    c = _LEAD.sub("", c) if not has_cjk(c[:2]) else _LEAD_ZH.sub("", c)
    other, user = _subject_patterns()
    if user.match(c) and not other.match(c):
        return "user"
    if other.match(c):
        return "other"
    return ""


def not_the_speakers(sentence: str, value: str) -> str | None:
    """Why the clause of ``sentence`` that holds ``value`` states no present fact of the speaker's, or None: a
    question ("Should I move to Berlin?"), a hypothetical, plan or modal ("I might move to Berlin", "如果我搬到北京"),
    reported speech ("My boss said she moved to Berlin") or someone else as its subject ("My friend moved to
    Berlin", 我弟弟跳槽到了腾讯). The LLM extractor's proposed changes are checked with it."""
    if _is_question(sentence):
        return "a question states no fact"
    clauses = [c for c in _clause_split().split(sentence) if c and c.strip()] or [sentence]
    v = value.casefold()
    who = ""
    for clause in clauses:
        who = _speaker_subject(clause) or who
        if v and v not in clause.casefold():
            continue
        if _cue_patterns()[1].search(clause) or blocked(clause):
            return "a hypothetical, plan or reported clause states no fact of the speaker's"
        if who == "other":
            return "the clause is about someone else"
        return None
    return None


def _elsewhere(clause: str) -> bool:
    """The clause is set in the past, on a trip or in what was only seen (:func:`~anchormem.facts.stance.scene`):
    where the speaker lives, works or what they do now is not what it says."""
    from .stance import scene

    return scene(clause, others=False) in ("past_time", "visit", "observed")


def _person_action(attr: str) -> bool:
    """The attribute is filled by what a person does (a home, an employer, a job, a habit): a possessed noun's action
    ("my bestie moved", 我舍友跳槽到…) fills none of the speaker's."""
    return attr in ("home_city", "employer", "occupation") or attr.startswith("does:")


def _typed_to_person(attr: str) -> bool:
    """The attribute names a person's slot ("brother_home_city", "sister_occupation"), not the speaker's own."""
    head = attr.split(":", 1)[0].split("_", 1)[0]
    return is_person(head)


_ZH_SUBJECT = re.compile(r"^\s*(我们家|我们|我)(?!" + _PERSON_ZH + r")")
# a Chinese clause that goes on about the previous clause's subject without naming it: "…，现在住在北京"
@lru_cache(maxsize=1)
def _zh_goes_on() -> re.Pattern:
    """A Chinese clause that goes on about the speaker without naming them (``continuation`` verbs of
    data/lang/zh/changes.json: "…，现在住在北京", "…，现在在美团上班")."""
    verbs = langdata.alternation(langdata.words("changes", "continuation", ("zh",)))
    return re.compile(r"^\s*(?:现在|目前|如今|然后|后来|之后|最近|也|又|已经|就|\s)*(?:" + verbs + ")")


def _subject(clause: str) -> str:
    """The speaker as the Chinese clause's subject (我 / 我们 / 我们家, not 我弟弟), else ""."""
    m = _ZH_SUBJECT.match(_LEAD_ZH.sub("", clause.strip()))
    return m.group(1) if m else ""


def _with_subject(clause: str, subject: str) -> str:
    """``clause`` with the previous clause's subject when it goes on about the speaker's home without one:
    "我搬出了上海，现在住在北京" -> "我现在住在北京" (so the sentence's last word on the home is the new city)."""
    body = _LEAD_ZH.sub("", clause.strip())
    return subject + body if subject and _zh_goes_on().match(body) else clause


# a job and its employer said in one clause: "I work at a hospital as a nurse", "I work as a nurse at a hospital"
_AS_JOB = re.compile(r"^(?P<e>.+?)\s+as\s+(?:an?\s+)?(?P<j>.+)$", re.I)
_AT_EMPLOYER = re.compile(r"^(?P<j>.+?)\s+(?:at|for|with)\s+(?P<e>.+)$", re.I)


def _work_parts(attr: str, value: str) -> list[tuple[str, str]]:
    """``[(attr, value)]``, or the employer and the job when one work clause names both: ``employer`` "a hospital as
    a nurse" -> employer "a hospital", occupation "nurse"; ``occupation`` "nurse at a hospital" -> occupation
    "nurse", employer "a hospital" (only when the job part is a job noun:
    :func:`~anchormem.facts.keys.is_occupation`)."""
    if attr == "employer" and (m := _AS_JOB.match(value)) and is_occupation(m.group("j")):
        return [("employer", m.group("e")), ("occupation", m.group("j"))]
    if attr == "occupation" and (m := _AT_EMPLOYER.match(value)) and is_occupation(m.group("j")):
        return [("occupation", m.group("j")), ("employer", m.group("e"))]
    return [(attr, value)]
