"""Relative count changes: a count said against the user's stored count of the same counted noun.

People rarely restate a count: they say what changed ("adopted a third!!", "we got another one", "one more kitten",
"gave one of the cats to my mum", 又养了一只狗, 老三出生了, 死了两条). This reader takes such a clause, finds the
user's current ``count:<noun>`` claim it changes and says the new count: old + n, old - n, or the ordinal's number
(an ordinal only when it is one more than the stored count: "a third" after two cats, never after five). The words
live in ``count_changes`` of ``data/lang/<lang>/quantities.json`` (increments, decrements, ordinals, the nouns a
change may name a counted noun by).

The counted noun is the one the clause names ("another cat", 一只狗; slots.json ``counted`` and ``nouns``), else
the one current count claim the user has (by its measure word in Chinese: 又捡了一只 ~ 两只猫). Nothing is read
when the clause says no number and no increment word, when no count claim is stored, or when it is ambiguous.

A count said by the members that remain, with no number ("Civic went to my nephew, so it's just the Outback now",
"only the Brompton left", 只剩Tofu了: ``members_left`` of count_changes) is how many members are named, in the one
current count claim whose words name them all and are more, when the turn names a member gone too (a word of the
claim's own that is neither a member left nor the counted noun: "Road trip! Just the Outback and me now" is none).

The new value is written in the form of the stored one ("two cats" + 1 -> "three cats", 两只猫 + 1 -> 三只猫,
"2 rabbits" + 2 -> "4 rabbits"); the caller checks the words said (``said``) against the turn, not the derived
number, which the turn does not hold.

    count_changes("Adopted another cat yesterday", claims)   # with "I have two cats" stored
    # -> [(Fact(attribute="count:cat", value="three cats"), "another cat")]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import has_cjk
from . import triggers
from .model import Fact, detect_language
from .values import number_of, parse

__all__ = ["JOINS", "count_changes", "changed_count_before", "joins_set", "member_key", "several_of"]

# the extractor mark of a name that joins the names of its counted set, closing none (anchormem.facts.reconcile):
# a name given after an increment by this reader, or one :func:`joins_set` finds said as one more member
JOINS = "counts"



@lru_cache(maxsize=2)
def _data(lang: str) -> dict[str, Any]:
    return langdata.load("quantities", lang).get("count_changes", {})


def _alt(words: list[str] | tuple[str, ...]) -> str:
    """One alternation of ``words`` (longest first; whole words unless CJK). Built once per word list: the fact
    rules ask for the same lists on every turn (2.7M ``re.escape`` calls in a 20k-turn load before)."""
    return _alt_of(tuple(words))


@lru_cache(maxsize=256)
def _alt_of(words: tuple[str, ...]) -> str:
    ws = sorted(set(words), key=len, reverse=True)
    return "|".join(re.escape(w) if has_cjk(w) else r"(?<![\w'’])" + re.escape(w) + r"(?![\w'’])" for w in ws)


@lru_cache(maxsize=1)
def _noun_table() -> dict[str, str]:
    """Word said (case-folded) -> counted noun key: slots.json ``counted`` of both languages and the ``nouns`` of
    count_changes."""
    out: dict[str, str] = {}
    for lang in langdata.LANGUAGES:
        for key, ws in langdata.load("slots", lang).get("counted", {}).items():
            out.update({w.casefold(): key for w in ws})
        out.update({w.casefold(): k for w, k in _data(lang).get("nouns", {}).items()})
    return out


def _noun_at(text: str) -> tuple[str, int]:
    """(the counted noun key named first in ``text``, where its word ends): whole words in English, anywhere in
    Chinese; ("", 0) when none."""
    best: tuple[int, int, str, int] | None = None
    for w, key in _noun_table().items():
        rx = re.escape(w) if has_cjk(w) else r"(?<![\w'’])" + re.escape(w) + r"(?![\w'’])"
        m = re.search(rx, text, re.I)
        if m and (best is None or (m.start(), -len(w)) < (best[0], best[1])):
            best = (m.start(), -len(w), key, m.end())
    return (best[2], best[3]) if best else ("", 0)


def _noun_in(text: str) -> str:
    return _noun_at(text)[0]


def _said(m: re.Match, rest: str = "rest") -> tuple[str, str]:
    """(noun key, the words of match ``m`` up to the counted noun of its ``rest`` group, or up to that group)."""
    key, end = _noun_at(m.group(rest))
    upto = m.start(rest) + end if key else m.start(rest)
    return key, m.string[m.start():upto].strip()


def _number(word: str) -> int | None:
    """A small number said ("one", "2", 两, "a"), else None."""
    w = word.strip().casefold()
    if w in ("a", "an"):
        return 1
    nums = _data("zh").get("numerals", [])
    if w in nums:
        return nums.index(w) if w != "两" else 2
    n = number_of(w) if w else None
    try:
        return int(float(n)) if n is not None else None
    except ValueError:
        return None


def changed_count_before(clause: str) -> bool:
    """The clause says a count as a change (an increment or decrement word right before it: 又养了一只狗,
    "two more"), so its number is no count the speaker holds: the quantity reader leaves it to this one."""
    return bool(_readings(clause))


def _readings(clause: str) -> list[tuple[str, int, str, str, str]]:
    """(how, n, noun key or "", measure word or "", words said) of each relative count in ``clause``: how is "+"
    (n more), "-" (n fewer) or "=" (an ordinal: the count is now n)."""
    lang = "zh" if has_cjk(clause) else "en"
    if not triggers.may_read("counts." + lang, clause):
        return []  # no literal any of its patterns needs (facts.triggers)
    return _zh(clause) if lang == "zh" else _en(clause)


@lru_cache(maxsize=1)
def _en_numbers() -> tuple[str, ...]:
    """English number words from zero to nineteen, in order (``number_words`` of data/lang/en/values.json)."""
    return tuple(w for w in langdata.load("values", "en").get("number_words", [])[:20])


@lru_cache(maxsize=1)
def _num_en() -> str:
    """A small number said in English: an article, a number word, digits."""
    words = [w for w in (langdata.load("values", "en").get("articles", []) or ["a", "an"]) if w.isalpha()]
    return r"(?:" + "|".join(re.escape(w) for w in sorted(set(words) | set(_en_numbers()[1:13]), key=len,
                                                            reverse=True)) + r"|\d+)(?![\w'’])"


def _bare(rest: str, lang: str) -> bool:
    """Nothing but a ``bare_after`` word (or nothing) follows a change that names no counted noun ("another one",
    "got another!", 又买了一只, 又捡了一只回来; not "another day", 再等一个月)."""
    r = rest.strip().casefold()
    words = [w.casefold() for w in _data(lang).get("bare_after", [])]
    if not r:
        return True
    if lang == "zh":
        return any(r.startswith(w) for w in words)
    return r.split()[0].strip(".,!?;:") in words


@lru_cache(maxsize=1)
def _en_rx() -> dict[str, re.Pattern]:
    """The English count-change patterns (count_changes of data/lang/en/quantities.json), compiled once; a key is
    left out when its words are not there. Also the gates of this reader (facts.triggers)."""
    d = _data("en")
    nouns = r"(?:\s+[\w'’-]+){0,3}"
    of = r"\s+of\s+(?:" + _alt(d.get("of_words", [])) + ")"
    out: dict[str, re.Pattern] = {}
    if d.get("more"):
        out["more"] = re.compile(r"(?:" + _alt(d["more"]) + r")(?P<rest>" + nouns + ")", re.I)
    if d.get("more_after"):
        out["more_after"] = re.compile(r"(?<![\w'’])(?P<n>" + _num_en() + r")\s+(?:" + _alt(d["more_after"]) +
                                       r")(?P<rest>" + nouns + ")", re.I)
    for field, need_of in (("fewer", False), ("fewer_of", True)):
        if d.get(field):
            out[field] = re.compile(r"(?:" + _alt(d[field]) + r")(?:\s+away)?\s+(?P<n>" + _num_en() +
                                    r")(?!\s+more\b)(?P<of>" + of + (")" if need_of else ")?") + r"(?P<rest>" +
                                    nouns + ")", re.I)
    if d.get("fewer_after"):
        out["fewer_after"] = re.compile(r"(?<![\w'’])(?P<n>" + _num_en() + r")" + of +
                                        r"(?P<rest>(?:\s+[\w'’-]+){0,3}?)\s+(?:" + _alt(d["fewer_after"]) + ")", re.I)
    ords = d.get("ordinal", {})
    if ords:
        out["ordinal"] = re.compile(r"(?:" + _alt(d.get("ordinal_before", [])) + r")\s+(?P<o>" + _alt(list(ords)) +
                                    r")(?P<rest>" + nouns + ")", re.I)
        out["number_before"] = re.compile(r"(?P<noun>[\w'’-]+)\s+(?:" + _alt(d.get("number_before", [])) +
                                          r")\s*(?P<n>" + _num_en() + r")\b", re.I)
    return out


def _en(clause: str) -> list[tuple[str, int, str, str, str]]:
    d = _data("en")
    rx = _en_rx()
    out: list[tuple[str, int, str, str, str]] = []

    def add(how: str, n: int, m: re.Match, *, need_noun: bool = False, bare: bool = True) -> None:
        key, said = _said(m)
        if key or (not need_noun and (not bare or _bare(m.group("rest"), "en"))):
            out.append((how, n, key, "", said))

    if "more" in rx:
        for m in rx["more"].finditer(clause):
            add("+", 1, m)
    if "more_after" in rx:
        for m in rx["more_after"].finditer(clause):
            n = _number(m.group("n"))
            if n:
                add("+", n, m)
    for field in ("fewer", "fewer_of"):
        if field not in rx:
            continue
        for m in rx[field].finditer(clause):
            n = _number(m.group("n"))
            if n and m.group("n").casefold() not in ("a", "an"):
                add("-", n, m, need_noun=not m.group("of"), bare=False)  # "sold one of the bikes", "lost two cats"
    if "fewer_after" in rx:
        for m in rx["fewer_after"].finditer(clause):
            n = _number(m.group("n"))
            if n and m.group("n").casefold() not in ("a", "an"):
                out.append(("-", n, _noun_in(m.group("rest")), "", m.group(0).strip()))
    if "ordinal" in rx:
        ords = d.get("ordinal", {})
        stop = [w.casefold() for w in d.get("not_ordinal_after", [])]
        for m in rx["ordinal"].finditer(clause):
            first = m.group("rest").split()[:1]
            if first and first[0].casefold().strip(".,!?;:") in stop:
                continue  # "a second opinion", "the third floor": no count
            add("=", int(ords[m.group("o").casefold()]), m)
        for m in rx["number_before"].finditer(clause):
            key, n = _noun_in(m.group("noun")), _number(m.group("n"))
            if key and n and n > 1:
                out.append(("=", n, key, "", m.group(0).strip()))
    return out


@lru_cache(maxsize=1)
def _zh_rx() -> dict[str, re.Pattern]:
    """The Chinese count-change patterns (count_changes of data/lang/zh/quantities.json), compiled once; also the
    gates of this reader (facts.triggers)."""
    d = _data("zh")
    measures = langdata.load("values", "zh").get("measure_words", [])
    mw = "(?:" + "|".join(re.escape(w) for w in sorted(measures, key=len, reverse=True)) + ")" if measures else "(?!)"
    num = "(?P<n>[" + "".join(d.get("numerals", [])) + r"]|\d+)?"
    out: dict[str, re.Pattern] = {}
    for how, field in (("+", "more"), ("-", "fewer")):
        words = d.get(field, [])
        if not words:
            continue
        gap = r"[^，。！？,.!?；;\d" + "".join(d.get("numerals", [])) + r"]{0,4}?" if how == "+" else r"(?:了)?"
        out[field] = re.compile(r"(?:" + _alt(words) + r")" + gap + num + r"\s*(?P<mw>" + mw +
                                r")(?P<rest>[^，。！？,.!?；;]{0,6})")
    if d.get("ordinal", {}):
        out["ordinal"] = re.compile(_alt(list(d["ordinal"])))
    return out


def _zh(clause: str) -> list[tuple[str, int, str, str, str]]:
    d = _data("zh")
    rx = _zh_rx()
    out = []
    for how, field in (("+", "more"), ("-", "fewer")):
        if field not in rx:
            continue
        for m in rx[field].finditer(clause):
            n = _number(m.group("n")) if m.group("n") else 1  # 添了辆: one
            key, said = _said(m)
            if n and (key or _bare(m.group("rest"), "zh")):
                out.append((how, n, key, m.group("mw"), said))
    if "ordinal" in rx:
        ords = d["ordinal"]
        for m in rx["ordinal"].finditer(clause):
            w = m.group(0)
            noun = _noun_in(clause[m.end():]) or d.get("ordinal_nouns", {}).get(w, "")
            out.append(("=", int(ords[w]), noun, "", w))
    return out


triggers.declare("counts.en", lambda: list(_en_rx().values()))
triggers.declare("counts.zh", lambda: list(_zh_rx().values()))


def _restated(old: str, n: int) -> str:
    """``old`` (a count as stored: "two cats", 两只猫, "2 rabbits", "a cat") with its number made ``n``, in the same
    form; "" when its number is not found."""
    vals = parse(old)
    if not vals:
        m = re.match(r"\s*(an?|one)\s+(\S+)", old, re.I)
        if not m:
            return ""
        said, start, end, noun = m.group(1), m.start(1), m.end(1), m.group(2)
    else:
        v = vals[0]
        said, start, end = v.said or old[v.start:v.end], v.start, v.start + len(v.said or old[v.start:v.end])
        if not old[start:end] == said:
            idx = old.find(said)
            if idx < 0:
                return ""
            start, end = idx, idx + len(said)
        noun = old[end:].strip().split(" ")[0] if not has_cjk(old) else ""
    if has_cjk(said) or has_cjk(old) and not said.isdigit():
        nums = _data("zh").get("numerals", [])
        word = nums[n] if n < len(nums) else str(n)
    elif said.isdigit():
        word = str(n)
    else:
        word = _en_numbers()[n] if n < len(_en_numbers()) else str(n)
        if said[:1].isupper():
            word = word.capitalize()
    out = old[:start] + word + old[end:]
    if not has_cjk(old) and noun:
        out = out[:len(old[:start] + word)] + old[end:].replace(noun, _plural(noun, n), 1)
    return out


def _plural(noun: str, n: int) -> str:
    """``noun`` in the number ``n`` takes ("cat" -> "cats", "kids" -> "kid", "child" -> "children")."""
    plurals = {k.casefold(): v for k, v in _data("en").get("plurals", {}).items()}
    singular = {v.casefold(): k for k, v in plurals.items()}
    w = noun.casefold()
    if n == 1:
        if w in singular:
            return singular[w]
        return noun[:-1] if w.endswith("s") and not w.endswith("ss") else noun
    if w in plurals:
        return plurals[w]
    if w in singular or w.endswith("s"):
        return noun
    return noun + "s"


def _old(claim: Any) -> int | None:
    """The number of a stored count claim ("two cats" -> 2, 一只狗 -> 1, "a cat" -> 1), or None."""
    v = str(claim.fact.value)
    n = number_of(v)
    if n is not None:
        return _number(n)
    return _number(re.split(r"\s+", v.strip())[0])


def count_changes(text: str, *, entity: str = "user", claims: Callable[[], list[Any]] | None = None,
                  said: frozenset[str] = frozenset()) -> list[tuple[Fact, str]]:
    """The relative count changes of one user turn (module doc), each as (fact, the words said that carry it).
    ``claims()``: the user's current fact memories; ``said``: count slots the turn states outright and the
    sentences it states a count in (left alone: "two more pullets, so that's six birds" is six). Never raises."""
    from .jobs import open_clauses

    got = claims or (lambda: [])
    out: dict[str, tuple[Fact, str]] = {}
    counts: list[Any] | None = None
    for clause, sentence, _lang, other in open_clauses(text):
        readings = _readings(clause)
        if other:  # someone else's doing changes the speaker's count only as "N of the/our/my …" ("a fox got two of
            # the hens"); "My sister got another cat", 我姐又生了一个孩子 are hers
            own = r"\bof\s+(?:" + _alt(_data("en").get("own_of_words", [])) + ")"
            readings = [r for r in readings if r[0] == "-" and re.search(own, r[4], re.I)]
        if not readings:
            continue
        if counts is None:
            counts = [c for c in got() if c.fact is not None and c.fact.attribute.startswith("count:")
                      and c.fact.polarity > 0]
        for how, n, noun, measure, words in readings:
            cands = [c for c in counts if not noun or c.fact.attribute == f"count:{noun}"]
            if how == "=":  # an ordinal is one more than the count it changes ("a third" after two cats)
                cands = [c for c in cands if _old(c) == n - 1]
            if not noun and measure:
                cands = [c for c in cands if (parse(str(c.fact.value)) or [None])[0] is not None and
                         parse(str(c.fact.value))[0].measure in ("", measure)]
            slots = {c.fact.attribute for c in cands}
            if len(slots) != 1:
                continue
            slot = slots.pop()
            if how in "+=" and f"{slot.split(':', 1)[1]}_names" not in out:  # its name joins the names, whoever
                joined = _new_name(text, text.find(clause), slot.split(":", 1)[1], entity, sentence)  # says the count
                if joined is not None:
                    out[joined[0].attribute] = joined
            if sentence in said or slot in said or slot in out:
                continue
            cur = [c for c in cands if c.fact.attribute == slot]
            old_n = _old(cur[-1])
            if old_n is None:
                continue
            new = old_n + n if how == "+" else old_n - n if how == "-" else n
            if how == "=" and n != old_n + 1 or new < 0 or new == old_n:
                continue
            value = _restated(str(cur[-1].fact.value), new)
            if not value:
                continue
            try:
                f = Fact(entity=entity, attribute=slot, value=value, polarity=1, confidence=0.9, sensitive=False,
                         source_span=sentence, clause=clause, language=detect_language(sentence),
                         extractor="quantities", previous_value=str(cur[-1].fact.value))
            except ValueError:
                continue
            out[slot] = (f, words)
    if counts is None:
        counts = []
    for slot, fw in _members_left(text, entity, got, counts, said | frozenset(out)).items():
        out.setdefault(slot, fw)
    return list(out.values())


def _one_gone(text: str, left: str, names: list[str], claim: Any) -> bool:
    """The turn names, besides the members said to remain (``left``), a word of the count claim's own words that is
    neither one of them nor the counted noun: a member gone ("Civic went to my nephew", "Marcus moved out", "road
    bike 被偷了"). "Road trip! Just the Outback and me now" names none: the others are not gone, only elsewhere."""
    from ..text.tokenize import content_words, stem

    noun = claim.fact.attribute.split(":", 1)[1]
    nouns = {stem(w) for lang in langdata.LANGUAGES for w in langdata.load("slots", lang).get("counted", {}).get(
        noun, [])} | {stem(noun)}
    kept = {stem(w) for n in names for w in content_words(n)}
    words = f"{claim.text or ''} {getattr(claim, 'source_text', '') or ''}"
    old = {stem(w) for w in content_words(words) if not w.isdigit()} - nouns - kept
    rest = text.replace(left, " ")
    return bool(old & {stem(w) for w in content_words(rest)})


@lru_cache(maxsize=2)
def _left_rx(lang: str) -> re.Pattern | None:
    """The members of a count said as the ones that remain (``members_left`` of count_changes): a ``before`` word,
    the members, then an ``after`` word (English) or the end of the clause (Chinese)."""
    d = _data(lang).get("members_left", {})
    if not d.get("before"):
        return None
    stop = r"[.!?;:。！？；：]" if lang == "en" else r"[.!?;:。！？；：，,]"
    after = r"\s+(?:" + _alt(d.get("after", [])) + r")(?![\w'’])" if lang == "en" else \
        r"\s*(?:" + "|".join(re.escape(w) for w in d.get("after", [])) + r")?\s*(?=" + stop + r"|$|\s)"
    return re.compile(r"(?:" + _alt(d["before"]) + r")\s*(?P<m>(?:(?!" + stop + r").){1,80}?)" + after, re.I)


def _members(said: str, lang: str) -> list[str]:
    """The members named in ``said`` (joined by ``joiners``, without ``articles`` and the speaker's ``self``)."""
    d = _data(lang).get("members_left", {})
    joiners = sorted(d.get("joiners", []), key=len, reverse=True)
    parts = re.split("|".join(re.escape(j) if not j.isalpha() else rf"(?<![\w'’]){re.escape(j)}(?![\w'’])"
                              for j in joiners), said, flags=re.I) if joiners else [said]
    arts = r"^(?:" + _alt(d.get("articles", [])) + r")\s*" if d.get("articles") else r"^$"
    selves = {w.casefold() for w in d.get("self", [])}
    out = []
    for p in parts:
        p = re.sub(arts, "", p.strip(), flags=re.I).strip()
        if p and p.casefold() not in selves:
            out.append(p)
    return out


def _members_left(text: str, entity: str, claims: Callable[[], list[Any]], counts: list[Any],
                  said: frozenset[str]) -> dict[str, tuple[Fact, str]]:
    """The counts a turn says by the members that remain ("Civic went to my nephew, so it's just the Outback now"
    after "We own 2 cars, a Subaru Outback and an old Civic": ``count:car`` = "1 car"; 只剩Tofu了 after
    "养了两只仓鼠，一只叫Mochi一只叫Tofu"): for each sentence of the turn's open clauses holding ``members_left``
    words, the one current count claim whose words (its memory's, or the utterance's it came from) name every
    member said and whose number is more than the members named; the count is now how many they are. A
    slot or sentence in ``said`` (the turn states that count outright) is left alone."""
    from .jobs import open_clauses

    out: dict[str, tuple[Fact, str]] = {}
    seen: set[str] = set()
    from .rules import _speaker_subject

    opened = list(open_clauses(text))
    for _, sentence, _lang, _ in opened:
        if sentence in seen or sentence in said:
            continue
        seen.add(sentence)
        for lang in ("zh", "en") if has_cjk(sentence) else ("en",):
            rx = _left_rx(lang)
            m = rx.search(sentence) if rx is not None else None
            if m is None or not any(sentence.find(c) <= m.start() < sentence.find(c) + len(c) and
                                    _speaker_subject(c) != "other" for c, s2, _, _ in opened if s2 == sentence):
                continue  # (the words are in a clause that passed the gates, no one else its subject: "so it's
                # just Dana, Theo and me now" after "Marcus moved out"; not "My sister has just the Mini left")
            names = _members(m.group("m"), lang)
            if not names or any(len(n.split()) > 3 or len(n) < 2 for n in names):
                continue
            if not counts:
                counts.extend(c for c in claims() if c.fact is not None and c.fact.attribute.startswith("count:")
                              and c.fact.polarity > 0)
            fits = []
            for c in counts:
                words = f"{c.text or ''} {getattr(c, 'source_text', '') or ''}"
                if all(n in words if has_cjk(n) else  # (a Latin name beside Chinese: 叫Tofu)
                       re.search(r"(?<![A-Za-z0-9'’])" + re.escape(n) + r"(?![A-Za-z0-9'’])", words, re.I)
                       for n in names):
                    old_n = _old(c)
                    if old_n is not None and old_n > len(names):
                        fits.append(c)
            slots = {c.fact.attribute for c in fits}
            if len(slots) != 1:
                continue
            slot = slots.pop()
            if slot in said or slot in out or not _one_gone(text, m.group(0), names, fits[-1]):
                continue
            value = _restated(str(fits[-1].fact.value), len(names))
            if not value:
                continue
            try:
                f = Fact(entity=entity, attribute=slot, value=value, polarity=1, confidence=0.9, sensitive=False,
                         source_span=sentence, clause=m.group(0).strip(), language=detect_language(sentence),
                         extractor="quantities", previous_value=str(fits[-1].fact.value))
            except ValueError:
                continue
            out[slot] = (f, m.group(0).strip())
            break
    return out


def _new_name(text: str, at: int, noun: str, entity: str, sentence: str) -> tuple[Fact, str] | None:
    """The name a new one is given after an increment at ``at`` of ``text`` ("named her Luna", "meet Tempeh!",
    叫Kinako, 取名馄饨: ``name_words`` of count_changes), as a ``<noun>_names`` fact that joins the names already
    known (``extractor="counts"``: reconcile adds it beside them, closing none), or None."""
    from .subjects import not_names

    rest = text[max(at, 0):]
    for lang in ("zh", "en") if has_cjk(rest) else ("en",):
        d = _data(lang)
        if not d.get("name_words"):
            continue
        pron = r"(?:\s*(?:" + _alt(d["name_pronouns"]) + r"))?" if d.get("name_pronouns") else ""
        if lang == "en":
            name = r"\s+(?P<v>(?-i:[A-Z])[\w'’-]+)"
        else:
            name = r"\s*(?P<v>[A-Za-z][\w'’-]*|[\u4e00-\u9fff]{1,3}?)(?=\s*(?:[，。！？,.!?；;~～]|$))"
        m = re.search(r"(?:" + _alt(d["name_words"]) + r")" + pron + name, rest, re.I)
        if m and m.group("v").casefold() not in not_names(lang) | not_names("en"):
            try:
                f = Fact(entity=entity, attribute=f"{noun}_names", value=m.group("v"), polarity=1, confidence=0.9,
                         sensitive=False, source_span=sentence, clause=m.group(0).strip(),
                         language=detect_language(sentence), extractor=JOINS)
            except ValueError:
                return None
            return f, m.group(0).strip()
    return None


def departed_counts(closed: list[Any], facts: list[Fact], claims: list[Any]) -> list[Any]:
    """The count claims a departure ends ("年糕走丢了" after "养了一只猫叫年糕"): for each pet-name claim ``closed`` by a
    ``gone`` fact (``<kind>_name``), the user's current ``count:<kind>`` claims (``claims``: MemoryItems) whose
    number is one, the one gone; none when the turn says a count of that kind itself (``facts``: it wins). A larger
    count is left as it is (which one of them left is known, how many remain is not said)."""
    from .keys import NAMED_SLOTS

    kinds = {c.fact.attribute[: -len("_name")] for c in closed if c.fact is not None and
             c.fact.attribute in NAMED_SLOTS and c.fact.attribute.endswith("_name")}
    said = {f.attribute for f in facts}
    return [c for c in claims if c.fact is not None and c.fact.polarity > 0 and c.fact.attribute.startswith("count:")
            and c.fact.attribute[len("count:"):] in kinds and c.fact.attribute not in said
            and c.fact.entity.casefold() == "user" and _number(str(c.fact.value)) == 1]


def member_key(attribute: str) -> str:
    """The counted noun key of the set whose member a name attribute names: "dog_name" / "dog_names" -> "dog",
    "daughter_name" -> "daughter", "kid_name" -> "child", "beagle_name" -> "dog" (slots.json ``counted`` of both
    languages, count_changes ``nouns``, a breed's ``pet_kinds``); "" for an attribute that names no member of a
    counted set ("boyfriend_name", "name", "home_city")."""
    from .keys import pet_kind
    from .name_claims import holder_of

    holder = holder_of(attribute[:-1] if attribute.endswith("_names") else attribute)
    if not holder:
        return ""
    table, head = _noun_table(), holder.split()[-1].casefold()
    return table.get(holder.casefold()) or table.get(head) or pet_kind(holder) or ""


def _count_of(value: str) -> int | None:
    n = number_of(value)
    return _number(n) if n is not None else _number(re.split(r"\s+", value.strip())[0])


@lru_cache(maxsize=1)
def _added_rx() -> re.Pattern:
    """Words saying a member was added to a counted set: ``member_added`` and ``more`` of count_changes, both
    languages (whole words unless CJK)."""
    words = [w for lang in langdata.LANGUAGES for key in ("member_added", "more") for w in _data(lang).get(key, [])]
    return re.compile(_alt(words) or "(?!)", re.I)


def joins_set(f: Fact, facts: list[Fact], claims: Callable[[], list[Any]]) -> bool:
    """Whether name fact ``f`` (``<kind>_name`` / ``<kind>_names`` of a counted kind: a pet, a child) names one more
    member of a set the speaker holds, so that it joins the names known instead of replacing them: its clause says
    a member was added ("We adopted a beagle called Biscuit", 我们又领养了一只比格，叫饼干: :func:`_added_rx`), or the
    count of that set is more than one: the count the same turn says (``facts``: "…, so now I have two dogs",
    现在家里有两只狗了), else the user's current count claim (``claims()``: fact memories). A count of one said in the
    turn, or a departure it says with no addition (a ``gone`` fact: the names it says are those left), makes it a
    replacement ("now it's just one dog, Biscuit"). False for any other fact; never raises."""
    if f.polarity < 0:
        return False
    key = member_key(f.attribute)
    if not key:
        return False
    if f.extractor == JOINS:
        return True  # a name given to one more after an increment ("adopted another cat, named her Luna")
    from .keys import ENDING_EVENTS

    said = [g for g in facts if g.polarity > 0 and g.entity.casefold() == f.entity.casefold() and
            _covers(g.attribute, key)]
    if said:
        return several_of(said[-1].attribute, str(said[-1].value), key)
    if _added_rx().search(f.clause or f.source_span or ""):
        return True
    if any(g.attribute in ENDING_EVENTS for g in facts):
        return False  # the turn says one is gone ("Mochi passed away. It's just Dumpling and me now"): what it names
        # is what is left, replacing the names known
    held = [c for c in claims() if c.fact is not None and c.fact.polarity > 0 and _covers(c.fact.attribute, key) and
            c.fact.entity.casefold() == f.entity.casefold()]
    last = max(held, key=lambda c: c.valid_from).fact if held else None
    return last is not None and several_of(last.attribute, str(last.value), key)


def _covers(attribute: str, key: str) -> bool:
    from .values import counted_cover

    return attribute.startswith("count:") and counted_cover(key, attribute[len("count:"):]) != ""


def several_of(attribute: str, value: str, key: str) -> bool:
    """A count claim (``attribute`` ``count:<noun>``, ``value`` "two dogs", 两只狗) says more than one of the set
    whose members' names are keyed ``key`` (:func:`member_key`), or of a set covering it (``count:pet`` covers
    "dog": slots.json ``counted_kinds``)."""
    n = _count_of(value) if _covers(attribute, key) else None
    return n is not None and n > 1
