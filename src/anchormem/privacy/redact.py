"""Redaction of personal data before it is written: detect, then mask or tokenise.

Modes (``Redactor(mode)``; ``Memory(path, pii=...)`` passes its setting here, default ``"off"``):

- ``"off"``: text is returned unchanged; nothing is detected.
- ``"mask"``: each value becomes a typed placeholder, ``[PHONE]``, ``[EMAIL]``, ``[CN_ID]``, ``[PASSPORT]``,
  ``[SSN]``, ``[BANK_CARD]``, ``[IBAN]``, ``[IP_ADDRESS]``, ``[NAME]``, ``[ADDRESS]``. Nothing of the value is
  kept, not even the last four digits of a card or phone: memories are long-lived and indexed (keyword index,
  embeddings, exports), and "card ending 6501" plus a name is already enough to single a person out. A user
  who needs to tell two cards apart can use ``"tokenize"``.
- ``"tokenize"``: each value becomes ``[TYPE:xxxxxxxx]``, 8 hex characters of an HMAC-SHA256 (keyed by the
  user's key) of the value's canonical form (digits only for numbers, E.164 for phones, lower-case e-mail).
  The same value under the same key always gets the same token, so search and "which card was that?" still
  work; the original is stored only encrypted (AES-256-GCM) in a :class:`~anchormem.privacy.vault.TokenVault`,
  and comes back only through :meth:`Redactor.reveal` / :func:`reveal` with the key. When one canonical value
  is written in two spellings ("138-1234-5678", "13812345678"), or two values share the 8-character prefix,
  the later one gets a variant suffix (``[PHONE:3f9a1c2b-7d1e]``) so that revealing gives back each spelling
  byte for byte; the shared prefix keeps them findable together.

Text outside the detected spans is never changed. Overlapping detections resolve to the longest span, then
the most specific type (e-mail > Chinese ID > IBAN > bank card > SSN > passport > phone > IP > address > name).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import Literal

from ..errors import ConfigError, PrivacyError
from .detectors import DETECTORS, PII_TYPES, SPECIFICITY, Candidate, fold_width
from .vault import InMemoryVault, TokenKeys, TokenVault

__all__ = [
    "PII_TYPES",
    "PiiMode",
    "PiiSpan",
    "RedactionResult",
    "Redactor",
    "detect",
    "find_tokens",
    "reveal",
]

PiiMode = Literal["off", "mask", "tokenize"]
_MODES = ("off", "mask", "tokenize")
_TOKEN = re.compile(r"\[(" + "|".join(PII_TYPES) + r"):([0-9a-f]{8}(?:-[0-9a-f]{4,16})?)\]")


@dataclass(frozen=True)
class PiiSpan:
    """One piece of personal data: ``type`` (one of :data:`PII_TYPES`), ``start``/``end`` character offsets
    into the *original* text (``text[start:end]`` is the value), and the ``replacement`` written in its place
    (``"[PHONE]"`` when masking, ``"[PHONE:3f9a1c2b]"`` when tokenising; :func:`detect` fills in the mask)."""

    type: str
    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class RedactionResult:
    """``text``: the redacted text. ``spans``: what was replaced, in order, with offsets into the input."""

    text: str
    spans: list[PiiSpan] = field(default_factory=list)


def _check_types(types: Iterable[str] | None) -> frozenset[str]:
    if types is None:
        return frozenset(PII_TYPES)
    if isinstance(types, str):
        types = {types}
    chosen = frozenset(types)
    unknown = chosen - set(PII_TYPES)
    if unknown:
        raise ConfigError(f"unknown PII type(s) {sorted(unknown)}; known: {', '.join(PII_TYPES)}")
    return chosen


def _candidates(text: str, types: frozenset[str]) -> list[Candidate]:
    if not isinstance(text, str):
        raise ConfigError(f"text must be a str, not {type(text).__name__}")
    folded = fold_width(text)
    found: list[Candidate] = []
    for t in PII_TYPES:
        if t in types:
            found.extend(DETECTORS[t](folded))
    # longest first, then most specific; keep what does not overlap anything already kept
    found.sort(key=lambda c: (-(c.end - c.start), -SPECIFICITY[c.type], c.start))
    kept: list[Candidate] = []
    taken = bytearray(len(text))
    for c in found:
        if c.end > c.start and not any(taken[c.start:c.end]):
            kept.append(c)
            taken[c.start:c.end] = b"\x01" * (c.end - c.start)
    return sorted(kept, key=lambda c: c.start)


def detect(text: str, *, types: Iterable[str] | None = None) -> list[PiiSpan]:
    """Personal data found in ``text``, as non-overlapping spans in text order, each with its mask placeholder.

    ``types`` limits detection to some of :data:`PII_TYPES` (default: all). Raises
    :class:`~anchormem.errors.ConfigError` for an unknown type or when the ``pii`` extra is not installed.
    """
    return [PiiSpan(c.type, c.start, c.end, f"[{c.type}]") for c in _candidates(text, _check_types(types))]


def _splice(text: str, spans: list[PiiSpan]) -> str:
    out, pos = [], 0
    for s in spans:
        out.append(text[pos:s.start])
        out.append(s.replacement)
        pos = s.end
    out.append(text[pos:])
    return "".join(out)


def find_tokens(text: str) -> list[str]:
    """Every ``[TYPE:xxxxxxxx]`` token in ``text``, in order (e.g. to delete their vault rows on purge)."""
    return [m.group() for m in _TOKEN.finditer(text)]


def reveal(text: str, key: bytes | str, vault: TokenVault) -> str:
    """``text`` with each token found in ``vault`` replaced by its original value (decrypted with ``key``).

    Tokens that the vault does not hold (e.g. already forgotten) are left as they are. Raises
    :class:`~anchormem.errors.PrivacyError` when a token cannot be decrypted with this key, and
    :class:`~anchormem.errors.ConfigError` for a missing or short key.
    """
    keys = TokenKeys(key)

    def sub(m: re.Match) -> str:
        blob = vault.get(m.group())
        return m.group() if blob is None else keys.decrypt(m.group(), blob)

    return _TOKEN.sub(sub, text)


class Redactor:
    """Detects personal data and masks or tokenises it (see the module doc for the modes).

    ``mode``: ``"off"``, ``"mask"`` or ``"tokenize"``. ``types``: the :data:`PII_TYPES` to look for (default
    all). ``vault`` and ``key`` are for ``"tokenize"``: ``key`` (bytes, at least 16) is required, ``vault``
    defaults to an :class:`~anchormem.privacy.vault.InMemoryVault` (lost at exit; pass a
    :class:`~anchormem.privacy.vault.SQLiteVault` to keep it). Raises
    :class:`~anchormem.errors.ConfigError` for a bad mode, unknown type, or missing/short key. Thread-safe.
    """

    def __init__(
        self,
        mode: PiiMode = "off",
        *,
        types: Iterable[str] | None = None,
        vault: TokenVault | None = None,
        key: bytes | str | None = None,
    ) -> None:
        if mode not in _MODES:
            raise ConfigError(f"pii mode must be one of {', '.join(_MODES)}; got {mode!r}")
        self.mode: PiiMode = mode
        self.types = _check_types(types)
        self._keys: TokenKeys | None = None
        self.vault: TokenVault | None = None
        if mode == "tokenize":
            if key is None:
                raise ConfigError("pii='tokenize' needs a key (at least 16 bytes, e.g. secrets.token_bytes(32))")
            self._keys = TokenKeys(key)
            self.vault = vault if vault is not None else InMemoryVault()
        self._known: dict[str, str] = {}  # token -> plaintext written or checked in this process
        self._lock = threading.Lock()

    def detect(self, text: str) -> list[PiiSpan]:
        """Spans of personal data in ``text`` (empty in ``"off"`` mode); see :func:`detect`."""
        return [] if self.mode == "off" else detect(text, types=self.types)

    def redact(self, text: str) -> RedactionResult:
        """``text`` with every detected value masked or tokenised (tokenise also writes the vault)."""
        if self.mode == "off":
            return RedactionResult(text, [])
        spans = self.detect(text)
        if self.mode == "tokenize":
            spans = [PiiSpan(s.type, s.start, s.end, self._tokenize(s.type, text[s.start:s.end])) for s in spans]
        return RedactionResult(_splice(text, spans), spans)

    def reveal(self, text: str, key: bytes | str) -> str:
        """The original values back in place of this redactor's tokens; ``key`` must be given explicitly
        (it is checked against the vault entries, not against this redactor). See :func:`reveal`."""
        if self.vault is None:
            raise ConfigError("reveal needs a redactor in 'tokenize' mode (it holds the vault)")
        return reveal(text, key, self.vault)

    def _canonical(self, type_: str, value: str) -> str:
        cands = DETECTORS[type_](fold_width(value))
        whole = [c for c in cands if c.start == 0 and c.end == len(value)]
        return whole[0].norm if whole else " ".join(value.split())

    def _tokenize(self, type_: str, value: str) -> str:
        assert self._keys is not None and self.vault is not None
        canonical = self._canonical(type_, value)
        digest = self._keys.digest(f"{type_}\x00{canonical}")
        variant = self._keys.digest(f"{type_}\x00{canonical}\x00{value}")
        candidates = [f"[{type_}:{digest[:8]}]"] + [f"[{type_}:{digest[:8]}-{variant[:n]}]" for n in (4, 8, 16)]
        with self._lock:
            for token in candidates:
                held = self._known.get(token)
                if held is None:
                    blob = self.vault.get(token)
                    if blob is None:
                        self.vault.put(token, self._keys.encrypt(token, value))
                        self._remember(token, value)
                        return token
                    try:
                        held = self._keys.decrypt(token, blob)
                    except PrivacyError:  # written under another key: treat as taken
                        held = "\x00"
                    self._remember(token, held)
                if held == value:
                    return token
        raise ConfigError("token space exhausted for one value (should not happen)")  # pragma: no cover

    def _remember(self, token: str, value: str) -> None:
        if len(self._known) > 10_000:
            self._known.clear()
        self._known[token] = value
