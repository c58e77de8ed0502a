"""Files and folders anchormem creates are private to their owner: 0600 for files, 0700 for folders, whatever the
process umask (a umask only removes bits, and every mode here is also set with ``chmod`` after creation).

Used for the SQLite database (its ``-wal`` and ``-shm`` files: SQLite gives them the database file's mode), the
saved vector index files and their folder, the API keys file and the files the CLI writes (exports). Files and
folders that already exist keep their mode: anchormem tightens only what it creates (an administrator's choice to
share a file stays theirs), except for files it rewrites whole (:func:`write_private`).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["FILE_MODE", "DIR_MODE", "cache_dir", "private_dir", "private_file", "write_private", "check_folder"]

FILE_MODE = 0o600
DIR_MODE = 0o700


def cache_dir() -> Path | None:
    """The folder of anchormem's rebuildable cache files (label prototypes, fact trigger literals): the
    ``ANCHORMEM_CACHE_DIR`` setting, else the user cache dir (``platformdirs``); None when the setting is empty (no
    cache) or no folder can be named. Not created here (:func:`write_private` creates it 0700). Never raises."""
    env = os.environ.get("ANCHORMEM_CACHE_DIR")
    if env == "":
        return None
    if env:
        return Path(env)
    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("anchormem", appauthor=False))
    except Exception:  # noqa: BLE001 - no cache is fine
        return None


def private_dir(path: str | os.PathLike[str]) -> Path:
    """Create the folder ``path`` and its missing parents, each 0700 (existing ones are left as they are).
    Returns the path. Raises OSError."""
    p = Path(path).expanduser()
    missing = []
    q = p
    while not q.exists():
        missing.append(q)
        if q.parent == q:
            break
        q = q.parent
    for d in reversed(missing):
        try:
            d.mkdir(mode=DIR_MODE)
        except FileExistsError:  # created meanwhile by another process: its mode is that process's business
            continue
        os.chmod(d, DIR_MODE)
    return p


def check_folder(path: str | os.PathLike[str]) -> None:
    """Raise ConfigError when the folder of the database file ``path`` does not exist, unless ``path`` is the
    default database in the user data dir (:func:`anchormem.config.platform_path`, whose folders are created): a
    mistyped ``Memory("/no/such/dir/x.db")``, ``--db`` or ``ANCHORMEM_PATH`` never creates folders silently."""
    from . import config
    from .errors import ConfigError

    p = Path(path).expanduser()
    if p.parent.is_dir() or p == Path(config.platform_path()).expanduser():
        return
    raise ConfigError(f"the folder of the database {str(path)!r} does not exist ({str(p.parent)!r}): create it "
                      "first (anchormem creates a folder only for the default database)")


def private_file(path: str | os.PathLike[str]) -> bool:
    """Create the empty file ``path`` 0600 (its folder 0700, :func:`private_dir`) unless it exists. Returns True
    when this call created it. Raises OSError."""
    p = Path(path).expanduser()
    private_dir(p.parent)
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return False
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
    return True


def write_private(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` (str as UTF-8) to ``path`` as a 0600 file: written to a 0600 temporary file in the same
    folder, flushed, then renamed over ``path`` (readers see the old or the new file, never a partial one); a
    device or pipe is written in place. Raises OSError."""
    p = Path(path).expanduser()
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if p.exists() and not p.is_file():  # a device or pipe (``-o /dev/stdout``): written in place
        with open(p, "wb") as fh:
            fh.write(raw)
        return
    private_dir(p.parent)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, p)
