"""Offline intent and emotion signals for the reference agents, English and Chinese (regular-expression lexicons).

Seed design: the word lists were written by hand to be readable and easy to extend, not fitted to data; they
decide the mediator's stage transitions and the support assistant's reply type, so keep them conservative (a
missed signal only means a plainer reply). Every function takes one sentence or turn and returns a plain value:

- :func:`emotion`: ``"anger"``, ``"distress"`` or None; :func:`is_emotion_statement`: the sentence is mainly a
  feeling (short, or "I am / I feel …", "我很…"), so it is stored with a short time to live;
- :func:`sentence_category` (mediator): ``agreement``, ``red_line``, ``proposal``, ``demand``, ``emotion``,
  ``question``, ``position``; :func:`shares` / :func:`is_acceptance` / :func:`is_rejection` / :func:`is_proposal`;
- :func:`answer_status`: a reply to "done?" read as ``"done"``, ``"not_done"`` or None (unclear);
- support: :func:`support_category` (``product_yield``, ``risk_preference``, ``emotion``, ``other``),
  :func:`sensitive_change` (the attribute a change request names: ``bank_card``, ``phone``), :func:`refers_back`.
"""

from __future__ import annotations

import re

from ..text.tokenize import has_cjk

__all__ = ["language", "emotion", "is_emotion_statement", "is_red_line", "is_demand", "is_proposal",
           "is_acceptance", "is_rejection", "shares", "is_question", "is_social", "sentence_category", "answer_status",
           "support_category", "sensitive_change", "refers_back", "asks_about_self", "strip_meta", "CATEGORIES"]

CATEGORIES = ("agreement", "red_line", "proposal", "demand", "emotion", "question", "social", "position")


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


_ANGER = _re(r"\b(?:furious|angry|mad at|livid|outraged|fed up|sick of|sick and tired|ridiculous|unacceptable|"
             r"disgusting|can't stand|cannot stand|pissed|infuriat\w*|enraged|hostile)\b|"
             r"生气|气死|愤怒|火大|受够了|忍无可忍|太过分|恼火|气愤|窝火")
_DISTRESS = _re(r"\b(?:upset|stressed|anxious|worried|exhausted|can't sleep|hurt|sad|frustrated|overwhelmed|"
                r"scared|afraid|miserable|desperate|annoyed)\b|"
                r"难过|伤心|焦虑|担心|害怕|压力很?大|崩溃|委屈|失眠|心累|烦死|很烦|着急|郁闷|不安")
_FEELING_LEAD = _re(r"^(?:and\s+|but\s+|honestly,?\s+)?(?:I(?:'m| am| feel| was| get)|I'm just|we(?:'re| are))\b|"
                    r"^我(?:真的|实在|非常|很|太|好|有点|特别|快要?)?(?:生气|愤怒|难过|伤心|焦虑|担心|害怕|崩溃|"
                    r"委屈|心累|烦|着急|郁闷|不安|受够)")
_RED_LINE = _re(r"\b(?:red line|bottom line|non-negotiable|deal-?breaker|under no circumstances|never accept|"
                r"will never|won't ever|not negotiable|absolutely not)\b|"
                r"底线|绝不|决不|绝对不|没得商量|红线|不可能接受")
_DEMAND = _re(r"\b(?:I want|I need|I demand|I expect|I'd like|I would like|I insist|I ask that|he must|she must|"
              r"they must|has to|have to)\b|我要求|我希望|我想要|我需要|必须|要求|得给我")
_PROPOSAL = _re(r"\b(?:I(?:'m| am) (?:willing|open|happy|ready|prepared) to|we could|how about|what if|maybe we|"
                r"meet (?:in the middle|halfway)|compromise|I (?:can|could) offer|I propose|I suggest|let's)\b|"
                r"愿意|可以考虑|各让一步|折中|不如|要不|我提议|我建议|妥协|退一步")
_ACCEPT = _re(r"\b(?:I agree|I accept|agreed|(?:it's a )?deal|sounds good|that works|fine by me|(?:ok|okay) with that|"
              r"I can live with|we agreed|we have agreed|we've agreed|yes,? I accept)\b|"
              r"我同意|同意了|双方同意|我接受|可以接受|能接受|就这么定|成交|说好了|我们约定|我们商定")
_REJECT = _re(r"\b(?:I (?:don't|do not|can't|cannot|won't) (?:agree|accept)|no way|too (?:tall|short|much|high|"
              r"low|expensive|late|little)|not enough|I reject|I refuse)\b|不同意|不接受|不行|太高|太低|太多|不够|拒绝|"
              r"不能接受")
