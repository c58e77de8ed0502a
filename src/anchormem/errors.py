"""The whole anchormem exception tree.

::

    AnchormemError                      root: catch this to catch everything anchormem raises
    ├── ConfigError                     bad settings, missing optional dependency, wrong embedder for a store
    │   └── EmbedderMismatchError       the store was built with another embedding model / dimension
    ├── NotFoundError                   a memory id (or other record) does not exist in this scope
    ├── ConflictError                   the record is not in a state that allows this (a resolved review item)
    │   └── StaleWriteError             (internal) a planned write whose user changed meanwhile: add re-plans
    ├── InvalidInputError               bad caller input: empty/oversized text, bad UTF-8, bad timestamp
    │   ├── ArgumentError               a call that does not fit the method's signature (also a TypeError)
    │   ├── FilterError                 unknown filter key or operator, wrong value type
    │   └── ScopeError                  missing or unsafe scope (e.g. an unscoped delete_all)
    ├── PrivacyError                    tokenised PII cannot be revealed (wrong key, altered vault entry)
    └── ProviderError                   a backend failed
        ├── EmbeddingError              the embedding model failed or returned a wrong shape
        ├── LLMError                    the LLM endpoint failed or returned unusable output
        │   └── LLMParseError           no usable JSON in the LLM's reply (after repair and salvage)
        └── StoreError                  the database failed (wrapped sqlite3 / psycopg errors)

Backend exceptions are translated at the adapter boundary (``raise StoreError(...) from exc``),
so callers never need to import sqlite3 or numpy exceptions.
"""

from __future__ import annotations

__all__ = [
    "AnchormemError",
    "ConfigError",
    "EmbedderMismatchError",
    "NotFoundError",
    "ConflictError",
    "InvalidInputError",
    "ArgumentError",
    "FilterError",
    "ScopeError",
    "ProviderError",
    "EmbeddingError",
    "LLMError",
    "LLMParseError",
    "StoreError",
    "PrivacyError",
]


class AnchormemError(Exception):
    """Root of every exception anchormem raises on purpose."""

    code = "anchormem_error"


class ConfigError(AnchormemError):
    """Invalid configuration or a missing optional dependency."""

    code = "config_error"


class EmbedderMismatchError(ConfigError):
    """The store was created with a different embedder (name or dimension)."""

    code = "embedder_mismatch"


class NotFoundError(AnchormemError):
    """The requested record does not exist (or is outside the caller's scope)."""

    code = "not_found"


class ConflictError(AnchormemError):
    """The record exists but its state forbids the operation (e.g. approving an already rejected review item)."""

    code = "conflict"


class StaleWriteError(ConflictError):
    """A store ``write`` given ``expect_generation`` found a user's generation moved since the write was planned
    (another writer of that user committed in between): nothing was written. ``Memory.add`` catches it and plans
    again against the store as it is now; it does not reach ``add``'s caller (so it is not in the public ``__all__``:
    only a direct caller of ``Store.write`` sees it)."""

    code = "stale_write"


class InvalidInputError(AnchormemError, ValueError):
    """The caller passed input that cannot be stored or searched."""

    code = "invalid_input"


class ArgumentError(InvalidInputError, TypeError):
    """A public method was called with arguments that do not fit its signature: a misspelt or unknown keyword, a
    missing required argument, too many positional ones (what Python reports as a bare TypeError)."""

    code = "invalid_argument"


class FilterError(InvalidInputError):
    """A filter names an unknown key or operator, or has a value of the wrong type."""

    code = "invalid_filter"


class ScopeError(InvalidInputError):
    """A call is missing its scope (user_id) or would act on everything."""

    code = "invalid_scope"


class PrivacyError(AnchormemError):
    """Tokenised personal data cannot be revealed: wrong key, or a vault entry that was altered."""

    code = "privacy_error"


class ProviderError(AnchormemError):
    """A backend (embedding model, LLM endpoint, database) failed."""

    code = "provider_error"


class EmbeddingError(ProviderError):
    """The embedding model failed or returned vectors of the wrong shape."""

    code = "embedding_error"


class LLMError(ProviderError):
    """The LLM endpoint failed or its output could not be used."""

    code = "llm_error"


class LLMParseError(LLMError):
    """The LLM replied, but no usable JSON could be found in the reply, even after repair and salvage."""

    code = "llm_parse_error"


class StoreError(ProviderError):
    """The storage engine failed."""

    code = "store_error"
