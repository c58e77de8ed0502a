"""Every file anchormem creates is 0600 and every folder 0700, under a permissive umask (0o022): the SQLite
database and its -wal/-shm files, the saved vector index files and their folder, the API keys file, CLI exports,
and the folders created on the way to them (anchormem.private_files)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from anchormem import Memory
from anchormem.config import Settings
from anchormem.private_files import private_dir, private_file, write_private
from anchormem.testing import DeterministicEmbedder


@pytest.fixture(autouse=True)
def permissive_umask():
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def modes_under(root: Path) -> tuple[dict[str, int], dict[str, int]]:
    """``relative path -> mode`` of every file, and of every folder, under ``root`` (``root`` itself as ``"."``)."""
    files, folders = {}, {".": mode(root)}
    for p in sorted(root.rglob("*")):
        (folders if p.is_dir() else files)[str(p.relative_to(root))] = mode(p)
    return files, folders


def test_a_new_store_its_wal_shm_and_index_files_are_private(tmp_path, monkeypatch):
    root = tmp_path / "a" / "b"  # two folders anchormem creates (for the default database only)
    monkeypatch.setattr("anchormem.config.platform_path", lambda: str(root / "m.db"))
    with Memory(str(root / "m.db"), embedder=DeterministicEmbedder(64), llm=None,
                settings=Settings(ann_threshold=3)) as mem:
        for i in range(6):
            mem.add(f"Note number {i}: the plumber comes on Tuesday.", user_id="u")
        assert mem.search("plumber", user_id="u", recipe="dense")  # past ann_threshold: the HNSW file is saved
        files, folders = modes_under(tmp_path / "a")  # while open: the -wal and -shm files exist
    assert {"b/m.db", "b/m.db-wal", "b/m.db-shm"} <= set(files), files
    assert any(k.endswith(".usearch") for k in files) and any(k.endswith(".json") for k in files), files
    assert set(folders) == {".", "b", "b/m.db.vec"}
    assert set(files.values()) == {0o600}, files
    assert set(folders.values()) == {0o700}, folders


def test_the_label_prototype_cache_is_private(tmp_path, monkeypatch):
    from anchormem.context.labeller import OfflineLabeller

    monkeypatch.setenv("ANCHORMEM_CACHE_DIR", str(tmp_path / "cache" / "anchormem"))
    embedder = DeterministicEmbedder(64)
    embedder.name = "model-x"  # a hash-embedder's prototypes are not cached; a model's are
    OfflineLabeller(embedder, cache=True).prototypes()  # embeds the prototypes and saves them
    files, folders = modes_under(tmp_path / "cache")
    assert files and set(files.values()) == {0o600}, files
    assert set(folders.values()) == {0o700}, folders


def test_an_existing_folder_keeps_its_mode(tmp_path):
    os.chmod(tmp_path, 0o755)
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64), llm=None) as mem:
        mem.add("I like tea.", user_id="u")
    assert mode(tmp_path) == 0o755  # not ours to change
    assert mode(tmp_path / "m.db") == 0o600


def test_the_api_keys_file_is_private(tmp_path):
    from anchormem.server.keys import KeyStore

    ks = KeyStore(tmp_path / "k" / "keys.db")
    ks.create("default", "admin")
    ks.close()
    assert mode(tmp_path / "k") == 0o700
    assert {p.name: mode(p) for p in (tmp_path / "k").iterdir()} == {"keys.db": 0o600}


def test_a_cli_export_file_is_private(tmp_path, monkeypatch):
    from anchormem.cli import app

    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    db, out = str(tmp_path / "cli.db"), tmp_path / "exports" / "alice.json"
    runner = CliRunner()
    assert runner.invoke(app, ["--db", db, "add", "I moved to Lisbon.", "--user", "alice"]).exit_code == 0
    res = runner.invoke(app, ["--db", db, "export", "--user", "alice", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert [m["text"] for m in json.loads(out.read_text(encoding="utf-8"))["memories"]] == ["I moved to Lisbon."]
    assert (mode(out), mode(out.parent)) == (0o600, 0o700)
    assert [p.name for p in out.parent.iterdir()] == ["alice.json"]  # no temporary file left behind


def test_helpers(tmp_path):
    assert private_file(tmp_path / "x" / "f") is True and private_file(tmp_path / "x" / "f") is False
    assert (mode(tmp_path / "x"), mode(tmp_path / "x" / "f")) == (0o700, 0o600)
    target = tmp_path / "y" / "z" / "w.txt"
    target.parent.parent.mkdir()
    os.chmod(target.parent.parent, 0o755)
    write_private(target, "héllo")
    assert target.read_text(encoding="utf-8") == "héllo"
    assert (mode(target.parent.parent), mode(target.parent), mode(target)) == (0o755, 0o700, 0o600)
    shared = tmp_path / "shared.txt"
    shared.write_text("old")
    os.chmod(shared, 0o644)
    write_private(shared, b"new")  # rewritten whole: private now
    assert (shared.read_bytes(), mode(shared)) == (b"new", 0o600)
    assert private_dir(tmp_path / "p" / "q") == tmp_path / "p" / "q"
    assert (mode(tmp_path / "p"), mode(tmp_path / "p" / "q")) == (0o700, 0o700)
