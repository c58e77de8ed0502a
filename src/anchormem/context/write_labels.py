"""The write side of context labels: labels and context vectors for the memories one ``add`` stores, user-given
labels checked, and a scope re-labelled session by session. The read side (query labels, reranking) is
:mod:`.anchor`, which re-exports these names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..tracing import staged
from ..types import Label, MemoryItem
from .smoothing import _smooth
from .taxonomy import DOMAIN_NAMES, NO_DOMAIN, identity_slot, slot_domain, slot_topic

if TYPE_CHECKING:
    from .anchor import ContextAnchor

__all__ = ["context_vectors", "label_drafts", "check_labels", "hand_set", "relabel_scope", "session_windows"]


def context_vectors(vectors: np.ndarray, *, decay: float = 3.0, own_weight: float = 1.0) -> np.ndarray:
    """Context vectors of consecutive turns (``vectors``: their embeddings, (n, dim), oldest first): row i is the
    weighted mean of all rows with weights 1/(1 + |i - j|/``decay``), its own row ``own_weight`` (the label
    smoothing's weights). (n, dim) float32, not normalised (compared by cosine after centering)."""
    v = np.asarray(vectors, dtype=np.float64)
    if v.shape[0] == 0:
        return v.astype(np.float32)
    return _smooth(v, v[:0], own_weight, decay).astype(np.float32)


@staged("label")
def label_drafts(anchor: ContextAnchor, store, scope, drafts, vectors: np.ndarray, *, window_s: float = 1800.0,
                 prior_turns: int = 6, refresh_turns: int = 3) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Set ``labels`` on the drafts of one ``add`` call (in place), using the other turns of the call and the
    same session's recent stored turns (their text and vectors; no session_id: the user's memories of the last
    ``window_s`` seconds before the first turn).

    Returns the drafts' context vectors ((n, dim) float32, :func:`context_vectors` over the recent stored turns
    and the call's turns) and new context vectors for the last ``refresh_turns`` stored turns ({id: (dim,)}),
    which now have these turns after them."""
    dim = np.asarray(vectors).reshape(len(drafts), -1).shape[1] if drafts else 0
    if not drafts:
        return np.zeros((0, dim), dtype=np.float32), {}
    prior_items = store.recent_memories(scope, prior_turns) if prior_turns else []
    if scope.session_id is None and prior_items:
        t0 = drafts[0].item.created_at.timestamp()
        prior_items = [it for it in prior_items if 0 <= t0 - it.created_at.timestamp() <= window_s]
    prior_items = list(reversed(prior_items))  # oldest first
    vecs = store.get_vectors(scope.tenant, [it.id for it in prior_items]) if prior_items else {}
    prior_items = [it for it in prior_items if it.id in vecs]
    texts = [d.item.text for d in drafts]
    hints = [(NO_DOMAIN if identity_slot(d.item.fact.attribute) else slot_domain(d.item.fact.attribute))
             if d.item.fact else None for d in drafts]
    m = len(prior_items)
    prior_vecs = np.vstack([vecs[it.id] for it in prior_items]) if m else None
    own = np.asarray(vectors, dtype=np.float32).reshape(len(drafts), dim)
    ctx = context_vectors(np.vstack([prior_vecs, own]) if m else own, decay=anchor.session_decay,
                          own_weight=anchor.own_weight)
    refresh = {it.id: ctx[i] for i, it in enumerate(prior_items) if i >= m - refresh_turns}
    prior_texts = [it.text for it in prior_items]
    labels = anchor.label_texts(texts, vectors, prior_texts=prior_texts, prior_vectors=prior_vecs, hints=hints,
                                prior_raw=anchor.stored_logits([it.id for it in prior_items], prior_texts, prior_vecs)
                                if m else None)
    for d, labs, hint in zip(drafts, labels, hints):
        topic = slot_topic(d.item.fact.attribute) if hint and d.item.fact else None
        if topic and labs and labs[0].domain == hint:  # the slot names the topic too ("residence", "diet")
            labs[0] = labs[0].model_copy(update={"topic": topic})
        d.item.labels = labs
    return ctx[m:], refresh


def check_labels(labels: Sequence[Label | dict]) -> list[Label]:
    """Validate user-given labels: a list (or tuple) whose items are ``Label`` objects, dicts or domain names
    (``["finance"]``): known domains, normalised topic/intent, scores in [0, 1], one primary, no (domain, topic,
    intent) twice (one domain with two topics is two labels); marked ``set_by="hand"``. Raises InvalidInputError,
    also for a bare ``str``/``bytes``, ``Label`` or dict in place of the list (``labels="travel"``: write
    ``labels=["travel"]``)."""
    from ..errors import InvalidInputError
    from ..validate import check_str
    from .taxonomy import norm_tag

    if isinstance(labels, (str, bytes, bytearray)):
        raise InvalidInputError(f"labels must be a list of labels, not a bare {type(labels).__name__}: for one "
                                f"domain write labels=[{labels!r}]")
    if not isinstance(labels, Sequence):
        raise InvalidInputError("labels must be a list of labels (domain names, Label objects or dicts), got "
                                f"{type(labels).__name__}: for one label write labels=[label]")
    out: list[Label] = []
    for x in labels:
        try:
            lab = x if isinstance(x, Label) else Label(domain=x) if isinstance(x, str) else Label(**x)
        except Exception as exc:  # noqa: BLE001 - pydantic/TypeError become ours
            raise InvalidInputError(f"bad label {x!r}: give a domain name, a Label or a dict with 'domain' "
                                    f"(and optional topic, intent, score, primary)") from exc
        for part in ("domain", "topic", "intent"):  # stored as given: Unicode text without NUL
            if isinstance(getattr(lab, part), str):
                check_str(getattr(lab, part), f"label {part}")
        dom = norm_tag(lab.domain)
        if dom not in DOMAIN_NAMES:
            raise InvalidInputError(f"unknown label domain {lab.domain!r}; domains: {', '.join(DOMAIN_NAMES)}")
        if not 0.0 <= lab.score <= 1.0:
            raise InvalidInputError("label score must be in [0, 1]")
        out.append(Label(domain=dom, topic=norm_tag(lab.topic), intent=norm_tag(lab.intent), score=lab.score,
                         primary=lab.primary, set_by="hand"))
    seen: set[tuple[str, str | None, str | None]] = set()
    for lab in out:
        key = (lab.domain, lab.topic, lab.intent)
        if key in seen:
            raise InvalidInputError(f"label {'/'.join(x or '-' for x in key)!r} is given twice")
        seen.add(key)
    if out and not any(lab.primary for lab in out):
        out[0].primary = True
    if sum(lab.primary for lab in out) > 1:
        raise InvalidInputError("at most one label can be primary")
    out.sort(key=lambda lab: not lab.primary)
    return out


def hand_set(item: MemoryItem) -> bool:
    """The memory's labels were given by a caller (``set_by == "hand"``), not computed."""
    return any(lab.set_by == "hand" for lab in item.labels)


