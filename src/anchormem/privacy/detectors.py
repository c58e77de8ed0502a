"""PII detectors: each finds candidate spans of one kind in a text, mixed Chinese/English.

Structured identifiers are validated, not just pattern-matched:

- ``PHONE``: international and national numbers through ``phonenumbers`` (regions CN, US, GB; a national number
  is accepted only in a shape that region really writes: CN mobiles ``1[3-9]`` + 9 digits, CN landlines with the
  trunk ``0``, US numbers with separators or a phone cue, UK numbers with the trunk ``0``), plus a regex for CN
  mobiles with separators (``138-1234-5678``, ``+86 138 1234 5678``). Toll-free, shared-cost, premium and
  "universal access" numbers (``400-820-8820``) are company hotlines, not personal data, and are skipped.
- ``CN_ID``: 18-digit resident ID (GB 11643-1999): province code, a real birth date, and the ISO 7064 MOD 11-2
  check digit. A number right after an ID cue ("身份证", "ID card") is taken even when the check digit fails
  (a mistyped ID is still an ID); 15-digit first-generation IDs only after such a cue.
- ``BANK_CARD``: 13-19 digits, first digit 2-6 or 9, Luhn-valid (``stdnum.luhn``), not right after an order /
  invoice / tracking cue unless a card cue is nearer.
- ``IBAN`` (``stdnum.iban``: country length and MOD 97), ``SSN`` (``stdnum.us.ssn``: area/group/serial rules;
  bare 9 digits only after an SSN cue), ``EMAIL``, ``IP_ADDRESS`` (IPv4 and IPv6, validated by ``ipaddress``).
- ``PASSPORT``: 6-9 characters after a cue ("passport", "护照", "通行证"), or the Chinese passport shapes
  ``E`` + 8 digits, ``E`` + letter + 7 digits, ``G`` + 8 digits anywhere.
- ``NAME`` (cue-based, "where detectable"): "my name is", "I'm", "call me", "this is", "my wife/brother/…",
  titles (Mr/Dr/…), "Contact:"/"Account holder:"; 我叫, 我的名字是, 姓名：, 收件人, 户名, 乘客, 我老婆/我朋友…,
  followed by a capitalised Latin name or a Chinese name whose first character is a common surname.
- ``ADDRESS``: English "<number> <Capitalised words> Street/Avenue/Road/…" (+ "Apt/Suite/Unit …"); Chinese
  "…路/街/道 + number + 号" with the building/unit/room after it, the left edge at the last function word
  (在/是/到/…) or punctuation, and cue-led spans (住在/地址是/寄到…) that end in an administrative suffix
  (省/市/区/县/街道/镇/村/路/号/室…).

The detectors run on a copy of the text with full-width ASCII (``１３８``, ``＠``) mapped to ASCII one character
for one, so offsets are the same in the original. Every detector returns :class:`Candidate` objects; choosing
among overlapping candidates is the caller's job (:func:`anchormem.privacy.redact.detect`).
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from dataclasses import dataclass
from collections.abc import Callable, Iterator

from ..errors import ConfigError
from .cues import cue_pattern, cue_words

__all__ = ["Candidate", "DETECTORS", "PII_TYPES", "SPECIFICITY", "fold_width"]

#: Every type the detectors can report, most specific first (used to break ties between overlapping spans).
PII_TYPES: tuple[str, ...] = (
    "EMAIL", "CN_ID", "IBAN", "BANK_CARD", "SSN", "PASSPORT", "PHONE", "IP_ADDRESS", "ADDRESS", "NAME",
)
SPECIFICITY = {t: len(PII_TYPES) - i for i, t in enumerate(PII_TYPES)}


@dataclass(frozen=True)
class Candidate:
    """One detected span: ``text[start:end]`` is the value; ``norm`` is its canonical form (digits only,
    E.164 for phones, lower-case e-mail, …) so that two spellings of one value tokenize alike."""

    type: str
    start: int
    end: int
    norm: str


_FULLWIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def fold_width(text: str) -> str:
    """Full-width ASCII forms (U+FF01..U+FF5E) and the ideographic space to ASCII, one char for one."""
    return text.translate(_FULLWIDTH)


def _require(module: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigError(
            f"PII redaction needs the '{module.split('.')[0]}' package: pip install 'anchormem[pii]'"
        ) from exc


_D = r"(?<![0-9A-Za-z])"  # a number starts here (Chinese characters may touch it)
_E = r"(?![0-9A-Za-z])"
_SEP = re.compile(r"[\s\-.()/]")


def _digits(s: str) -> str:
    return _SEP.sub("", s)


def _window(text: str, start: int, size: int = 16) -> str:
    return text[max(0, start - size):start]


# ---------------------------------------------------------------- e-mail, IP

_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}"
                    r"(?![A-Za-z0-9-])")


def _emails(text: str) -> Iterator[Candidate]:
    for m in _EMAIL.finditer(text):
        yield Candidate("EMAIL", m.start(), m.end(), m.group().lower())


_IPV4 = re.compile(r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
                   r"(?![\w]|\.\d)")
_IPV6 = re.compile(r"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![0-9A-Fa-f:])")
_VERSION_CUE = re.compile(r"(?i)(?:\bv|version|版本|ver\.?)\s*$")


def _personal(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Loopback (127.0.0.1, ::1), unspecified (0.0.0.0) and multicast addresses name no one's machine."""
    return not (addr.is_loopback or addr.is_unspecified or addr.is_multicast)


