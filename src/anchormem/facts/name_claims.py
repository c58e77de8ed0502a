"""A name changes only the name it is about.

A claim whose value is someone's or something's name (``cat_name`` Mochi, ``boyfriend_name`` 小王, the speaker's own
``name``) is changed by later words only when those words are about its holder: they name the holder (cat / 猫 /
kitty, boyfriend / 男朋友 / 男友: the holder's words of ``categories.json`` and the relation words of
:mod:`~anchormem.facts.keys`), say a name as a name (a ``name_cues`` word of ``answers.json``: "called", "named",
叫, 名字), or repeat the old name itself ("Mochi is Momo now"). "I moved to Cranston last month" names a place, not
the cat; "烟终于戒了" ends a habit, not 小王.

    about_holder("I moved to Cranston last month.", "cat_name", "Mochi")      # -> False
    about_holder("We renamed the cat, she's Momo now.", "cat_name", "Mochi")  # -> True

Nothing is read before first use.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .. import langdata
from ..text.tokenize import has_cjk

__all__ = ["about_holder", "holder_of", "holder_words"]


def holder_of(attribute: str) -> str | None:
    """The holder of a name attribute: "cat_name" -> "cat", "older brother_name" -> "older brother", "name" -> ""
    (the speaker's own name); None when ``attribute`` holds no name (an open slot ``name:…``, ``home_city``)."""
    if attribute == "name":
        return ""
    if ":" in attribute or not attribute.endswith("_name") or attribute == "_name":
        return None
    return attribute[: -len("_name")].replace("_", " ").strip()


@lru_cache(maxsize=256)
def holder_words(holder: str) -> tuple[str, ...]:
    """The words naming ``holder`` in English and Chinese: a pet kind's category words (``categories.json``: "cat" ->
    cat, cats, kitten, kitty, 猫, 猫咪...), a relation's words (``kin_groups``: "boyfriend" -> boyfriend, 男朋友, 男友;
    ``kin_narrower``), the holder's own head word; () for the speaker ("")."""
    from .keys import kin_groups, kin_narrower

    if not holder:
        return ()
    head = holder.split()[-1]
    words = {holder, head}
    cats = [langdata.load("categories", lang).get("categories", {}) for lang in ("en", "zh")]
    ids = {cid: head == cid or head in spec.get("names", []) for c in cats for cid, spec in c.items()
           if head == cid or head in spec.get("names", []) or head in spec.get("kinds", [])}
    for c in cats:  # a category's names in both languages (one id per category); its kinds when it is the holder
        for cid, whole in ids.items():  # ("cat": 猫, kitty, 橘猫); a kind's own categories ("parrot": bird, 鸟, pet)
            spec = c.get(cid, {})
            words.update(spec.get("names", []))
            words.update(spec.get("kinds", []) if whole else [])
    for canon, group in kin_groups().items():
        if head == canon or head in group:
            words.update(group)
    words.update(kin_narrower().get(head, ()))
    return tuple(sorted(w for w in words if w))


@lru_cache(maxsize=1)
def _cues() -> tuple[str, ...]:
    return tuple(dict.fromkeys(w for lang in ("en", "zh") for w in langdata.load("answers", lang).get("name_cues", [])))


def _says(text: str, word: str) -> bool:
    if has_cjk(word):
        return word in text
    return re.search(rf"(?<![\w]){re.escape(word)}(?:s|es)?(?![\w])", text, re.I) is not None


def _pronouns(holder: str) -> tuple[str, ...]:
    """The pronouns that may stand for ``holder`` (``holder_pronouns`` of frames.json); for a person listed under
    ``pronoun_persons`` only the pronouns listing them ("boyfriend": he, 他)."""
    out: list[str] = []
    for lang in ("en", "zh"):
        d = langdata.load("frames", lang)
        persons = d.get("pronoun_persons", {})
        listed = [p for p, who in persons.items() if holder in who or holder.split()[-1] in who]
        for p in d.get("holder_pronouns", []):
            base = p.split("'")[0]
            if not any(holder in who for who in persons.values()) or p in listed or base in listed or \
                    (base in ("him", "his") and "he" in listed) or (base == "her" and "she" in listed):
                out.append(p)
    return tuple(out)


def about_holder(text: str, attribute: str, old_value: str = "", *, placed: bool = False) -> bool:
    """``text`` (new words) may change the name claim ``attribute``: it names the holder, says a name as a name
    (``name_cues``), repeats ``old_value`` or, its new value not ``placed`` (said where something is: "to Cranston",
    在杭州, a place and never a name), says a pronoun that may stand for the holder ("she's Luna now"); True for an
    attribute that holds no name (:func:`holder_of`)."""
    holder = holder_of(attribute)
    if holder is None:
        return True
    if old_value and _says(text, old_value.strip()):
        return True
    if any(_says(text, w) for w in holder_words(holder) + _cues()):
        return True
    return bool(holder) and not placed and any(_says(text, p) for p in _pronouns(holder))


def ending_word(text: str, end_piece: str, shared: str, value: str) -> bool:
    """The word a new name ``value`` would share with older words (``shared``) is said only in the piece of ``text``
    that ends something (``end_piece``), and the name is said in another piece: the shared word is the ending's
    ("网易云会员退订了，听歌现在用QQ音乐免费的": 会员 is what ended, QQ changes no 会员). The caller keeps a change
    whose ending piece names the old value it replaces ("深圳那边的房子退了，我已经回长沙了": 深圳 ended, 长沙 holds)."""
    if not shared or not end_piece or end_piece.strip() == text.strip():
        return False
    piece, word = end_piece.casefold(), shared.casefold()
    return word in piece and value.casefold() not in piece and word not in text.casefold().replace(piece, " ", 1)
