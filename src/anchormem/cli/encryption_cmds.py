"""``anchormem rekey``: change the SQLCipher key of an encrypted database file (docs/privacy.md). Keys come from
the environment only, never from arguments (those end up in shell history and ``ps``)."""

from __future__ import annotations

import os

from ..errors import ConfigError, InvalidInputError
from .common import _emit_json, _handled, _out, _state, app


@app.command()
@_handled
def rekey() -> None:
    """Re-encrypt the --db file: from $ANCHORMEM_ENCRYPTION_KEY to $ANCHORMEM_NEW_ENCRYPTION_KEY. Stop every
    process using the file first; afterwards set ANCHORMEM_ENCRYPTION_KEY to the new key."""
    from ..config import default_path
    from ..stores.sqlcipher import rekey_file

    old, new = os.environ.get("ANCHORMEM_ENCRYPTION_KEY"), os.environ.get("ANCHORMEM_NEW_ENCRYPTION_KEY")
    if not old or not new:
        raise ConfigError("rekey reads the current key from ANCHORMEM_ENCRYPTION_KEY and the new one from "
                          "ANCHORMEM_NEW_ENCRYPTION_KEY; set both")
    path = _state.db or default_path()
    if path == ":memory:" or path.startswith(("sqlite:", "postgresql:", "postgres:")):
        raise InvalidInputError("rekey needs a database file path (--db PATH)")
    rekey_file(path, old, new)
    if _state.json:
        _emit_json({"rekeyed": path})
    else:
        _out().print(f"re-encrypted {path} with the new key; set ANCHORMEM_ENCRYPTION_KEY to it")