def _ips(text: str) -> Iterator[Candidate]:
    for m in _IPV4.finditer(text):
        if not _VERSION_CUE.search(_window(text, m.start(), 10)) and _personal(ipaddress.IPv4Address(m.group())):
            yield Candidate("IP_ADDRESS", m.start(), m.end(), m.group())
    for m in _IPV6.finditer(text):
        s = m.group()
        if "::" not in s and s.count(":") != 7:
            continue
        try:
            addr = ipaddress.IPv6Address(s)
        except ValueError:
            continue
        if _personal(addr):
            yield Candidate("IP_ADDRESS", m.start(), m.end(), addr.compressed)


# ---------------------------------------------------------------- Chinese resident ID

_CN_PROVINCES = frozenset(
    "11 12 13 14 15 21 22 23 31 32 33 34 35 36 37 41 42 43 44 45 46 50 51 52 53 54 61 62 63 64 65 71 81 82 83".split()
)
_CN_ID = re.compile(_D + r"(\d{6})\s?((?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))\s?(\d{3}[0-9Xx])" + _E)
_CN_ID15 = re.compile(_D + r"\d{15}" + _E)
_ID_CUE = re.compile(r"(?i)(?:身份证|证件号|公民身份号码|id\s*card|identity\s*card|resident\s*id|chinese\s*id)")
_W = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def cn_id_check_digit(first17: str) -> str:
    """GB 11643-1999 (ISO 7064 MOD 11-2) check character of the first 17 digits: '0'..'9' or 'X'."""
    r = (12 - sum(int(c) * w for c, w in zip(first17, _W, strict=True)) % 11) % 11
    return "X" if r == 10 else str(r)


def _valid_date(yyyymmdd: str) -> bool:
    import datetime as dt

    try:
        d = dt.date(int(yyyymmdd[:4]), int(yyyymmdd[4:6]), int(yyyymmdd[6:8]))
    except ValueError:
        return False
    return d <= dt.date.today()


def _cn_ids(text: str) -> Iterator[Candidate]:
    for m in _CN_ID.finditer(text):
        num = (m.group(1) + m.group(2) + m.group(3)).upper()
        cued = bool(_ID_CUE.search(_window(text, m.start(), 12)))
        valid = num[:2] in _CN_PROVINCES and _valid_date(m.group(2)) and cn_id_check_digit(num[:17]) == num[17]
        if valid or cued:
            yield Candidate("CN_ID", m.start(), m.end(), num)
    for m in _CN_ID15.finditer(text):
        if m.group()[:2] in _CN_PROVINCES and _ID_CUE.search(_window(text, m.start(), 12)):
            yield Candidate("CN_ID", m.start(), m.end(), m.group())


# ---------------------------------------------------------------- bank cards, IBAN, SSN

_CARD = re.compile(  # plain, 4-4-4-4(-3), Amex 4-6-5, 6-13
    _D + r"(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]\d{1,4})?|\d{4}[ -]\d{6}[ -]\d{4,5}|\d{6}[ -]\d{10,13})" + _E
)
_CLAUSE_END = re.compile(r"[。！？!?；;\n]")


