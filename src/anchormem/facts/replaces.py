"""A first value of a well-known slot, said as a change, replaces the user's older words about that slot.

"跳槽去拼多多了" is read by the rules as ``employer`` 拼多多; when the user's employer was said in words no rule reads
("目前在美团做后端开发"), the new value is a *first* fact of its slot and nothing is superseded: two employers stay
current. This module resolves the target by meaning, as :mod:`.relative` does for open slots:

1. **Which facts**: a fact of a typed slot (the exemplar bank's ``place`` / ``org`` / ``job`` classes: ``home_city``,
   ``employer``, ``occupation``) that is the first of its slot for the user, read from a clause whose aspect says a
   state changed (:func:`~anchormem.facts.aspect.aspect`: "now", 跳槽, 转行, "quit") and that the scene gate
   (:func:`~anchormem.facts.stance.scene`) and the blockers (a plan, a hypothetical, reported speech) let through.
2. **Which older words**: the user's current clauses nearest the new one (the store's ``dense_search``), said by the
   same speaker with the speaker as the subject, holding a value of the slot's type (a name for a place or an
   organisation, said after a locative word: ``locative_before`` of relative.json, "in", "at", 在; a job noun for an occupation: :func:`~anchormem.facts.relative.clause_values`) other than the new
   one, whose slot class by the exemplar bank
   (:func:`~anchormem.facts.meaning.classify`, above the bank's ``none``) is the new fact's slot; the best scoring one
   by a margin (``replace_margin`` of the calibration in relative.json).
3. **The change**: an open claim (:class:`~anchormem.facts.relative.OpenClaim`) in that slot for the older clause,
   carried by its memory, which the new fact supersedes through :func:`~anchormem.facts.reconcile.plan_facts`.

    claims = typed_firsts(embedder, found, out, fresh, store=store, tenant="default", user_id="u1")
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from ..text.tokenize import has_cjk
from ..types import Scope
from .model import Fact

__all__ = ["typed_firsts"]

_LOG = logging.getLogger(__name__)


def _typed_slots(lang: str) -> frozenset[str]:
    from .meaning import _bank_data

    return frozenset(s for s, sp in _bank_data(lang).get("slots", {}).items()
                     if sp.get("type") in ("place", "org", "job"))


def _slot_type(slot: str, lang: str) -> str:
    from .meaning import _bank_data

    return str(_bank_data(lang).get("slots", {}).get(slot, {}).get("type", ""))


def _located(clause: str, name: str) -> bool:
    """``name`` is said where something is or who one is with: a ``locative_before`` word of relative.json right
    before it ("in Cleveland", "at Meta", 在成都, 住Toronto); "养了只柯基", "写Java的" name no place or employer."""
    from .typed_values import data

    at = clause.find(name)
    before = clause[:at].rstrip().casefold() if at > 0 else ""
    for lang in ("en", "zh"):
        for w in data(lang).get("locative_before", []):
            w = w.casefold()
            if before.endswith(w) and (has_cjk(w) or not before[-len(w) - 1:-len(w)].isalnum()):
                return True
    return False


def _said_as_change(clause: str) -> bool:
    from .aspect import aspect
    from .changes import blocked
    from .stance import scene

    return bool(clause) and bool(aspect(clause)) and not blocked(clause) and not scene(clause)


def typed_firsts(embedder: Any, found: list[tuple[Any, list[Fact]]], out: list[list[Fact]], fresh: set[int], *,
                 store: Any, tenant: str, user_id: str, margin: float = 0.0) -> list[Any]:
    """The open claims (:class:`~anchormem.facts.relative.OpenClaim`) that the first facts of typed slots in ``out``
    (``fresh``: ids of the facts whose slot the user has no value in) replace; [] when none. ``found``: (draft, facts)
    of the add, ``out``: the facts of each draft so far. One embedding call for the new clauses, one for the old."""
    from .meaning import _bank, classify
    from .places import home_places, left_places
    from .relative import _habit, _lang, _old_clauses, _open, settings
    from .subjects import speakers

    news: list[tuple[int, Fact, str]] = []
    for i, (d, _) in enumerate(found):
        if d.item.source != "user" or d.item.kind != "utterance":
            continue
        own = {"user", (d.item.speaker or "user").casefold()}
        for g in out[i]:
            c = (g.clause or g.source_span or "").strip()
            if g.entity.casefold() not in own:
                continue  # "Tom moved to Singapore": the older words it could replace are the speaker's own
            if id(g) in fresh and g.polarity > 0 and g.attribute in _typed_slots(_lang(c)) and _said_as_change(c):
                news.append((i, g, c))
    if not news:
        return []
    vecs = np.asarray(embedder.embed_documents([c for _, _, c in news]), dtype=np.float32)
    scope = Scope(tenant=tenant, user_id=user_id)
    claims = []
    done: set[str] = set()
    for (i, g, c), vec in zip(news, vecs):
        if g.attribute in done:
            continue
        speaker = found[i][0].item.speaker
        want = "job" if _slot_type(g.attribute, _lang(c)) == "job" else "name"  # the type of value the old words hold
        ids = [mid for mid, _ in store.dense_search(scope, vec, int(settings(_lang(c)).get("k", 8)), None)]
        items = store.get_many(tenant, ids) if ids else {}
        olds = []
        for mid in ids:
            it = items.get(mid)
            if it is None or it.source != "user" or it.kind not in ("utterance", "fact") or it.valid_to is not None \
                    or it.speaker != speaker:
                continue
            olds += [o for o in _old_clauses(it) if g.value.casefold() not in o.clause.casefold() and
                     any(v.kind == want and (want == "job" or _located(o.clause, v.value)) for v in o.values) and
                     speakers(o.clause)]
        if not olds:
            continue
        ov = np.asarray(embedder.embed_documents([o.clause for o in olds]), dtype=np.float32)
        rows = []
        ended = left_places(found[i][0].item.text, g.value) if g.attribute == "home_city" else set()
        for o, v in zip(olds, ov):
            lang = _lang(o.clause)
            allowed = set(_typed_slots(lang))
            scores = classify(v, _bank(embedder, lang), allowed, lang)[1]
            top = max(allowed, key=lambda s: scores.get(s, -1.0))
            placed = home_places(o, g.attribute, ended)  # a known place the speaker was in (facts.places): a home by type
            if placed & ended:  # "finally escaped Cleveland!! we're in Raleigh now": the place said as left
                rows.append((2.0 + scores.get(g.attribute, 0.0), o, min(placed & ended)))
            elif placed or (top == g.attribute and scores.get(top, -1.0) > scores.get("none", -1.0)):
                rows.append((scores.get(g.attribute, -1.0), o, min(placed) if placed else ""))
        _LOG.debug("replaces %s %r: %s", g.attribute, c, [(round(s, 3), o.clause) for s, o, _ in rows])
        if not rows:
            continue
        rows.sort(key=lambda r: -r[0])
        if len(rows) > 1 and rows[0][0] - rows[1][0] < margin:
            continue
        o, place = rows[0][1], rows[0][2]  # (a known place: the claim is the place, on the words holding it)
        claims.append(_open(o, g.entity, g.attribute, place, place) if place else
                      _open(o, g.entity, g.attribute, _habit(o.clause)))
        done.add(g.attribute)
        _LOG.debug("replaces CHANGE %s: %r -> %r", g.attribute, o.clause, c)
    return claims
