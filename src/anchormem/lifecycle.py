"""Memory lifecycle: expiry (TTL) and importance. Pure functions and data; no I/O.

Seed design: the rules below were written by hand to be explainable, not fitted to data. Change them with a
measurement (``python bench/locomo_recall.py``) and say why.

**Expiry.** Every memory gets ``expires_at`` when :meth:`anchormem.Memory.add` writes it (None = never). An
expired memory drops out of ``search``/``ask``/``get_all`` (``show_expired=True`` shows it) and is deleted by
:meth:`anchormem.Memory.gc` (``anchormem gc``). The strategy is the first that applies of:

1. metadata ``expires_at`` on ``add`` (ISO-8601 string, or epoch seconds): that instant;
2. metadata ``expire_strategy`` on ``add``: ``"permanent"``, a duration (``"30m"``, ``"24h"``, ``"7d"``, ``"2w"``;
   also ``"7天"``, ``"24小时"``, ``"30分钟"``, ``"2周"``) or ``"dynamic"``;
3. :attr:`ExpiryPolicy.metadata`: ``{key: {value: strategy}}`` over the memory's metadata,
   e.g. ``{"category": {"fund_yield": "7d", "risk_preference": "permanent", "emotion": "24h"}}``;
4. :attr:`ExpiryPolicy.kinds`: per memory kind (default: ``fact`` and ``commitment`` are permanent: a fact is a
   lasting statement, a commitment is closed by ``Memory.complete``, not by time);
5. :attr:`ExpiryPolicy.labels`: per context label, ``"domain/topic"`` before ``"domain"``, primary label first
   (e.g. ``{"finance/investing": "7d"}``; labels come from :mod:`anchormem.context`);
6. :attr:`ExpiryPolicy.default` (``"permanent"``).

So the default policy expires nothing unless the caller asks for it. Durations run from when the memory was
said (``created_at``; an imported old conversation expires on its own timeline) or, with
``anchor="written"``, from the write time.

``dynamic`` applies these rules in order (:func:`dynamic_expiry`):

a. a plan or appointment: the date the memory mentions (``event_time``, resolved from "next Tuesday",
   "下周三") starts after it was said: it expires ``event_grace`` (7 days) after that date ends;
b. a short (≤ ``transient_max_chars``, 60) present-tense feeling or bodily state with no object ("I'm so tired
   today", "feeling really stressed", "今天好累", "饿死了"): ``transient`` (24 h) after it was said. A feeling
   with an object ("I'm tired of my job", "excited about moving to Lisbon") is an opinion, not a state: rule c;
c. anything else: permanent.

Restating a memory (an exact duplicate, ``NOOP``) renews its expiry when the new statement would live longer.

**Importance** (:func:`importance`, in [0, 1]) = 0.5·kind prior + 0.3·confidence + 0.2·access, where the kind
prior is fact 1.0 > commitment 0.9 > utterance 0.6 > question 0.4 > assistant 0.3 (others 0.5) and access =
min(1, ln(1+access_count) / ln(1+20)) (log-scaled, capped at 20 retrievals). Search multiplies each hit's score
by ``(1 - w) + w·importance`` with ``SearchConfig.importance_weight`` w (default 0.1); every search bumps
``access_count``/``last_accessed_at`` of the hits it returns (``SearchConfig.track_access``).
Check (LoCoMo evidence recall, first 2 conversations, 302 questions, one ingest, access tracking on, raw
evidence): w = 0 → 0.1 gives R@1 33.4 → 33.1, R@5 59.5 → 59.2, R@10 68.2 → 68.2, R@25 79.6 → 79.6,
R@50 85.6 → 85.7: no loss beyond one question in 302. Every LoCoMo turn is a user utterance (861 memories from
788 turns, the rest facts), so this shows the default is safe there, not that it helps.

**Tiers** (warm / cold), promotion and demotion thresholds, near-duplicate merges and episode roll-ups live in
:mod:`anchormem.consolidate`: a memory is demoted to cold by ``consolidate`` when ``importance`` ≤ 0.6 (an
utterance, question or assistant turn never returned by a search) and it was not accessed for 90 days, or when it
is an episode older than 30 days rolled up into a summary; a cold memory retrieved after it was archived is
promoted back by the next ``consolidate``, and one restated by ``add`` at once.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from .errors import ConfigError, InvalidInputError
from .filters import And, Cond, FilterNode, Or, names_field
from .timeutil import shift, to_utc
from .types import MemoryItem

__all__ = ["ExpiryPolicy", "parse_duration", "parse_strategy", "resolve_expiry", "explain_expiry",
           "dynamic_expiry", "is_transient", "importance", "KIND_PRIOR", "ACCESS_CAP", "not_expired", "expired_filter",
           "STRATEGY_KEY", "EXPIRES_KEY", "check_expiry_metadata", "assign_expiry", "renewals", "warm_only"]

STRATEGY_KEY = "expire_strategy"  # metadata key: a strategy string
EXPIRES_KEY = "expires_at"  # metadata key: an explicit instant

_UNITS = {"m": 60, "min": 60, "分钟": 60, "h": 3600, "小时": 3600, "d": 86400, "天": 86400, "w": 604800,
          "周": 604800, "星期": 604800}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(min|m|h|d|w|分钟|小时|天|周|星期)\s*$", re.IGNORECASE)

Strategy = Literal["permanent", "dynamic"] | timedelta


def parse_duration(value: str) -> timedelta:
    """``"30m"``, ``"24h"``, ``"7d"``, ``"2w"`` (also ``"1.5d"``, ``"7天"``, ``"24小时"``, ``"30分钟"``, ``"2周"``) →
    timedelta. Raises InvalidInputError for anything else, zero, or a duration over 1000 years."""
    m = _DURATION.match(value) if isinstance(value, str) else None
    if m is None:
        raise InvalidInputError(f"not a duration: {value!r}; use a number and a unit m, h, d or w, e.g. '7d'")
    seconds = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if not 0 < seconds <= 1000 * 365 * 86400:
        raise InvalidInputError(f"duration {value!r} must be positive and at most 1000 years")
    return timedelta(seconds=seconds)


def parse_strategy(value: Any) -> Strategy:
    """An expiry strategy string → ``"permanent"``, ``"dynamic"`` or a timedelta (see :func:`parse_duration`).
    Raises InvalidInputError naming the accepted forms."""
    if not isinstance(value, str):
        raise InvalidInputError(f"expire strategy must be a string, got {type(value).__name__}")
    s = value.strip().lower()
    if s in ("permanent", "dynamic"):
        return s  # type: ignore[return-value]
    try:
        return parse_duration(s)
    except InvalidInputError:
        raise InvalidInputError(f"unknown expire strategy {value!r}: use 'permanent', 'dynamic' or a duration "
                                "such as '30m', '24h', '7d', '2w'") from None


def _check(value: Any, where: str) -> Any:
    """A policy's strategy, parsed; ConfigError (a bad policy is configuration, not caller input)."""
    try:
        return parse_strategy(value)
    except InvalidInputError as exc:
        raise ConfigError(f"ExpiryPolicy.{where}: {exc}") from None


