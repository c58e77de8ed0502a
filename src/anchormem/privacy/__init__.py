"""Personal-data (PII) redaction at write time: detect, mask or tokenise, and reveal with a key.

::

    from anchormem.privacy import Redactor, SQLiteVault
    r = Redactor("tokenize", key=secrets.token_bytes(32), vault=SQLiteVault(conn))
    res = r.redact("我的手机是138-1234-5678, email me at a.b@x.com")
    res.text        # '我的手机是[PHONE:…], email me at [EMAIL:…]'
    r.reveal(res.text, key)   # the original, byte for byte

Detection needs the ``pii`` extra (``pip install 'anchormem[pii]'``: phonenumberslite, python-stdnum,
cryptography). See :mod:`anchormem.privacy.redact` for the modes and :mod:`anchormem.privacy.detectors` for
what is detected and how.
"""

from .detectors import PII_TYPES
from .redact import PiiMode, PiiSpan, RedactionResult, Redactor, detect, find_tokens, reveal
from .vault import InMemoryVault, SQLiteVault, TokenVault

__all__ = [
    "PII_TYPES",
    "PiiMode",
    "PiiSpan",
    "RedactionResult",
    "Redactor",
    "detect",
    "find_tokens",
    "reveal",
    "TokenVault",
    "InMemoryVault",
    "SQLiteVault",
]
