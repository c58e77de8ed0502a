"""Reply templates of the reference agents, English and Chinese (the offline replies; no LLM).

:func:`render` picks the template by name and language and fills it with ``str.format`` fields. Quotes of what a
party said are always verbatim (``“…”``). No template makes a promise in the first person ("I will…"): the
agents' own words are never meant to become commitments.
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Any

from ..errors import InvalidInputError

__all__ = ["render", "fmt_date", "quoted", "TEMPLATES", "STAGE_NAMES", "ATTRIBUTE_NAMES"]

STAGE_NAMES = {
    "en": {"information_gathering": "information gathering", "de_escalation": "de-escalation",
           "option_exploration": "option exploration", "agreement_confirmation": "agreement confirmation",
           "follow_up": "follow-up"},
    "zh": {"information_gathering": "了解情况", "de_escalation": "缓和情绪", "option_exploration": "探索方案",
           "agreement_confirmation": "确认协议", "follow_up": "跟进落实"},
}
ATTRIBUTE_NAMES = {"en": {"bank_card": "bank card", "phone": "phone number"},
                   "zh": {"bank_card": "银行卡", "phone": "手机号"}}

TEMPLATES: dict[str, dict[str, str]] = {
    # ------------------------------------------------------------------ mediator
    "stage.information_gathering": {
        "en": "Thank you, {name}. What matters most to you here, and what would a good outcome look like?",
        "zh": "谢谢你，{name}。这件事里你最在意的是什么？怎样的结果对你来说是好的？"},
    "stage.de_escalation": {
        "en": "{name}, I can hear that this is really hard. Let's slow down and take one point at a time.",
        "zh": "{name}，我能感受到这件事让你很难受。我们慢一点，一件一件来。"},
    "stage.option_exploration": {
        "en": "Let's look for options that could work for both sides.",
        "zh": "我们来找找双方都能接受的办法。"},
    "stage.agreement_confirmation": {
        "en": "It sounds like there is an agreement. It needs a yes from everyone involved.",
        "zh": "听起来已经有了共识，需要各方都确认。"},
    "stage.follow_up": {
        "en": "Thank you. The agreement is on record, and each step is checked when it falls due.",
        "zh": "谢谢。协议已经记录，每一项到期时都会跟进确认。"},
    "due": {"en": "About “{text}” (due {due}{late}): done?", "zh": "关于“{text}”（{due}到期{late}）：完成了吗？"},
    "due.late": {"en": ", overdue", "zh": "，已逾期"},
    "cite.own": {"en": "On {date} you said: “{text}”", "zh": "{date}你说过：“{text}”"},
    "cite.other": {"en": "On {date} {name} said (shared with their consent): “{text}”",
                   "zh": "{date}{name}说过（经其同意转达）：“{text}”"},
    "commitment.noted": {"en": "Noted as a commitment: “{text}” (due {due}).",
                         "zh": "已记录为承诺：“{text}”（{due}到期）。"},
    "commitment.undated": {"en": "Noted as a commitment: “{text}” (no due date yet).",
                           "zh": "已记录为承诺：“{text}”（尚未约定期限）。"},
    "commitment.done": {"en": "Thank you. Recorded as done: “{text}”", "zh": "好的，已记录为完成：“{text}”"},
    "commitment.breached": {"en": "Recorded as not kept: “{text}” (it was due {due}).",
                            "zh": "已记录为未按时完成：“{text}”（原定{due}）。"},
    "commitment.open": {"en": "Noted. “{text}” stays open until {due}", "zh": "好的，“{text}”在{due}前仍然有效"},
    "shared": {"en": "As you allowed, this can be passed on to {others}.",
               "zh": "按你的意思，这一点可以转告{others}。"},
    "waiting": {"en": "Still waiting for {names} to confirm.", "zh": "还需要{names}确认。"},
    "record.status": {"en": "{owner} reported the commitment due {due} as {status} on {date}.",
                      "zh": "{owner}于{date}报告：{due}到期的承诺{status}。"},
    "status.fulfilled": {"en": "fulfilled", "zh": "已完成"},
    "status.breached": {"en": "not kept", "zh": "未按时完成"},
    "record.turn": {"en": "Mediator reply to {name} (stage: {stage}).", "zh": "调解员回复{name}（阶段：{stage}）。"},
    # ------------------------------------------------------------------ support assistant
    "review": {"en": "For your security, the change to your {attr} was not applied: it has been sent for review "
                     "(review {rid}).",
               "zh": "为了您的账户安全，{attr}的变更暂未生效，已提交人工审核（审核单号 {rid}）。"},
    "review.current": {"en": "The {attr} on record stays {masked} until the review is done.",
                       "zh": "审核完成前，记录中的{attr}仍为{masked}。"},
    "recall.product": {"en": "{when} we talked about {product}. On {date} you said: “{text}”",
                       "zh": "{when}我们聊的是{product}。{date}您说过：“{text}”"},
    "recall.when.week": {"en": "Last week", "zh": "上周"},
    "recall.when.range": {"en": "Between {start} and {end}", "zh": "{start}至{end}"},
    "recall.when.earlier": {"en": "Last time", "zh": "上次"},
    "recall.none": {"en": "I couldn't find a product in our earlier conversations.",
                    "zh": "我在之前的对话里没有找到相关产品。"},
    "yield.current": {"en": "Latest yield on record ({date}): “{text}”", "zh": "最近记录的收益（{date}）：“{text}”"},
    "yield.expired": {"en": "The yield you mentioned on {date} is older than {days} days, so it is no longer kept "
                            "as current; please check today's figure.",
                      "zh": "您{date}提到的收益数据已超过{days}天，不再作为当前信息保留，请以最新数据为准。"},
    "answer.quote": {"en": "You told me on {date}: “{text}”", "zh": "您在{date}说过：“{text}”"},
    "answer.none": {"en": "I have no record of that.", "zh": "我没有这方面的记录。"},
    "question.general": {"en": "I can only answer from what you have told me; a product specialist has to answer "
                               "this question.",
                         "zh": "我只能根据您告诉过我的内容回答，这个问题需要产品专员来解答。"},
    "noted.risk": {"en": "Noted your risk preference; it is kept until you change it.",
                   "zh": "已记录您的风险偏好，长期有效，直到您修改。"},
    "noted.yield": {"en": "Noted. Yields change often, so this figure is kept for {days} days.",
                    "zh": "已记录。收益数据变化快，这个数字只保留{days}天。"},
    "empathy": {"en": "I'm sorry this is stressful. Let's sort it out step by step.",
                "zh": "很抱歉让您着急了，我们一步一步来解决。"},
    "ack": {"en": "Got it, thank you.", "zh": "好的，已了解。"},
}


def render(template: str, lang: str, /, **fields: Any) -> str:
    """The template named ``template`` in ``lang`` (``"en"``/``"zh"``) filled with ``fields``. Raises
    InvalidInputError for an unknown template, language or field."""
    try:
        return TEMPLATES[template][lang].format(**fields)
    except KeyError as exc:
        raise InvalidInputError(f"reply template {template!r} in {lang!r}: missing {exc}") from None


def fmt_date(dt: datetime, lang: str, tz: tzinfo | None = None) -> str:
    """A calendar day for a reply: ``3 May`` / ``5月3日``, in ``tz`` (default the datetime's own zone)."""
    local = dt.astimezone(tz) if tz is not None else dt
    return f"{local.month}月{local.day}日" if lang == "zh" else f"{local.day} {local.strftime('%B')}"


def quoted(text: str, limit: int = 160) -> str:
    """``text`` on one line, cut at ``limit`` characters with an ellipsis (for quotes inside replies)."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"