def _card_context(text: str, start: int, size: int = 32) -> str | None:
    """What the clause before a card-shaped number says it is: ``"card"``, ``"reference"`` (an order, tracking,
    invoice… number: the cue lists of :mod:`.cues`) or None. The nearest cue wins; the window is the ``size``
    characters before the number, cut at the last sentence or clause end."""
    before = _window(text, start, size)
    ends = [m.end() for m in _CLAUSE_END.finditer(before)]
    before = before[ends[-1]:] if ends else before
    ref = [m.end() for m in cue_pattern("card_reference").finditer(before)]
    card = [m.end() for m in cue_pattern("card").finditer(before)]
    if not ref and not card:
        return None
    return "reference" if ref and (not card or max(card) < max(ref)) else "card"


def _cards(text: str) -> Iterator[Candidate]:
    luhn = _require("stdnum.luhn")
    for m in _CARD.finditer(text):
        num = _digits(m.group())
        if not 13 <= len(num) <= 19 or num[0] not in "234569" or len(set(num)) < 2 or not luhn.is_valid(num):
            continue
        if _card_context(text, m.start()) == "reference":
            continue
        yield Candidate("BANK_CARD", m.start(), m.end(), num)


_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])")


def _ibans(text: str) -> Iterator[Candidate]:
    iban = _require("stdnum.iban")
    for m in _IBAN.finditer(text):
        # the greedy match may swallow a following word ("… 00 EUR"); retry shorter prefixes at group edges
        s = m.group()
        while s:
            if iban.is_valid(s):
                yield Candidate("IBAN", m.start(), m.start() + len(s), _digits(s).upper())
                break
            cut = s.rfind(" ")
            s = s[:cut] if cut > 4 else ""


_SSN = re.compile(r"(?<![\d-])\d{3}([- ])\d{2}\1\d{4}(?![\d-])")
_SSN_BARE = re.compile(_D + r"\d{9}" + _E)
_SSN_CUE = re.compile(r"(?i)(?:ssn|social\s+security(?:\s+number)?|社会安全号)")


def _ssns(text: str) -> Iterator[Candidate]:
    ssn = _require("stdnum.us.ssn")
    for m in _SSN.finditer(text):
        num = _digits(m.group())
        if ssn.is_valid(num):
            yield Candidate("SSN", m.start(), m.end(), num)
    for m in _SSN_BARE.finditer(text):
        if ssn.is_valid(m.group()) and _SSN_CUE.search(_window(text, m.start(), 24)):
            yield Candidate("SSN", m.start(), m.end(), m.group())


# ---------------------------------------------------------------- passports

_PASSPORT_CUE = re.compile(
    r"(?i:passport|护照|通行证)[^0-9\n，。；;,]{0,20}?(?<![A-Za-z0-9])((?=[A-Z0-9]*\d)[A-Z]{0,2}\d{6,9}|"
    r"(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{8,9})(?![A-Za-z0-9])"
)
_PASSPORT_CN = re.compile(r"(?<![A-Za-z0-9])(?:E\d{8}|E[A-HJ-NP-Z]\d{7}|G\d{8})(?![A-Za-z0-9])")


def _passports(text: str) -> Iterator[Candidate]:
    for m in _PASSPORT_CUE.finditer(text):
        yield Candidate("PASSPORT", m.start(1), m.end(1), m.group(1))
    for m in _PASSPORT_CN.finditer(text):
        yield Candidate("PASSPORT", m.start(), m.end(), m.group())


# ---------------------------------------------------------------- phones

PHONE_REGIONS: tuple[str, ...] = ("CN", "US", "GB")
_CN_MOBILE = re.compile(_D + r"(?:(?:\+|00)86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}" + _E)
_PHONE_CUE = re.compile(r"(?i)(?:phone|call|tel|cell|mobile|number|text|reach|contact|电话|手机|号码|联系|座机|打给)")
_US_SHAPE = re.compile(r"(?:1[\s.-]?)?(?:\(\d{3}\)|\d{3})[\s.-]?\d{3}[\s.-]?\d{4}")
_DIGITS7 = re.compile(r"\d(?:\D{0,2}\d){6}")


