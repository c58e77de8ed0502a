"""``anchormem serve`` and ``anchormem keys ...``: the REST server and its API keys."""

from __future__ import annotations


import os
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table


from .common import app, keys_app, _emit_json, _err, _handled, _out, _state

def _store_target(url: str | None) -> tuple[str | None, str | None]:
    """(path, url) of the store the server and the keys commands use: --url / ANCHORMEM_URL, else --db."""
    from ..config import Settings, default_path

    url = url or Settings().url
    if url:
        return None, url
    return _state.db or Settings().path or default_path(), None


H11_MAX_HEAD_BYTES = 64 * 1024  # request line + headers; long percent-encoded CJK query strings need room


def _key_store(url: str | None, keys_path: str | None):
    from ..server.keys import keys_path_for, open_key_store

    path, url = _store_target(url)
    return open_key_store(keys_path or keys_path_for(path, url))


@app.command()
@_handled
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
    port: int = typer.Option(8765, "--port", help="TCP port."),
    workers: int = typer.Option(1, "--workers", min=1,
                                help="Worker processes (rate limits are shared when Redis is configured, else per "
                                     "worker)."),
    url: Optional[str] = typer.Option(None, "--url", envvar="ANCHORMEM_URL", help="Store URL, e.g. sqlite:///m.db."),
    keys_path: Optional[str] = typer.Option(None, "--keys-path", envvar="ANCHORMEM_KEYS_PATH",
                                            help="API keys: a SQLite file or postgresql:// URL (default: the "
                                                 "PostgreSQL store's database, else <store>.keys.db)."),
    log_level: str = typer.Option("info", "--log-level", help="uvicorn log level."),
) -> None:
    """Serve the REST API (needs: pip install 'anchormem[server]')."""
    from ..errors import ConfigError

    try:
        import uvicorn
    except ImportError:
        raise ConfigError("anchormem serve needs FastAPI and uvicorn: pip install 'anchormem[server]'") from None
    # OpenBLAS on one thread (unless OPENBLAS_NUM_THREADS is set) in this process and, through the environment,
    # in uvicorn's worker processes, which load numpy after it is set (anchormem.blas.server_default)
    from ..blas import server_default

    server_default()
    path, url = _store_target(url)
    # The app factory reads its configuration from the environment (the same in every worker process).
    if url:
        os.environ["ANCHORMEM_URL"] = url
    else:
        os.environ.pop("ANCHORMEM_URL", None)
        os.environ["ANCHORMEM_PATH"] = str(path)
    if keys_path:
        os.environ["ANCHORMEM_KEYS_PATH"] = keys_path
    from ..server.app import create_app_from_env

    create_app_from_env()  # fail fast on bad settings (store, keys file, rate limit) before binding the port
    _err().print(f"anchormem API on http://{host}:{port}  store: {url or path}", soft_wrap=True)
    uvicorn.run("anchormem.server.app:create_app_from_env", factory=True, host=host, port=port,
                workers=workers, log_level=log_level, h11_max_incomplete_event_size=H11_MAX_HEAD_BYTES)


@keys_app.command("create")
@_handled
def keys_create(
    tenant: str = typer.Option(..., "--tenant", help="The tenant the key can read and write."),
    role: str = typer.Option("reader", "--role", help="reader, writer or admin."),
    name: Optional[str] = typer.Option(None, "--name", help="A note to recognise the key by."),
    url: Optional[str] = typer.Option(None, "--url", envvar="ANCHORMEM_URL", help="Store URL."),
    keys_path: Optional[str] = typer.Option(None, "--keys-path", envvar="ANCHORMEM_KEYS_PATH"),
) -> None:
    """Create an API key. The key alone is printed on stdout, once (``KEY=$(anchormem keys create ...)``); what
    was created goes to stderr. The key is stored only as a salted hash."""
    ks = _key_store(url, keys_path)
    try:
        key, secret = ks.create(tenant, role, name=name)
    finally:
        ks.close()
    if _state.json:
        _emit_json({**key.as_dict(), "key": secret})
        return
    _err().print(f"[green]created[/] key {key.id} for tenant {escape(key.tenant)!r}, role {key.role}", soft_wrap=True)
    typer.echo(secret)
    _err().print("[yellow]This key is shown once; store it now.[/]")


@keys_app.command("list")
@_handled
def keys_list(
    tenant: Optional[str] = typer.Option(None, "--tenant", help="Only this tenant's keys."),
    url: Optional[str] = typer.Option(None, "--url", envvar="ANCHORMEM_URL", help="Store URL."),
    keys_path: Optional[str] = typer.Option(None, "--keys-path", envvar="ANCHORMEM_KEYS_PATH"),
) -> None:
    """List API keys (ids, tenants, roles; never the secrets)."""
    ks = _key_store(url, keys_path)
    try:
        keys = ks.list(tenant)
    finally:
        ks.close()
    if _state.json:
        _emit_json([k.as_dict() for k in keys])
        return
    if not keys:
        _out().print("[yellow]no API keys[/]")
        return
    t = Table()
    for c in ("id", "tenant", "role", "name", "created (UTC)", "revoked (UTC)"):
        # the id is never cut (it is what `keys revoke` takes); the other columns wrap instead of vanishing
        t.add_column(c, no_wrap=c == "id", min_width=16 if c == "id" else min(len(c), 7))

    def minute(ts: str | None) -> str:  # "2026-11-29T21:14:59+00:00" -> "2026-11-29 21:14" (stored in UTC)
        return ts[:16].replace("T", " ") if ts else ""
    for k in keys:
        t.add_row(k.id, k.tenant, k.role, k.name or "", minute(k.created_at), minute(k.revoked_at))
    _out().print(t)


@keys_app.command("revoke")
@_handled
def keys_revoke(
    key_id: str = typer.Argument(..., metavar="ID"),
    url: Optional[str] = typer.Option(None, "--url", envvar="ANCHORMEM_URL", help="Store URL."),
    keys_path: Optional[str] = typer.Option(None, "--keys-path", envvar="ANCHORMEM_KEYS_PATH"),
) -> None:
    """Revoke an API key; requests with it get 401 from then on."""
    ks = _key_store(url, keys_path)
    try:
        key = ks.revoke(key_id)
    finally:
        ks.close()
    if _state.json:
        _emit_json(key.as_dict())
    else:
        _out().print(f"[green]revoked[/] {key.id} (tenant {escape(key.tenant)!r}, role {key.role})")
