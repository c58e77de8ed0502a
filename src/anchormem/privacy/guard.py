"""PII redaction wired into :class:`~anchormem.memory.Memory`: the write path, queries, reveal and forgetting.

``Memory(path, pii="mask" | "tokenize", pii_key=...)`` builds one :class:`PiiGuard`. On ``add`` (and
``update``) every user and assistant turn is redacted right after it is validated, before anything is drafted
from it, so the raw values never reach the stored messages, memory text, ``source_text``, entities, the keyword
index, the embeddings, history or the review queue. In ``"tokenize"`` mode the encrypted originals go to the
store's vault table (``vault_put``) under ``(tenant, user_id, token)``, before the memories are written; a token
is looked up across the tenant (``vault_get``), so one value under one key has one token for every user of the
tenant, while each user holds their own vault row (forgetting one user never breaks another's reveal).

Queries are redacted the same way, read-only (nothing is written to the vault for a query): a typed phone number
becomes its token and finds the memories holding that token. See ``docs/privacy.md``.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterable
from typing import Any

from ..errors import ConfigError, InvalidInputError
from ..types import Entity, Message
from .redact import _TOKEN, PiiMode, Redactor, find_tokens, reveal
from .vault import InMemoryVault

__all__ = ["PiiGuard", "PiiBatch", "strip_token_entities"]

_MODES = ("off", "mask", "tokenize")


def strip_token_entities(text: str, entities: list[Entity]) -> list[Entity]:
    """``entities`` without those read out of a token's hex digits (``[PHONE:3f9a1c2b]`` → number ``3``):
    an entity is dropped when every occurrence of its value in ``text`` lies inside a token."""
    spans = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    if not spans:
        return entities
    kept = []
    for e in entities:
        starts = [m.start() for m in re.finditer(re.escape(e.value), text)] if e.value else []
        inside = all(any(a <= s and s + len(e.value) <= b for a, b in spans) for s in starts)
        if not starts or not inside:
            kept.append(e)
    return kept


class _StoreVault:
    """A :class:`~anchormem.privacy.vault.TokenVault` over a store's vault table for one call.

    Reads go to the whole tenant (``store.vault_get``); writes are buffered (``new``) and written for one user by
    :meth:`PiiBatch.before_write`. ``writable=False`` (queries) drops writes, so a search never creates vault rows."""

    def __init__(self, store: Any, tenant: str, *, writable: bool) -> None:
        self._store, self._tenant, self._writable = store, tenant, writable
        self.found: dict[str, bytes | None] = {}
        self.new: dict[str, bytes] = {}

    def get(self, token: str) -> bytes | None:
        if token in self.new:
            return self.new[token]
        if token not in self.found:
            self.found[token] = self._store.vault_get(self._tenant, [token]).get(token)
        return self.found[token]

    def put(self, token: str, ciphertext: bytes) -> None:
        if self._writable:
            self.new[token] = bytes(ciphertext)

    def delete(self, tokens: Iterable[str]) -> int:
        return sum(self.new.pop(t, None) is not None for t in set(tokens))

    def rows(self, tokens: Iterable[str]) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        for t in tokens:
            blob = self.new.get(t) or self.found.get(t)
            if blob is not None:
                out[t] = blob
        return out


class PiiBatch:
    """What one redacting write produced: the vault rows to save for ``(tenant, user_id)`` before the write."""

    def __init__(self, store: Any = None, tenant: str = "", user_id: str = "",
                 vault: _StoreVault | None = None) -> None:
        self._store, self._tenant, self._user_id, self._vault = store, tenant, user_id, vault

    def before_write(self, texts: Iterable[str], drafts: Iterable[Any] = ()) -> int:
        """Call right before the write. Drops from ``drafts`` (``Draft`` objects) the entities read out of token
        hex digits, then writes the vault rows of every token in ``texts`` (the turns or text about to be stored)
        for this user: new tokens, and tokens first written by another user of the tenant. Returns rows written
        (0 unless tokenising)."""
        if self._vault is None:
            return 0
        for d in drafts:
            d.item.entities = strip_token_entities(d.item.text, d.item.entities)
        tokens = {t for text in texts for t in find_tokens(text)}
        rows = self._vault.rows(sorted(tokens))
        return self._store.vault_put(self._tenant, self._user_id, rows) if rows else 0


class PiiGuard:
    """Redaction for one :class:`~anchormem.memory.Memory`: ``mode`` ``"off"`` | ``"mask"`` | ``"tokenize"``;
    ``key`` (bytes, or str taken as UTF-8; at least 16 bytes) is required for ``"tokenize"`` and is the default
    key of :meth:`reveal`. Raises ConfigError for a bad mode, a missing/short key, or a missing ``pii`` extra."""

    def __init__(self, mode: PiiMode | str | None, key: bytes | str | None, store: Any) -> None:
        mode = "off" if mode is None else mode
        if mode not in _MODES:
            raise ConfigError(f"pii must be one of {', '.join(_MODES)}; got {mode!r}")
        if mode != "off":
            missing = [m for m in ("phonenumbers", "stdnum") if importlib.util.find_spec(m) is None]
            if missing:
                raise ConfigError(f"pii={mode!r} needs {', '.join(missing)}: pip install 'anchormem[pii]'")
        if mode == "tokenize" and key is None:
            raise ConfigError("pii='tokenize' needs a key: Memory(..., pii_key=...) or ANCHORMEM_PII_KEY "
                              "(at least 16 bytes of secret, e.g. python -c 'import secrets; "
                              "print(secrets.token_hex(32))')")
        self.mode: PiiMode = mode  # type: ignore[assignment]
        self.key = key
        self._store = store
        self._mask = Redactor("mask") if mode == "mask" else None
        if mode == "tokenize":
            Redactor("tokenize", key=key)  # checks the key (length, cryptography installed) now, not on first add

    def _redactor(self, tenant: str, *, writable: bool) -> tuple[Redactor, _StoreVault | None]:
        if self._mask is not None:
            return self._mask, None
        vault = _StoreVault(self._store, tenant, writable=writable)
        return Redactor("tokenize", key=self.key, vault=vault), vault

    def redact_messages(self, msgs: list[Message], tenant: str, user_id: str) -> tuple[list[Message], PiiBatch]:
        """Copies of ``msgs`` with each user/assistant turn's content redacted (system turns are never stored
        and are left as they are), and the batch whose ``before_write`` must run before the write."""
        if self.mode == "off":
            return msgs, PiiBatch()
        red, vault = self._redactor(tenant, writable=True)
        out = [m if m.role == "system" else m.model_copy(update={"content": red.redact(m.content).text})
               for m in msgs]
        return out, PiiBatch(self._store, tenant, user_id, vault)

    def redact_text(self, text: str, tenant: str, user_id: str) -> tuple[str, PiiBatch]:
        """One text redacted for a write (``update``), with its batch."""
        if self.mode == "off":
            return text, PiiBatch()
        red, vault = self._redactor(tenant, writable=True)
        return red.redact(text).text, PiiBatch(self._store, tenant, user_id, vault)

    def redact_query(self, text: str, tenant: str, *, bare: bool = False) -> str:
        """A query redacted like stored text, without writing the vault: in ``"tokenize"`` a value gets the token
        it has in memory; in ``"mask"`` it becomes the type placeholder (``[PHONE]``). ``bare=True`` (for search)
        keeps only a token's id (``3f9a1c2b``): the type word of a token (``PHONE``) is a keyword of every
        memory holding any phone number, so leaving it in would rank other numbers' memories as matches."""
        if self.mode == "off":
            return text
        red = self._redactor(tenant, writable=False)[0].redact(text).text
        return _TOKEN.sub(lambda m: m.group(2), red) if bare else red

    def reveal(self, text: str, tenant: str, key: bytes | str | None = None) -> str:
        """``text`` with each token of the tenant's vault replaced by its original (decrypted with ``key``,
        default the configured key). Unknown or forgotten tokens stay. Raises PrivacyError (wrong key or
        altered entry), ConfigError (no key, short key), InvalidInputError (text not a str)."""
        if not isinstance(text, str):
            raise InvalidInputError(f"text must be a str, not {type(text).__name__}")
        key = self.key if key is None else key
        if key is None:
            raise ConfigError("reveal needs a key: pass key=... or configure pii_key / ANCHORMEM_PII_KEY")
        tokens = sorted(set(find_tokens(text)))
        vault = InMemoryVault()
        for token, blob in (self._store.vault_get(tenant, tokens) if tokens else {}).items():
            vault.put(token, blob)
        return reveal(text, key, vault)