def _phones(text: str) -> Iterator[Candidate]:
    for m in _CN_MOBILE.finditer(text):
        d = _digits(m.group()).lstrip("+")
        d = d[2:] if d.startswith("86") and len(d) == 13 else d[4:] if d.startswith("0086") else d
        yield Candidate("PHONE", m.start(), m.end(), "+86" + d)
    if not _DIGITS7.search(text):
        return
    pn = _require("phonenumbers")
    skip = {pn.PhoneNumberType.TOLL_FREE, pn.PhoneNumberType.SHARED_COST, pn.PhoneNumberType.PREMIUM_RATE,
            pn.PhoneNumberType.UAN}
    seen: set[tuple[int, int]] = set()
    for region in PHONE_REGIONS:
        for m in pn.PhoneNumberMatcher(text, region, leniency=pn.Leniency.VALID):
            if (m.start, m.end) in seen or pn.number_type(m.number) in skip:
                continue
            raw = m.raw_string
            intl = raw.startswith(("+", "00"))
            nat = _digits(raw)
            if not intl:
                if region == "CN" and not (nat.startswith("0") or re.fullmatch(r"1[3-9]\d{9}", nat)):
                    continue
                if region == "US" and not (_US_SHAPE.fullmatch(raw) and (
                        re.search(r"[\s\-.()]", raw) or _PHONE_CUE.search(_window(text, m.start, 24)))):
                    continue
            if m.start and (text[m.start - 1].isascii() and text[m.start - 1].isalnum() or text[m.start - 1] in "-_/"):
                continue  # the tail of a code such as "TJ-2023-118402"
                if region == "GB" and not nat.startswith("0"):
                    continue
            seen.add((m.start, m.end))
            yield Candidate("PHONE", m.start, m.end, pn.format_number(m.number, pn.PhoneNumberFormat.E164))


# ---------------------------------------------------------------- names