_SHARE = _re(r"\b(?:you can tell|you may tell|feel free to tell|please tell|tell (?:her|him|them)|you can share|"
             r"share (?:this|that|it) with|pass (?:this|that|it) on|let (?:her|him|them) know)\b|"
             r"可以告诉|可以转告|请转告|转告|告诉对方|告诉他|告诉她|让他知道|让她知道|可以跟[他她]说")
_QUESTION = _re(r"[?？]\s*$|吗[。！]?\s*$|^(?:what|when|where|who|which|why|how|can you|could you|do you|is it|"
                r"are you)\b")
_DONE = _re(r"\b(?:yes|yep|yeah|done|I did|did both|did it|sent|finished|completed|delivered|paid|trimmed|"
            r"fixed|handed|already)\b|已经|完成|做好了|发了|寄了|弄好了|办好了|修好了|剪好了|交了|做到了|是的|搞定")
_NOT_DONE = _re(r"\b(?:not yet|haven't|have not|hasn't|didn't|did not|couldn't|could not|wasn't able|"
                r"weren't able|forgot|failed|still need|no)\b|还没|没有|没能|忘了|没来得及|做不到|未能")
_SOCIAL = _re(r"^(?:hi|hello|hey|good (?:morning|afternoon|evening)|thanks|thank you|bye|goodbye|你好|您好|嗨|"
              r"谢谢|感谢|再见|拜拜)\b")
_NO_FILLER = _re(r"\bno (?:problem|worries|doubt)\b|没问题")


def language(text: str) -> str:
    """``"zh"`` when the text has Chinese characters, else ``"en"``."""
    return "zh" if has_cjk(text) else "en"


def emotion(sentence: str) -> str | None:
    """``"anger"``, ``"distress"`` or None."""
    if _ANGER.search(sentence):
        return "anger"
    if _DISTRESS.search(sentence):
        return "distress"
    return None


def is_emotion_statement(sentence: str) -> bool:
    """A sentence that is mainly a feeling: an emotion word and short (≤ 60 characters) or led by "I am / I feel",
    "我很…". Such sentences get a short time to live; an emotion inside a longer statement does not."""
    s = sentence.strip()
    return emotion(s) is not None and (len(s) <= 60 or bool(_FEELING_LEAD.search(s)))


def is_red_line(sentence: str) -> bool:
    return bool(_RED_LINE.search(sentence))


def is_demand(sentence: str) -> bool:
    return bool(_DEMAND.search(sentence))


def is_proposal(sentence: str) -> bool:
    """An offer or willingness to move ("I'm willing to…", "how about…", "愿意", "各让一步")."""
    return bool(_PROPOSAL.search(sentence))


def is_acceptance(sentence: str) -> bool:
    """Agreeing to something ("I agree", "we agreed", "我同意", "说好了"), not negated."""
    return bool(_ACCEPT.search(sentence)) and not _REJECT.search(sentence)


def is_rejection(sentence: str) -> bool:
    return bool(_REJECT.search(sentence))


def shares(sentence: str) -> bool:
    """The speaker allows passing this on to the other party ("you can tell Alice…", "可以转告她…")."""
    return bool(_SHARE.search(sentence))


def is_question(sentence: str) -> bool:
    return bool(_QUESTION.search(sentence.strip()))


def is_social(sentence: str) -> bool:
    """A short greeting or thanks with nothing to restate ("Hello again.", "Hi, Bob here.", "谢谢你的帮助。")."""
    s = sentence.strip()
    return bool(_SOCIAL.search(s)) and len(s) <= (12 if has_cjk(s) else 40)


def sentence_category(sentence: str) -> str:
    """The mediator's category of one sentence (first that applies): ``agreement``, ``red_line``, ``proposal``,
    ``demand``, ``emotion`` (mainly a feeling), ``question``, ``social`` (a short greeting or thanks), else
    ``position``."""
    if is_acceptance(sentence):
        return "agreement"
    if is_red_line(sentence):
        return "red_line"
    if is_proposal(sentence):
        return "proposal"
    if is_demand(sentence):
        return "demand"
    if is_emotion_statement(sentence):
        return "emotion"
    if is_question(sentence):
        return "question"
    if is_social(sentence):
        return "social"
    return "position"


def answer_status(text: str) -> str | None:
    """How a reply to "done?" reads: ``"not_done"`` (a negation: "not yet", "还没"), ``"done"`` ("yes", "sent",
    "已经"), or None. A negation wins ("No, I haven't sent them" is not done); "no problem" is not a negation."""
    cleaned = _NO_FILLER.sub(" ", text)
    if _NOT_DONE.search(cleaned):
        return "not_done"
    if _DONE.search(cleaned):
        return "done"
    return None