def relabel_scope(anchor: ContextAnchor, store, scope) -> int:
    """Re-label every current memory of a user scope, session by session (oldest first), and recompute their
    context vectors. Memories with hand-set labels (``Label.set_by == "hand"``) keep them. Returns how many were
    labelled."""
    items = store.list_memories(scope, None)
    if not items:
        return 0
    vecs = store.get_vectors(scope.tenant, [it.id for it in items])
    items = [it for it in items if it.id in vecs]
    n = 0
    for window in session_windows(items):
        part = [items[i] for i in window]
        mat = np.vstack([vecs[it.id] for it in part])
        labels = anchor.label_texts([it.text for it in part], mat)
        n += store.set_labels(scope.tenant, {it.id: labs for it, labs in zip(part, labels) if not hand_set(it)})
        ctx = context_vectors(mat, decay=anchor.session_decay, own_weight=anchor.own_weight)
        store.set_context_vectors(scope.tenant, {it.id: c for it, c in zip(part, ctx)})
    return n


def session_windows(items: Sequence[MemoryItem], size: int = 64) -> list[list[int]]:
    """Indexes of ``items`` grouped by session (session-less memories together), each session oldest first, cut
    into windows of at most ``size`` turns: the units :func:`relabel_scope` labels together and computes context
    vectors over (an import computes its context vectors over the same windows)."""
    sessions: dict[object, list[int]] = {}
    for i, it in enumerate(items):
        sessions.setdefault(it.session_id, []).append(i)
    out: list[list[int]] = []
    for idx in sessions.values():
        idx.sort(key=lambda i: items[i].created_at)
        out += [idx[k : k + size] for k in range(0, len(idx), size)]
    return out
