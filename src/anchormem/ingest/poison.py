"""Poisoning guard: user turns that read as instructions to the agent are quarantined, not stored.

A memory layer replays stored text into future prompts, so "ignore previous instructions", "from now on you
must…" or "从现在开始你必须…" stored as a memory would become a standing prompt injection. Such turns go to the
review queue (reason ``"looks like an instruction to the agent: <rule>"``) instead of memory; the raw turn stays
in the message log for provenance, and an approved item is stored as an ordinary memory.

The rules are the visible, testable list :data:`RULES` (name → pattern), English and Chinese. The other half of
the guard (a low-confidence statement contradicting a high-confidence fact) is the review rule of
:mod:`anchormem.facts.reconcile`.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from ..timeutil import utcnow
from ..types import ReviewItem

__all__ = ["RULES", "instruction_rule", "quarantine"]

_I = re.I
RULES: dict[str, re.Pattern] = {
    "ignore-instructions": re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|my\s+)*(?:previous|prior|"
        r"above|earlier|preceding|system|original)?\s*(?:instructions?|prompts?|rules|guidelines|directions)\b", _I),
    "from-now-on": re.compile(
        r"\bfrom now on,?\s+(?:you|the assistant|the ai|the model)\s+(?:must|should|will|shall|are to|have to|"
        r"need to|always|never)\b", _I),
    "role-override": re.compile(
        r"\byou are (?:now|no longer)\b|\bact as (?:a |an )?(?:system|admin|developer|jailbroken|dan)\b|"
        r"\bpretend (?:to be|you are) (?:the )?(?:system|developer|admin)\b", _I),
    "hidden-directive": re.compile(
        r"\b(?:system prompt|new instructions?:|developer mode|do not tell the user|don't tell the user|"
        r"without telling the user|always (?:answer|respond|reply) (?:with|that)|reveal your (?:prompt|instructions))\b",
        _I),
    "ignore-instructions-zh": re.compile(
        r"(?:忽略|无视|忘记|忘掉|不要理会|绕过)(?:掉)?(?:你)?(?:之前|以前|上面|以上|前面|所有|全部|原来|系统)?的?"
        r"(?:所有|全部)?(?:指令|指示|提示词?|规则|设定|要求)"),
    "from-now-on-zh": re.compile(r"(?:从现在(?:开始|起)|以后|今后)[，,\s]*(?:你|助手|AI)(?:必须|只能|要|应该|一律|永远|总是|不许|不准)"),
    "role-override-zh": re.compile(r"你现在是(?:一个|一名)?(?:系统|管理员|开发者|没有限制)|扮演(?:系统|管理员|开发者)|"
                                   r"(?:不要|别)告诉用户|系统提示词|开发者模式"),
}


def instruction_rule(text: str) -> str | None:
    """The name of the first rule in :data:`RULES` that ``text`` matches, or None."""
    for name, pat in RULES.items():
        if pat.search(text):
            return name
    return None


def quarantine(drafts: list[Any], scope: Any) -> tuple[list[Any], list[ReviewItem]]:
    """Split drafts into (kept, review items): user-sourced drafts matching a rule are held for review."""
    kept: list[Any] = []
    held: list[ReviewItem] = []
    for d in drafts:
        rule = instruction_rule(d.item.text) if d.item.source == "user" else None
        if rule is None:
            kept.append(d)
            continue
        held.append(ReviewItem(id=uuid.uuid4().hex, tenant=scope.tenant, user_id=scope.user_id,
                               reason=f"looks like an instruction to the agent: {rule}", proposed=d.item,
                               created_at=utcnow()))
    return kept, held
