"""The public surface is exactly the documented list, and every name imports."""

import importlib

import anchormem

DOCUMENTED = [
    "Memory", "AsyncMemory", "Settings", "SearchConfig", "AnswerConfig", "Message", "MemoryItem", "MemoryEvent", "Hit",
    "Answer", "HistoryEntry", "Label", "Entity", "Scope", "AnchormemError", "ConfigError",
    "EmbedderMismatchError", "NotFoundError", "InvalidInputError", "FilterError", "ScopeError", "ProviderError",
    "EmbeddingError", "LLMError", "StoreError", "ConflictError", "PrivacyError", "LLMParseError",
]


def test_all_is_exactly_the_documented_list():
    assert sorted(anchormem.__all__) == sorted(DOCUMENTED)
    assert len(anchormem.__all__) == len(set(anchormem.__all__))


def test_every_public_name_imports():
    mod = importlib.import_module("anchormem")
    for name in DOCUMENTED:
        assert getattr(mod, name) is not None, name
    ns: dict = {}
    exec("from anchormem import *", ns)
    assert set(DOCUMENTED) <= set(ns)


def test_error_tree():
    from anchormem import (AnchormemError, ConfigError, EmbedderMismatchError, EmbeddingError, FilterError,
                           InvalidInputError, LLMError, NotFoundError, ProviderError, ScopeError, StoreError)
    assert issubclass(EmbedderMismatchError, ConfigError)
    assert issubclass(FilterError, InvalidInputError) and issubclass(ScopeError, InvalidInputError)
    assert issubclass(InvalidInputError, ValueError)
    for exc in (EmbeddingError, LLMError, StoreError):
        assert issubclass(exc, ProviderError)
    for exc in (ConfigError, NotFoundError, InvalidInputError, ProviderError):
        assert issubclass(exc, AnchormemError)
    assert FilterError.code == "invalid_filter" and ScopeError.code == "invalid_scope"


def test_every_error_class_in_errors_module_is_exported():
    import anchormem.errors as errors_mod
    from anchormem import ConflictError, LLMError, LLMParseError, PrivacyError

    assert set(errors_mod.__all__) <= set(anchormem.__all__)
    assert issubclass(LLMParseError, LLMError) and LLMParseError.code == "llm_parse_error"
    assert ConflictError.code == "conflict" and PrivacyError.code == "privacy_error"
    assert ConflictError is errors_mod.ConflictError and PrivacyError is errors_mod.PrivacyError


def test_testing_helpers():
    from datetime import datetime, timezone

    from anchormem.embedders.hashing import HashEmbedder
    from anchormem.testing import DeterministicEmbedder, frozen_clock
    from anchormem.timeutil import utcnow

    e = DeterministicEmbedder(dim=64)
    assert isinstance(e, HashEmbedder) and e.name == "hash-64" and e.dim == 64
    assert (e.embed_query("oolong tea") == DeterministicEmbedder(dim=64).embed_query("oolong tea")).all()
    with frozen_clock("2025-07-25T10:00:00+08:00") as clock:
        assert utcnow() == datetime(2025, 7, 25, 2, 0, tzinfo=timezone.utc)
        assert clock.advance(hours=1) == datetime(2025, 7, 25, 3, 0, tzinfo=timezone.utc)
        assert utcnow() == datetime(2025, 7, 25, 3, 0, tzinfo=timezone.utc)
    assert utcnow().year >= 2025 and utcnow() != datetime(2025, 7, 25, 3, 0, tzinfo=timezone.utc)