_RELATIONS = (
    r"(?:老婆|老公|妻子|丈夫|爱人|太太|先生|儿子|女儿|妈妈|母亲|爸爸|父亲|哥哥|姐姐|弟弟|妹妹|朋友|同事|同学|领导|老板|"
    r"室友|男朋友|女朋友|男友|女友|孩子|爷爷|奶奶|外公|外婆|舅舅|叔叔|阿姨|房东|邻居)"
)
_EN_NAME_WORD = r"(?:[A-Z]['’])?[A-Z][a-z]+(?:[A-Z][a-z]+)?(?:-[A-Z][a-z]+)?"
_EN_NAME = re.compile(rf"{_EN_NAME_WORD}(?: {_EN_NAME_WORD}){{0,2}}")
_HAN = r"\u3400-\u4dbf\u4e00-\u9fff"
_NOT_NAMES = frozenset(
    """I Im Ive Ill The A An And But So Or If Oh Yeah Yes No Not Hey Hi Hello Thanks Thank Please Sorry Fine Good
    Great Okay Ok Here There Back Done Ready Sure Glad Happy Just Also Still Very Really Going Calling Writing
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August
    September October November December Today Tomorrow Yesterday Mom Mum Dad Mommy Daddy Grandma Grandpa Honey
    Baby Sir Madam Team Support Customer Service Admin Everyone Everybody Nobody Someone Google Apple Amazon
    American British English Chinese French German Japanese Korean Indian Canadian Australian Italian Spanish
    Russian Mexican Brazilian Christian Muslim Jewish Buddhist Catholic Vegan Vegetarian Gay Single Married
    My Your His Her Our Their It Its This That These Those What When Where Why How Who Which Me You Us Him Them
    God Lord""".split()
)
_EN_CUES = re.compile(
    r"(?:\b(?i:(?:my|his|her|their)\s+(?:(?:first|last|full|maiden|middle|real)\s+)?name\s+(?:is|was)|my\s+name's|"
    r"name\s+is|named?|i\s+am\s+called|i'm\s+called|"
    r"call\s+me|this\s+is|i'm|i\s+am|it's|signed,?|regards,|"
    r"(?:name|contact|account\s+holder|holder|recipient|cardholder|attn|from|to)\s*:|"
    r"(?:my|our|his|her)\s+(?:wife|husband|partner|son|daughter|mother|mom|mum|father|dad|brother|sister|friend|"
    r"boss|manager|colleague|coworker|co-worker|neighbou?r|landlord|landlady|doctor|grandma|grandmother|grandpa|"
    r"grandfather|uncle|aunt|cousin|girlfriend|boyfriend|fianc[ée]e?|nephew|niece|kid|child|roommate|tenant)"
    r"(?:'s\s+name\s+is|\s+is\s+called|\s+named|,)?|"
    r"(?:call|text|email|message|ask|tell|thank|remind)\s+(?:me\s+to\s+(?:call|text|email)\s+)?)"
    r"|(?:\b(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?))\s*"
)
# strong cues are followed by a name almost surely; after a weak one ("我女儿明年…") jieba must not read the
# first two characters as an ordinary word (明年/t, 马上/d)
_ZH_STRONG_CUES = re.compile(
    r"(?:(?:^|(?<=[，,。.!！\s]))叫|(?<=[他她])叫|我叫|名字(?:是|叫)|名叫|叫做|姓名[是为:：]?|"
    r"(?:联系|收件|收货|寄件|签收|收款|付款|持卡|开户|入住|预订|申请|报名|经办|负责|投保|被保险|受益)人[是为:：]?|"
    r"户名[是为:：]?|乘客[是为:：]?|"
    r"我(?:的)?" + _RELATIONS + r"(?:叫|名叫|的名字是))\s*"
)
_ZH_WEAK_CUES = re.compile(
    r"(?:我是(?:客户|用户|会员|车主|业主|房东|租客)?|我(?:的)?" + _RELATIONS + r"是?|"
    r"(?:客户|顾客|用户|患者|病人)[:：]?)\s*"
)
# a name before "是我(的)同学" / "is my brother"
_ZH_NAME_BEFORE = re.compile(r"(?:^|(?<=[，,。.!！？?\s]))([\u3400-\u9fff]{2,4})(?=是我的?" + _RELATIONS + ")")
_EN_NAME_BEFORE = re.compile(
    r"(?:^|(?<=[,.;!?]\s))((?:[A-Z]['’])?[A-Z][a-z]+(?: [A-Z][a-z]+)?)(?= is my (?:wife|husband|partner|son|"
    r"daughter|mother|mom|mum|father|dad|brother|sister|friend|boss|manager|colleague|coworker|neighbou?r|landlord|"
    r"landlady|doctor|"
    r"uncle|aunt|cousin|girlfriend|boyfriend|roommate)\b)"
)
# common surnames (the ~300 most frequent single-character ones) and the compound ones
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪"
    "范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜"
    "倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲"
    "房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商"
    "刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝官封谈匡鞠惠荆乐冀郁胥南班储原栗燕楚鄢劳谌奚皮粟冼蔺楼盘满闻位厉伊仝区郜"
    "海阚花权强帅屠豆朴盖练廉禹井祖漆巴丰支卿国狄平计索宣晋相初门云容敬来扈晁芮都普阙浦戈伏鹿薄邸雍辜羊阿乌母裘亓修邰赫杭"
    "况那宿鲜印逯隆茹诸战慕危玉银亢嵇公哈湛宾戎勾茅利於呼居揭干但尉冶斯元束檀衣信展阴昝智幸奉植衡富尧闭由"
)
_COMPOUND_SURNAMES = frozenset(
    "欧阳 司马 上官 诸葛 东方 皇甫 尉迟 公孙 慕容 长孙 宇文 司徒 夏侯 轩辕 令狐 端木 南宫 西门 百里 呼延 独孤".split()
)
_NAME_STOP_CHARS = frozenset("的是在今住和跟说打给要想也都就来去呢吗了啊吧呀嘛从到对把被让请已刚还又才会能将正")
_ZH_RUN = re.compile(rf"[{_HAN}]{{1,8}}")


_PLACE_SUFFIX = re.compile(r"花园|小区|公司|集团|大学|学院|学校|中学|小学|医院|酒店|宾馆|银行|大厦|"
                           r"广场|公园|超市|商场|餐厅|饭店|路|街|省|市|区|县|镇|村")
_WORD_FLAGS = frozenset("t d v a b n m p c r f q vn ad an i l u ul uj uz ud ug uv y z zg tg dg vg ag".split())


def _first_word(text: str) -> tuple[str, str] | None:
    """jieba's first (word, POS flag) of a Chinese run, e.g. ("明年", "t"), ("马丽", "nr")."""
    from ..text.tokenize import _get_jieba

    _get_jieba()
    from jieba import posseg

    first = next(iter(posseg.cut(text)), None)
    return None if first is None else (first.word, first.flag)


