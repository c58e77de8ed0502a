"""anchormem: long-term memory for LLM agents that does not mix up contexts, does not make things up, and
works offline.

The public surface is exactly ``__all__``; everything else is private and may change.
"""

from .aio import AsyncMemory
from .answer import AnswerConfig
from .config import Settings
from .errors import (
    AnchormemError,
    ArgumentError,
    ConfigError,
    ConflictError,
    EmbedderMismatchError,
    EmbeddingError,
    FilterError,
    InvalidInputError,
    LLMError,
    LLMParseError,
    NotFoundError,
    PrivacyError,
    ProviderError,
    ScopeError,
    StoreError,
)
from .memory import Memory
from .retrieval.config import SearchConfig
from .types import Answer, Citation, Entity, HistoryEntry, Hit, Label, MemoryEvent, MemoryItem, Message, Scope

try:  # the one source of the version is pyproject.toml, read from the installed distribution's metadata
    from importlib.metadata import PackageNotFoundError as _PackageNotFoundError
    from importlib.metadata import version as _dist_version

    __version__: str = _dist_version("anchormem")
except _PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "Memory",
    "AsyncMemory",
    "Settings",
    "SearchConfig",
    "AnswerConfig",
    "Message",
    "MemoryItem",
    "MemoryEvent",
    "Hit",
    "Answer",
    "Citation",
    "HistoryEntry",
    "Label",
    "Entity",
    "Scope",
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