class ExpiryPolicy(BaseModel):
    """Which memories expire, and when. Rules are checked in the order given in :mod:`anchormem.lifecycle`:
    add-time metadata (``expires_at``, ``expire_strategy``) → ``metadata`` → ``kinds`` → ``labels`` → ``default``.

    Every strategy is ``"permanent"``, ``"dynamic"`` or a duration (``"24h"``, ``"7d"``…). A kind listed in
    ``kinds`` is decided there (labels are not consulted); leave a kind out to let labels decide for it.
    ``transient``/``event_grace``: the durations of the ``dynamic`` rules. ``anchor``: durations run from when
    the memory was said (``"said"``, default) or from when it was written (``"written"``).
    Raises ConfigError for a bad strategy or duration.

        >>> ExpiryPolicy(labels={"finance/investing": "7d"}, metadata={"category": {"emotion": "24h"}})
    """

    model_config = ConfigDict(extra="forbid")

    default: str = "permanent"
    kinds: dict[str, str] = Field(default_factory=lambda: {"fact": "permanent", "commitment": "permanent"})
    labels: dict[str, str] = Field(default_factory=dict)
    metadata: dict[str, dict[str, str]] = Field(default_factory=dict)
    transient: str = "24h"
    event_grace: str = "7d"
    transient_max_chars: int = Field(60, ge=1, le=10_000)
    anchor: Literal["said", "written"] = "said"

    @field_validator("default")
    @classmethod
    def _default(cls, v: str) -> str:
        _check(v, "default")
        return v

    @field_validator("kinds", "labels")
    @classmethod
    def _maps(cls, v: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        for k, s in v.items():
            _check(s, f"{info.field_name}[{k!r}]")
        return v

    @field_validator("metadata")
    @classmethod
    def _meta(cls, v: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        for k, m in v.items():
            for val, s in m.items():
                _check(s, f"metadata[{k!r}][{val!r}]")
        return v

    @field_validator("transient", "event_grace")
    @classmethod
    def _durations(cls, v: str) -> str:
        if not isinstance(_check(v, "transient/event_grace"), timedelta):
            raise ConfigError(f"ExpiryPolicy: transient/event_grace {v!r} must be a duration such as '24h'")
        return v


# ---------------------------------------------------------------- dynamic rules
_INTENS_EN = r"(?:(?:so|really|very|super|a\s+bit|a\s+little|kind\s+of|kinda|pretty|quite|totally|extremely|too|" \
             r"completely|absolutely|just)\s+)*"
_STATE_EN = (r"(?:tired|exhausted|sleepy|drained|worn\s+out|hungry|starving|thirsty|sick|ill|unwell|"
             r"stressed(?:\s+out)?|anxious|nervous|upset|sad|down|blue|angry|mad|annoyed|frustrated|bored|excited|happy|glad|grumpy|"
             r"cranky|sore|cold|hot|full|lonely|overwhelmed|burn[et]\s+out|hungover|moody|restless|sleepless)")
_FEEL_EN = re.compile(r"\b(?:i\s*'?\s*m|i\s+am|i\s+feel|i\s*'?\s*m\s+feeling|i\s+am\s+feeling|feeling|feel)\s+"
                      + _INTENS_EN + _STATE_EN + r"\b(?P<rest>[^.!?]*)", re.IGNORECASE)
_OBJECT_EN = re.compile(r"^\s*(?:about|of|with|for|to|that|at|by|because\s+of)\b", re.IGNORECASE)
_FEEL_ZH = re.compile(
    r"(?:好|很|太|真|挺|有点儿?|有些|特别|非常|超级?|巨|快要?|实在)(?:累|困|饿|渴|烦|难过|伤心|开心|高兴|生气|郁闷|焦虑|紧张|"
    r"无聊|头疼|头痛|不舒服|难受|兴奋|崩溃|疲惫|委屈|心累|emo)"
    r"|(?:累|困|饿|渴|烦|热|冷|无聊)死了?|心情(?:很|特别|超|有点|不太)?(?:好|差|糟|不好|低落)")
_OBJECT_ZH = re.compile(r"(?:对|因为|关于|为了).{0,12}$|讨厌|喜欢|受不了")


def is_transient(text: str, max_chars: int = 60) -> bool:
    """True for a short present-tense feeling or bodily state with no object: "I'm so tired today",
    "Feeling really stressed right now", "今天好累", "饿死了". False for long texts (more than ``max_chars``
    characters, which likely carry lasting content), for feelings with an object ("tired of my job",
    "excited about the move", "我对工作很烦") and for past tense ("I was tired")."""
    t = " ".join(text.split())
    if not t or len(t) > max_chars:
        return False
    m = _FEEL_EN.search(t)
    if m is not None:
        return not _OBJECT_EN.match(m.group("rest"))
    if _FEEL_ZH.search(t):
        return not _OBJECT_ZH.search(t)
    return False


def dynamic_expiry(item: MemoryItem, policy: ExpiryPolicy, base: datetime) -> tuple[datetime | None, str]:
    """The ``dynamic`` rules (module docstring, a-c): ``(expires_at or None, rule name)``."""
    start = item.event_time
    if start is not None and start > item.created_at and item.kind != "commitment":
        end = item.event_time_end or start
        return shift(end, parse_duration(policy.event_grace)), "dynamic:event"
    if is_transient(item.text, policy.transient_max_chars):
        return shift(base, parse_duration(policy.transient)), "dynamic:transient"
    return None, "dynamic:permanent"


# ---------------------------------------------------------------- resolution
def _label_keys(item: MemoryItem) -> list[str]:
    labels = sorted(item.labels, key=lambda lb: not lb.primary)
    return [f"{lb.domain}/{lb.topic}" for lb in labels if lb.topic] + [lb.domain for lb in labels]


def _strategy(item: MemoryItem, policy: ExpiryPolicy) -> tuple[str, str]:
    meta = item.metadata or {}
    if meta.get(STRATEGY_KEY) is not None:
        return meta[STRATEGY_KEY], f"metadata.{STRATEGY_KEY}"
    for key, rules in policy.metadata.items():
        v = meta.get(key)
        if v is not None and str(v) in rules:
            return rules[str(v)], f"policy.metadata[{key}={v}]"
    if item.kind in policy.kinds:
        return policy.kinds[item.kind], f"policy.kinds[{item.kind}]"
    for key in _label_keys(item):
        if key in policy.labels:
            return policy.labels[key], f"policy.labels[{key}]"
    return policy.default, "policy.default"


def explain_expiry(item: MemoryItem, policy: ExpiryPolicy | None = None, now: datetime | None = None
                   ) -> tuple[datetime | None, str]:
    """Like :func:`resolve_expiry`, also naming the rule that decided: ``(expires_at, rule)``, e.g.
    ``(…, "metadata.expire_strategy")``, ``(None, "policy.kinds[fact]")``,
    ``(…, "policy.default→dynamic:transient")``. Raises InvalidInputError (bad metadata)."""
    policy = policy or ExpiryPolicy()
    meta = item.metadata or {}
    if meta.get(EXPIRES_KEY) is not None:
        return to_utc(meta[EXPIRES_KEY], field=f"metadata {EXPIRES_KEY}"), f"metadata.{EXPIRES_KEY}"
    raw, rule = _strategy(item, policy)
    strategy = parse_strategy(raw)
    base = item.created_at if policy.anchor == "said" or now is None else to_utc(now, field="now")
    if strategy == "permanent":
        return None, rule
    if strategy == "dynamic":
        when, how = dynamic_expiry(item, policy, base)
        return when, f"{rule}→{how}"
    return shift(base, strategy), rule  # beyond the supported time range (anchormem.timeutil): never


def resolve_expiry(item: MemoryItem, policy: ExpiryPolicy | None = None, now: datetime | None = None
                   ) -> datetime | None:
    """When ``item`` expires under ``policy`` (default :class:`ExpiryPolicy`), aware UTC, or None (never).

    ``now``: the write time, the base of durations when ``policy.anchor == "written"`` (otherwise durations run
    from ``item.created_at``). Raises InvalidInputError for a bad ``expire_strategy`` or ``expires_at`` in the
    item's metadata."""
    try:
        return explain_expiry(item, policy, now)[0]
    except InvalidInputError as exc:
        raise InvalidInputError(f"metadata: {exc}") from None


def check_expiry_metadata(metadata: dict[str, Any]) -> None:
    """Validate the expiry keys of ``add`` metadata early (before anything is embedded or written):
    ``expire_strategy`` must parse (:func:`parse_strategy`), ``expires_at`` must be ISO-8601 or epoch seconds.
    Raises InvalidInputError."""
    if metadata.get(STRATEGY_KEY) is not None:
        parse_strategy(metadata[STRATEGY_KEY])
    if metadata.get(EXPIRES_KEY) is not None:
        if isinstance(metadata[EXPIRES_KEY], bool):
            raise InvalidInputError(f"{EXPIRES_KEY} must be an ISO-8601 timestamp, not a boolean")
        to_utc(metadata[EXPIRES_KEY], field=EXPIRES_KEY)


def assign_expiry(items: list[MemoryItem], policy: ExpiryPolicy, now: datetime) -> None:
    """Set ``expires_at`` on memories about to be written (in place). Raises InvalidInputError."""
    for it in items:
        it.expires_at = resolve_expiry(it, policy, now)


def renewals(written: list[MemoryItem], results: list[Any], noops: list[MemoryItem], policy: ExpiryPolicy,
             said_at: datetime) -> dict[str, datetime | None]:
    """Expiry renewals after a write: a restated memory (``NOOP``) that would expire sooner than the restatement
    takes the restatement's expiry (None = never). ``written``: the items passed to ``Store.write``, in order;
    ``results``: its WriteResults (one ADD/NOOP per item, SUPERSEDE rows in between); ``noops``: memories a
    restated fact matched before the write (their expiry is re-resolved as if said at ``said_at``).
    Updates the NOOP items in place and returns ``{memory id: new expires_at}`` for ``Store.set_expiry``."""
    out: dict[str, datetime | None] = {}
    pending = iter(written)
    pairs: list[tuple[MemoryItem, datetime | None]] = []
    for r in results:
        if r.event == "SUPERSEDE":
            continue
        new = next(pending, None)
        if new is None:
            break
        if r.event == "NOOP":
            pairs.append((r.item, new.expires_at))
    for m in noops:
        again = m.model_copy(update={"created_at": to_utc(said_at)})
        pairs.append((m, resolve_expiry(again, policy, said_at)))
    for item, new_exp in pairs:
        if item.expires_at is not None and (new_exp is None or new_exp > item.expires_at):
            out[item.id] = new_exp
            item.expires_at = new_exp
    return out


# ---------------------------------------------------------------- filters
def not_expired(where: FilterNode | None, now: datetime) -> FilterNode:
    """``where`` AND (no ``expires_at`` OR ``expires_at`` > ``now``): a store filter that hides expired rows."""
    live = Or((Cond("expires_at", "exists", False), Cond("expires_at", "gt", now.timestamp())))
    return live if where is None else And((where, live))


def warm_only(where: FilterNode | None) -> FilterNode:
    """``where`` AND ``tier = "warm"``, unless ``where`` already names ``tier`` (then it decides): the default of
    ``get_all`` (cold memories are archived; see :mod:`anchormem.consolidate`)."""
    if names_field(where, "tier"):
        return where  # type: ignore[return-value]
    warm = Cond("tier", "eq", "warm")
    return warm if where is None else And((where, warm))


def expired_filter(now: datetime) -> FilterNode:
    """``expires_at`` <= ``now``: the rows :meth:`anchormem.Memory.gc` deletes."""
    return Cond("expires_at", "lte", now.timestamp())


# ---------------------------------------------------------------- importance
KIND_PRIOR: dict[str, float] = {"fact": 1.0, "commitment": 0.9, "utterance": 0.6, "question": 0.4,
                                "assistant": 0.3}
ACCESS_CAP = 20


def importance(item: MemoryItem) -> float:
    """How much a memory matters regardless of the query, in [0, 1]:
    0.5·KIND_PRIOR[kind] (0.5 for other kinds) + 0.3·confidence (clamped to [0, 1]) +
    0.2·min(1, ln(1+access_count) / ln(1+ACCESS_CAP)). Seed design; see the module docstring."""
    kind = KIND_PRIOR.get(item.kind, 0.5)
    conf = min(1.0, max(0.0, float(item.confidence)))
    access = min(1.0, math.log1p(max(0, item.access_count)) / math.log1p(ACCESS_CAP))
    return 0.5 * kind + 0.3 * conf + 0.2 * access