def _zh_name_at(text: str, pos: int, weak: bool = False) -> tuple[int, int] | None:
    """A Chinese name starting at ``pos``: a common surname and one or two given characters. The length is
    plain when punctuation or a function character (的, 是, 在, …) follows; otherwise jieba decides
    ("马丽一起" -> 马丽). After a weak cue, a run that jieba reads as an ordinary word (明年, 马上) is no name."""
    m = _ZH_RUN.match(text, pos)
    if not m:
        return None
    run = m.group()
    s = 2 if run[:2] in _COMPOUND_SURNAMES else 1 if run[0] in _SURNAMES else 0
    if not s or len(run) <= s or run[s] in _NAME_STOP_CHARS:
        return None
    n = 1 if len(run) == s + 1 or run[s + 1] in _NAME_STOP_CHARS else 2
    word = _first_word(run) if (weak or len(run) > s + n) else None
    if word and word[1].startswith("nr") and len(word[0]) in (s + 1, s + 2):
        n = len(word[0]) - s
    elif weak and word and len(word[0]) >= 2 and word[1] in _WORD_FLAGS:
        return None
    end = pos + s + n
    if any(_PLACE_SUFFIX.match(text, p) for p in range(pos + 1, end + 1)):
        return None
    return pos, end


_TITLE = re.compile(r"(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+")
_LOWER_NAME = re.compile(r"[a-z]{2,}(?:-[a-z]{2,})?(?: [a-z]{2,}(?:-[a-z]{2,})?){0,2}(?![A-Za-z0-9@'’.-])")


def _lower_name_at(text: str, pos: int) -> tuple[int, int] | None:
    """A lower-case name (1-3 words) right after a labelled cue ("name: john smith", "my name is anna"); it ends
    before the first word of the ``name_stop`` list."""
    m = _LOWER_NAME.match(text, pos)
    if not m:
        return None
    stop = set(cue_words("name_stop"))
    words = []
    for w in m.group().split(" "):
        if w in stop or w.capitalize() in _NOT_NAMES:
            break
        words.append(w)
    return (pos, pos + len(" ".join(words))) if words else None


@lru_cache(maxsize=1)
def _labelled_cues() -> re.Pattern[str]:
    """A form field ("Name:", "姓名：", "Passenger name -") or a self-introduction ("my name is", "我叫") from the
    cue files; the name follows."""
    fields = cue_pattern("name_fields").pattern
    intro = cue_pattern("name_intro").pattern
    return re.compile(rf"(?:(?:{fields})\s*(?:[:：]|是|为)|(?:{intro})(?![A-Za-z]))[ \t]*")


def _en_name_at(text: str, pos: int, lower_ok: bool = False) -> tuple[int, int] | None:
    title = _TITLE.match(text, pos)
    pos = title.end() if title else pos
    m = _EN_NAME.match(text, pos)
    if not m:
        return _lower_name_at(text, pos) if lower_ok and not title else None
    words = m.group().split(" ")
    while words and words[-1] in _NOT_NAMES:
        words.pop()
    if not words or words[0] in _NOT_NAMES or any(w in _NOT_NAMES for w in words):
        return None
    return pos, pos + len(" ".join(words))


def _names(text: str) -> Iterator[Candidate]:
    for m in _labelled_cues().finditer(text):
        pos = m.end()
        span = _zh_name_at(text, pos) or _en_name_at(text, pos, lower_ok=True)
        if span:
            yield Candidate("NAME", span[0], span[1], " ".join(text[span[0]:span[1]].split()))
    for cues, weak in ((_EN_CUES, False), (_ZH_STRONG_CUES, False), (_ZH_WEAK_CUES, True)):
        for m in cues.finditer(text):
            pos = m.end()
            span = _zh_name_at(text, pos, weak) or _en_name_at(text, pos)
            if span:
                yield Candidate("NAME", span[0], span[1], " ".join(text[span[0]:span[1]].split()))
    for m in _ZH_NAME_BEFORE.finditer(text):
        span = _zh_name_at(text, m.start(1))
        if span and span[1] == m.end(1):
            yield Candidate("NAME", span[0], span[1], m.group(1))
    for m in _EN_NAME_BEFORE.finditer(text):
        span = _en_name_at(text, m.start(1))
        if span:
            yield Candidate("NAME", span[0], span[1], text[span[0]:span[1]])


