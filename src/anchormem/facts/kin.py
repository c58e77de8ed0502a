"""The relation words: relatives and acquaintances a user speaks of, in English and Chinese (data/lang/*/kin.json).

The one source of the relation words of the facts rules and the answering: :func:`kin_groups` (a relation said
several ways -> its canonical word: "mom", 妈妈 -> "mother"), :func:`kin_narrower` (English words broader than
Chinese ones: "brother" -> 哥哥, 弟弟), :func:`person_words` (people whose facts are typed by value),
:func:`other_person_words`, :func:`person_modifiers` ("older", "best") and :func:`relation_pattern` (a regex over
them, a one-character Chinese word only as a word of its own). Each list is read on first use (no import-time I/O)
and cached; :mod:`anchormem.facts.keys` re-exports them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .. import langdata
from ..text.tokenize import has_cjk

__all__ = ["kin_groups", "kin_canonical_map", "kin_short", "kin_narrower", "person_words", "other_person_words",
           "relation_words", "person_modifiers", "plural_person", "relation_pattern", "one_character_relation",
           "kin_canonical", "kin_covers"]


def _escaped(entries) -> str:
    """A regex alternation of ``entries`` in their order, escaped (a space matches one space, as the patterns did)."""
    return "|".join(re.escape(w) for w in entries)


@lru_cache(maxsize=1)
def kin_groups() -> dict[str, tuple[str, ...]]:
    """Relations said several ways, English and Chinese (``groups`` of data/lang/*/kin.json, English first): each
    canonical word -> its words, the one slot their facts share (:func:`person_key`), so "My mom lives in Paris."
    and a later "My mother moved to Berlin." / 我母亲搬到北京了 are one ``mother_home_city``."""
    out: dict[str, list[str]] = {}
    for lang in langdata.LANGUAGES:
        for canon, ws in (langdata.load("kin", lang).get("groups") or {}).items():
            out.setdefault(canon, []).extend(ws)
    return {k: tuple(v) for k, v in out.items()}


@lru_cache(maxsize=1)
def kin_canonical_map() -> dict[str, str]:
    """Each relation word of :func:`kin_groups` -> its canonical word ("mom" -> "mother", 太太 -> "wife")."""
    return {w: canon for canon, words in kin_groups().items() for w in words}


@lru_cache(maxsize=1)
def kin_short() -> dict[str, str]:
    """A sibling said with one character (我哥, 我姐搬到深圳了) -> the doubled word, a slot of its own as that is
    (``short`` of data/lang/zh/kin.json)."""
    return dict(langdata.mapping("kin", "short"))


@lru_cache(maxsize=1)
def kin_narrower() -> dict[str, tuple[str, ...]]:
    """English relation words broader than Chinese ones (``narrower`` of data/lang/zh/kin.json), which stay
    relations (and slots) of their own: 哥哥 is an older brother, 弟弟 a younger one, 奶奶 the father's mother, 外婆 /
    姥姥 the mother's. "brother" never merges with either (which one is meant is unknown); a question about the
    broader word is answered by a memory of a narrower one, never the reverse (:func:`kin_covers`). A child, in any
    word for one (``child_words``), is a son or a daughter (``child_narrower``: "Where does my kid go to school?" /
    孩子在哪上学？ by 我女儿…): each broad word is answered by the others and by both narrow ones, never the reverse."""
    out = {k: tuple(v) for k, v in langdata.mapping("kin", "narrower").items()}
    child = [w for lang in langdata.LANGUAGES for w in langdata.load("kin", lang).get("child_words", ())]
    narrow = tuple(w for lang in langdata.LANGUAGES for w in langdata.load("kin", lang).get("child_narrower", ()))
    out.update({w: (*narrow, *(o for o in child if o != w)) for w in child})
    return out


def _kin_list(key: str) -> frozenset[str]:
    return frozenset(w for lang in langdata.LANGUAGES for w in langdata.load("kin", lang).get(key, ()))


@lru_cache(maxsize=1)
def person_words() -> frozenset[str]:
    """People a user speaks of ("my brother is …"), whose facts are typed by value (:func:`person_slot`):
    ``person_words`` of data/lang/*/kin.json and every word of :func:`kin_groups`."""
    return _kin_list("person_words") | frozenset(kin_canonical_map())


@lru_cache(maxsize=1)
def other_person_words() -> frozenset[str]:
    """People whose sentences are theirs, not the speaker's (:mod:`anchormem.answering.persons`), without typed
    slots (``other_person_words`` of data/lang/*/kin.json: "doctor", "parent", 父母)."""
    return _kin_list("other_person_words")


@lru_cache(maxsize=1)
def relation_words() -> frozenset[str]:
    """:func:`person_words` and :func:`other_person_words`."""
    return person_words() | other_person_words()


@lru_cache(maxsize=1)
def person_modifiers() -> str:
    """A regex (one group) of the words before a relation: "my older brother", "my best friend" (``modifiers`` of
    data/lang/en/kin.json)."""
    return r"(?:" + _escaped(langdata.load("kin", "en").get("modifiers", ())) + r")"


@lru_cache(maxsize=1)
def plural_person() -> dict[str, str]:
    """Irregular plurals of person nouns -> the singular ("children" -> "child": ``irregular_plurals`` of
    data/lang/en/kin.json)."""
    return dict(langdata.mapping("kin", "irregular_plurals"))


@lru_cache(maxsize=1)
def _modifiers() -> re.Pattern:
    return re.compile(r"^(?:" + person_modifiers() + r"\s+)+", re.I)


@lru_cache(maxsize=16)
def relation_pattern(zh: bool, words: frozenset[str] | None = None) -> str:
    """A regex alternation (no group) of the English or the Chinese ``words`` (default :func:`relation_words`),
    longest first; English plurals are
    the caller's (``(?:e?s)?``), "children" is included. A one-character Chinese word (哥, 姐, 妈) matches only as a
    word of its own (:func:`one_character_relation`): not inside a longer relation (舅妈, 后妈), not the first half
    of a doubled one (妈妈), not inside a word that names no such relative (师姐, 徒弟: ``not_kin`` of
    data/lang/zh/kin.json), so backtracking never finds it there."""
    if words is None:
        words = relation_words()
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
    """The canonical word of a relation word (:func:`kin_canonical_map`: "mom" -> "mother", 太太 -> "wife"),
    lower-cased; any other word lower-cased as it is ("brother", 哥哥)."""
    w = word.strip().lower()
    return kin_canonical_map().get(w, w)


def kin_covers(asked: str, said: str) -> bool:
    """A question about relation ``asked`` is answered by what is said of relation ``said`` (both canonical,
    :func:`kin_canonical`): the same relation, or a narrower one (:func:`kin_narrower`: asked "brother", said
    哥哥). Asked 哥哥, said "brother" or 弟弟: no."""
    return asked == said or said in kin_narrower().get(asked, ())
