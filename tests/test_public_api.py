"""The public surface is exactly the documented list, and every name imports."""

import asyncio
import importlib

import anchormem

DOCUMENTED = [
    "Memory", "AsyncMemory", "Settings", "SearchConfig", "AnswerConfig", "Message", "MemoryItem", "MemoryEvent", "Hit",
    "Answer", "Citation", "HistoryEntry", "Label", "Entity", "Scope", "AnchormemError", "ConfigError",
    "EmbedderMismatchError", "NotFoundError", "InvalidInputError", "ArgumentError", "FilterError", "ScopeError", "ProviderError",
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


def test_a_call_that_does_not_fit_the_signature_is_an_argument_error():
    """A misspelt keyword, a missing argument or one positional too many is an AnchormemError (and still the
    TypeError Python would raise), naming the method and the parameter meant; nothing is stored."""
    import pytest

    from anchormem import AnchormemError, ArgumentError, AsyncMemory, ConfigError, InvalidInputError, Memory
    from anchormem.testing import DeterministicEmbedder

    assert issubclass(ArgumentError, InvalidInputError) and issubclass(ArgumentError, TypeError)
    assert ArgumentError.code == "invalid_argument"
    with Memory(":memory:", embedder=DeterministicEmbedder()) as m:
        with pytest.raises(ArgumentError, match=r"^Memory\.add\(\): got an unexpected keyword argument 'sesion_id'; "
                                               r"did you mean 'session_id'\?$"):
            m.add("I live in Oslo.", user_id="u", sesion_id="s")
        with pytest.raises(ArgumentError, match=r"Memory\.search\(\): got an unexpected keyword argument 'k'; "
                                               r"parameters: query, user_id, "):
            m.search("Oslo", user_id="u", k=3)
        with pytest.raises(ArgumentError, match=r"Memory\.add\(\): missing 1 required keyword-only argument: "
                                               r"'user_id'"):
            m.add("I live in Oslo.")
        with pytest.raises(AnchormemError, match=r"Memory\.context\(\): missing 1 required positional argument: "
                                                r"'query'"):
            m.context(user_id="u", session_id="s")  # (session_id is optional: a user-level block without it)
        assert "Recent conversation" in m.context("hello", user_id="u").text  # the message first, as in search
        with pytest.raises(TypeError):  # code written against Python's own error keeps working
            m.get_all()
        assert m.get_all(user_id="u") == []
    with pytest.raises(ConfigError, match=r"^unknown option\(s\) 'embeder'; did you mean 'embedder'\? settings "):
        Memory(":memory:", embeder="hash")  # Memory's keywords are settings overrides
    with pytest.raises(ConfigError, match=r"^unknown option\(s\) 'max_worker'; settings fields are "):
        AsyncMemory(":memory:", embedder=DeterministicEmbedder(), max_worker=2)  # passed on to Memory(...)

    async def misspelt() -> None:
        async with AsyncMemory(":memory:", embedder=DeterministicEmbedder()) as am:
            await am.search("x", user_id="u", k=1)

    with pytest.raises(ArgumentError, match=r"Memory\.search\(\): got an unexpected keyword argument 'k'"):
        asyncio.run(misspelt())