# ---------------------------------------------------------------- addresses

_EN_STREET = re.compile(
    r"(?<![\w.,/])(?:\d{1,5}[A-Za-z]?/)?\d{1,6}[A-Za-z]?(?:-\d{1,4})?\s+(?:(?:[A-Z][a-z]+|\d+(?:st|nd|rd|th))\s+){1,3}"
    r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Place|Pl|Terrace|Way|Parkway|Pkwy|"
    r"Square|Sq|Loop|Highway|Hwy|Circle|Cir|Crescent|Close|Row|Alley|Trail|Mews|Gardens|Walk)\b"
    r"(?:\s+(?:NW|NE|SW|SE|N|S|E|W)\b)?"
    r"(?:,?\s+(?:Apt|Apartment|Suite|Ste|Unit|Flat|Room|Floor|#)\.?\s*#?[A-Za-z0-9-]+)?"
)
_ZH_STREET = re.compile(
    rf"(?:路|街|道|巷|弄|胡同|里)\s?\d+(?:-\d+)?\s?号"
    rf"(?:\d+(?:号楼|号院|栋|幢|座|单元|层|楼|室|号)|[A-Z]座|[{_HAN}]{{2,8}}?(?:大厦|小区|花园|公寓|苑|广场|中心|大楼|园区|家园|城|府|庭|阁|湾))*"
    r"(?:(?<=[元栋幢座楼])\d{2,5})?"
)
# the left edge of a Chinese address: punctuation, space, Latin, a long number, a cue, or a function word
_ZH_LEFT_STOP = re.compile(rf"[^{_HAN}0-9]|\d{{7,}}|地址|住址|[的是在到住了去往于从叫给把请为和]")
_NOT_PLACE = re.compile(r"[个这那哪另某每]|什么")  # "搬到哪个城市", "住在这个小区": not an address
_ZH_FUNC = re.compile(r"[的是在到住了去往于从叫给把请为和]")
_ZH_ADDR_CUE = re.compile(r"(?:住在|家住|住址[是为:：]?|地址[是为:：]?|我家在|寄到|送到|搬到|现居)\s*")
_ZH_ADDR_TAIL = re.compile(
    r"(?:省|自治区|市|区|县|旗|街道|镇|乡|村|路|街|大道|巷|弄|号|室|楼|栋|单元|小区|花园|大厦|公寓)"
)
_ZH_ADDR_RUN = re.compile(rf"[{_HAN}0-9A-Za-z\-]{{2,40}}")


def _addresses(text: str) -> Iterator[Candidate]:
    for m in _EN_STREET.finditer(text):
        yield Candidate("ADDRESS", m.start(), m.end(), " ".join(m.group().lower().split()))
    for m in _ZH_STREET.finditer(text):
        left = text[max(0, m.start() - 40):m.start()]
        stops = list(_ZH_LEFT_STOP.finditer(left))
        start = m.start() - len(left) + (stops[-1].end() if stops else 0)
        if m.start() - start >= 1:
            yield Candidate("ADDRESS", start, m.end(), re.sub(r"\s", "", text[start:m.end()]))
    for m in _ZH_ADDR_CUE.finditer(text):
        run = _ZH_ADDR_RUN.match(text, m.end())
        if not run:
            continue
        tails = list(_ZH_ADDR_TAIL.finditer(run.group()))
        if not tails:
            continue
        # "地址写的是天津市…": the address starts after the last function word before its first suffix
        lead = [x.end() for x in _ZH_FUNC.finditer(run.group(), 0, tails[0].start())]
        start = run.start() + (lead[-1] if lead else 0)
        end = run.start() + tails[-1].end()
        head = text[start:run.start() + tails[0].start()]
        if end - start >= 3 and len(head) >= 2 and not _NOT_PLACE.search(head):
            yield Candidate("ADDRESS", start, end, text[start:end])


DETECTORS: dict[str, Callable[[str], Iterator[Candidate]]] = {
    "EMAIL": _emails,
    "CN_ID": _cn_ids,
    "IBAN": _ibans,
    "BANK_CARD": _cards,
    "SSN": _ssns,
    "PASSPORT": _passports,
    "PHONE": _phones,
    "IP_ADDRESS": _ips,
    "ADDRESS": _addresses,
    "NAME": _names,
}
