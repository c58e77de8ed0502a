"""``anchormem mcp``: serve the memory to MCP clients (Claude Desktop, Cursor, ...) over stdio or streamable HTTP."""

from __future__ import annotations

import typer

from .common import _err, _handled, _open, app

TRANSPORTS = ("stdio", "http")


@app.command("mcp")
@_handled
def mcp_serve(
    transport: str = typer.Option("stdio", "--transport", metavar="stdio|http",
                                  help="stdio (the client starts this process) or http (streamable HTTP at /mcp)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on (http only)."),
    port: int = typer.Option(8766, "--port", min=1, max=65535, help="TCP port (http only)."),
    user_id: str | None = typer.Option(None, "--user-id", envvar="ANCHORMEM_MCP_USER_ID", metavar="U",
                                          help="Pin the server to one user: user_id becomes optional and no "
                                               "call can reach another user's memories."),
) -> None:
    """Serve the MCP tools add_memory, search_memories, ask_memory, forget_memories, get_memory and
    memory_history (needs: pip install 'anchormem[mcp]'). Logs go to stderr; stdout is the protocol."""
    from ..errors import InvalidInputError

    if transport not in TRANSPORTS:
        raise InvalidInputError(f"--transport must be stdio or http, not {transport!r}")
    from ..mcp_server import create_mcp_server  # raises ConfigError with the install hint without the SDK

    mem = _open()
    try:
        server = create_mcp_server(mem, default_user_id=user_id)
        where = f"http://{host}:{port}/mcp" if transport == "http" else "stdio"
        pinned = f"  user: {user_id}" if user_id else ""
        _err().print(f"anchormem MCP server on {where}  store: {mem.path}{pinned}", soft_wrap=True,
                     markup=False, highlight=False)
        try:
            if transport == "http":
                server.run("streamable-http", host=host, port=port)
            else:
                server.run("stdio")
        except KeyboardInterrupt:
            pass
    finally:
        mem.close()