# ----------------------------------------------------------------------------------------- support assistant
_YIELD = _re(r"\b(?:yield(?:s|ed|ing)?|returns?|returned|annuali[sz]ed|APY|APR|interest rate)\b|收益|年化|利率|回报")
_NUMBER = re.compile(r"\d")
_RISK = _re(r"\b(?:risk (?:preference|appetite|tolerance|profile|level)|conservative|low[- ]risk|high[- ]risk|"
            r"aggressive investor|balanced investor|risk-averse)\b|风险偏好|风险承受|风险等级|保守型?|稳健型|激进型?|"
            r"低风险|高风险")
_CHANGE = r"(?:change|changed|update|updated|replace|replaced|switch|switched|new)"
_ATTRS = {"bank_card": r"(?:bank card|card number|debit card|credit card|bank account|account number|IBAN)",
          "phone": r"(?:phone number|phone|mobile number|mobile|cell number)"}
_ZH_ATTRS = {"bank_card": r"(?:银行卡号?|卡号|银行账户|账号)", "phone": r"(?:手机号码?|电话号码?|手机|联系电话)"}
_ZH_CHANGE = r"(?:换|改|更新|更换|变更|换成|改成|新的?)"
_BACK = _re(r"\b(?:we (?:talked|spoke|chatted) about|we discussed|we were discussing|did we (?:discuss|talk about)|"
            r"you (?:mentioned|recommended|told me about)|I (?:mentioned|asked about)|last time|the other day)\b|"
            r"上次|之前|我们聊|我们说过|我们谈|你推荐|你提到|提到过|聊过|说过的")
_SELF = _re(r"\b(?:my|mine|I|me)\b|我")


def support_category(sentence: str) -> str:
    """``product_yield`` (a yield, return or rate with a number), ``risk_preference``, ``emotion`` (mainly a
    feeling), else ``other``."""
    if _YIELD.search(sentence) and _NUMBER.search(sentence) and not is_question(sentence):
        return "product_yield"
    if _RISK.search(sentence) and not is_question(sentence):
        return "risk_preference"
    if is_emotion_statement(sentence):
        return "emotion"
    return "other"


_NEW_VALUE = re.compile(r"(?<!\d)(?:\d[ -]?){6,22}\d(?!\d)")


def sensitive_change(text: str) -> str | None:
    """The sensitive attribute a change request names (``"bank_card"`` or ``"phone"``), or None. It needs a
    change word near the attribute ("change my bank card to…", "my new phone number is…", "手机号换成了…") and
    the new value (a run of 7+ digits), so a question about a pending change is not a change."""
    if not _NEW_VALUE.search(text):
        return None
    for attr, pat in _ATTRS.items():
        if re.search(rf"\b{_CHANGE}\b.{{0,30}}\b{pat}\b|\b{pat}\b.{{0,30}}\b(?:is now|now is|{_CHANGE})\b", text,
                     re.I):
            return attr
    for attr, pat in _ZH_ATTRS.items():
        if re.search(rf"{_ZH_CHANGE}.{{0,8}}{pat}|{pat}.{{0,8}}{_ZH_CHANGE}", text):
            return attr
    return None


def refers_back(text: str) -> bool:
    """The turn points at something said in an earlier conversation ("the product we talked about last week",
    "上周我们聊的那个产品")."""
    return bool(_BACK.search(text))


def asks_about_self(text: str) -> bool:
    """A question about the speaker's own situation ("What is my risk preference?", "我的风险偏好是什么？")."""
    return is_question(text) and bool(_SELF.search(text))


_META_EN = _re(r"\b(?:did I (?:mention|say|tell you)(?: about)?|(?:that )?I (?:told|mentioned to|gave) you|"
               r"do you (?:remember|recall)|can you remind me|remind me|do you have (?:on file )?for me)\b")
_META_ZH = re.compile(r"你还?记得|我(?:之前|上次)?(?:说过|提到过|告诉过你|跟你说过)的?|提醒我一下|"
                      r"你们?(?:那里|那边|这里|这边)(?:现在)?(?:记录?|存|登记)的(?:我的)?")


def strip_meta(question: str) -> str:
    """``question`` without phrases about the conversation itself ("did I mention", "I told you", "remind me",
    "我说过的", "你还记得"), which no memory states; the evidence test of :meth:`anchormem.Memory.ask` wants
    every key word of the question covered. Returns the question unchanged when nothing would be left."""
    out = _META_ZH.sub("", _META_EN.sub(" ", question))
    out = re.sub(r"\s+", " ", out).strip()
    return out if len(re.sub(r"\W", "", out)) >= 3 else question
