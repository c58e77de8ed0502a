"""Encryption at rest (SQLCipher, anchormem.stores.sqlcipher): nothing stored is readable in the files, wrong or
missing keys are clear errors that change nothing, the key never leaks, the store's features (FTS5 in English and
Chinese, dense search, purge, import, concurrency) work encrypted, key rotation. The whole store suite also runs
encrypted with ``ANCHORMEM_TEST_ENCRYPT=1 pytest tests/test_store.py tests/contract -k 'not postgres'``."""

from __future__ import annotations

import hashlib
import logging
import sys
import traceback
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("sqlcipher3", reason="needs the encryption extra: pip install 'anchormem[encryption]'")

from anchormem import ConfigError, Memory, Settings  # noqa: E402
from anchormem.cli import app  # noqa: E402
from anchormem.stores.sqlcipher import EncryptionKey, rekey_file  # noqa: E402
from anchormem.testing import DeterministicEmbedder, run_concurrently  # noqa: E402

KEY = "5f" * 32  # a raw 256-bit key (64 hex characters)
PASSPHRASE = "correct horse battery staple MARKER-7Q"
SECRET_EN = "My locker code is 4411 and my bank is Zanzibar Mutual."
SECRET_ZH = "我的银行卡密码提示是紫色长颈鹿。"


def files_bytes(path: Path) -> bytes:
    """Every file the store left next to the database (db, -wal, -shm, index dirs)."""
    out = b""
    for p in sorted(path.parent.rglob("*")):
        if p.is_file():
            out += p.read_bytes()
    return out


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fill(mem: Memory) -> list[str]:
    """Three turns (facts drawn from them are memories too: ``N_FILLED`` in all); the turns' ids."""
    ids = [next(e.memory.id for e in mem.add(t, user_id="u", **kw) if e.memory.text == t)
           for t, kw in ((SECRET_EN, {}), (SECRET_ZH, {}),
                         ("I moved to Lisbon last month.", {"metadata": {"channel": "app"}}))]
    return ids


def n_filled() -> int:
    with Memory(":memory:", embedder=DeterministicEmbedder(64)) as mem:
        fill(mem)
        return len(mem.get_all(user_id="u"))


def test_no_plaintext_reaches_the_files(tmp_path):
    enc, plain = tmp_path / "enc" / "m.db", tmp_path / "plain" / "m.db"
    for path, key in ((enc, KEY), (plain, None)):
        path.parent.mkdir()  # anchormem creates no folder but the default database's
        with Memory(str(path), embedder=DeterministicEmbedder(64), encryption_key=key,
                    settings=Settings(ann_threshold=2)) as mem:
            fill(mem)
            assert mem.search("Zanzibar", user_id="u", recipe="dense")  # past ann_threshold: the HNSW path
    raw_plain, raw_enc = files_bytes(plain), files_bytes(enc)
    # the check can see plaintext: the unencrypted store holds it
    assert SECRET_EN.encode() in raw_plain and "紫色长颈鹿".encode() in raw_plain
    for needle in ("Zanzibar", "4411", "紫色长颈鹿", "Lisbon", "channel", "memories_fts", "SQLite format 3"):
        assert needle.encode() not in raw_enc, needle
    assert not (enc.parent / "m.db.vec").exists()  # no plaintext vector index next to an encrypted store
    assert (plain.parent / "m.db.vec").exists()


def test_an_encrypted_store_works_like_a_plain_one(tmp_path):
    path = str(tmp_path / "m.db")
    with Memory(path, embedder=DeterministicEmbedder(64), encryption_key=KEY) as mem:
        ids = fill(mem)
    with Memory(path, embedder=DeterministicEmbedder(64), encryption_key=KEY) as mem:
        kw = mem.search("Zanzibar Mutual", user_id="u", recipe="bm25")  # FTS5, English
        assert kw and all("Zanzibar Mutual" in h.memory.text for h in kw)
        zh = mem.search("长颈鹿", user_id="u", recipe="bm25")  # FTS5, Chinese (jieba-segmented)
        assert zh and all("长颈鹿" in h.memory.text for h in zh)
        assert "locker code" in mem.search("locker code", user_id="u")[0].memory.text
        assert "I moved to Lisbon last month." in [m.text for m in mem.get_all(user_id="u",
                                                                             filters={"channel": "app"})]
        mem.update(ids[0], "My locker code is 5522.")
        assert [h.event for h in mem.history(ids[0])] == ["ADD", "UPDATE"]
        counts = mem.delete(ids[1], purge=True)
        assert counts["memories"] == 1 and counts["fts"] == 1
        export = mem.export(user_id="u")
        kept = sorted(m.text for m in mem.get_all(user_id="u"))
    with Memory(str(tmp_path / "copy.db"), embedder=DeterministicEmbedder(64), encryption_key=PASSPHRASE) as other:
        assert other.import_memories(export)["memories"] == len(export["memories"])
        assert sorted(m.text for m in other.get_all(user_id="u")) == kept
        assert "My locker code is 5522." in kept and SECRET_ZH not in kept


def test_concurrent_writers_on_one_encrypted_file(tmp_path):
    path = str(tmp_path / "m.db")
    mems = [Memory(path, embedder=DeterministicEmbedder(64), encryption_key=KEY) for _ in range(4)]
    try:
        out = run_concurrently([lambda m=m: m.add("I drink coffee every morning.", user_id="A") for m in mems])
        assert sorted(e[0].event for e in out) == ["ADD", "NOOP", "NOOP", "NOOP"]
        run_concurrently([lambda m=m, i=i: m.add(f"Note number {i} about tea.", user_id="B")
                          for i, m in enumerate(mems)])
        assert len(mems[0].get_all(user_id="B")) == 4
    finally:
        for m in mems:
            m.close()


def test_missing_or_wrong_keys_are_clear_errors_that_change_nothing(tmp_path):
    path = tmp_path / "m.db"
    with Memory(str(path), embedder=DeterministicEmbedder(64), encryption_key=KEY) as mem:
        fill(mem)
    before = digest(path)
    with pytest.raises(ConfigError, match="ANCHORMEM_ENCRYPTION_KEY"):
        Memory(str(path), embedder=DeterministicEmbedder(64))
    with pytest.raises(ConfigError, match="wrong encryption key"):
        Memory(str(path), embedder=DeterministicEmbedder(64), encryption_key="6a" * 32)
    with pytest.raises(ConfigError, match="wrong encryption key"):
        Memory(str(path), embedder=DeterministicEmbedder(64), encryption_key=PASSPHRASE)
    assert digest(path) == before
    with Memory(str(path), embedder=DeterministicEmbedder(64), encryption_key=KEY) as mem:
        assert len(mem.get_all(user_id="u")) == n_filled()


def test_a_plaintext_file_opened_with_a_key_is_refused(tmp_path):
    path = tmp_path / "m.db"
    with Memory(str(path), embedder=DeterministicEmbedder(64)) as mem:
        fill(mem)
    before = digest(path)
    with pytest.raises(ConfigError, match="plaintext"):
        Memory(str(path), embedder=DeterministicEmbedder(64), encryption_key=KEY)
    assert digest(path) == before
    with Memory(str(path), embedder=DeterministicEmbedder(64)) as mem:
        assert len(mem.get_all(user_id="u")) == n_filled()


def test_keys_for_stores_that_cannot_be_encrypted(tmp_path):
    with pytest.raises(ConfigError, match="database file"):
        Memory(":memory:", embedder="hash", encryption_key=KEY)
    with pytest.raises(ConfigError, match="SQLite store"):
        Memory(url="postgresql://nobody@127.0.0.1:1/x", embedder="hash", encryption_key=KEY)
    with pytest.raises(ConfigError, match="empty"):
        EncryptionKey("")
    with pytest.raises(ConfigError, match="32 bytes"):
        EncryptionKey(b"short")


def test_the_environment_variable_sets_the_key(tmp_path, monkeypatch):
    path = str(tmp_path / "m.db")
    monkeypatch.setenv("ANCHORMEM_ENCRYPTION_KEY", KEY)
    with Memory(path, embedder=DeterministicEmbedder(64)) as mem:
        fill(mem)
        assert "ANCHORMEM" not in repr(mem.settings.encryption_key) and KEY not in repr(mem.settings)
    assert b"Zanzibar" not in Path(path).read_bytes()
    monkeypatch.delenv("ANCHORMEM_ENCRYPTION_KEY")
    with pytest.raises(ConfigError):
        Memory(path, embedder=DeterministicEmbedder(64))


def test_the_key_never_appears_in_reprs_errors_or_logs(tmp_path, caplog, capfd):
    path = str(tmp_path / "m.db")
    secret_hex = "c0ffee" + "12" * 29
    with caplog.at_level(logging.DEBUG):
        with Memory(path, embedder=DeterministicEmbedder(64), encryption_key=PASSPHRASE) as mem:
            fill(mem)
            shown = [repr(mem.store), repr(mem.store.__dict__), repr(mem.__dict__), str(EncryptionKey(PASSPHRASE)),
                     repr(EncryptionKey(secret_hex))]
            mem.search("locker", user_id="u")
        errors = []
        for wrong in (secret_hex, "MARKER-7Q wrong passphrase"):
            try:
                Memory(path, embedder=DeterministicEmbedder(64), encryption_key=wrong)
            except ConfigError as exc:
                errors.append("".join(traceback.format_exception(exc)))
    assert len(errors) == 2
    with pytest.raises(TypeError):
        __import__("pickle").dumps(EncryptionKey(PASSPHRASE))
    out, err = capfd.readouterr()
    text = "\n".join(shown + errors + [r.getMessage() for r in caplog.records] + [out, err])
    for secret in ("MARKER-7Q", "c0ffee", "5f5f5f5f"):
        assert secret not in text, secret
    assert "EncryptionKey(***)" in shown[3]


def test_a_missing_binding_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "sqlcipher3", None)
    monkeypatch.setitem(sys.modules, "sqlcipher3.dbapi2", None)
    with pytest.raises(ConfigError, match=r"pip install 'anchormem\[encryption\]'"):
        Memory(str(tmp_path / "m.db"), embedder="hash", encryption_key=KEY)
    assert not (tmp_path / "m.db").exists()


def test_rekey_rotates_the_key(tmp_path):
    path = tmp_path / "m.db"
    with Memory(str(path), embedder=DeterministicEmbedder(64), encryption_key=KEY) as mem:
        fill(mem)
    rekey_file(str(path), KEY, PASSPHRASE)
    with pytest.raises(ConfigError, match="wrong encryption key"):
        Memory(str(path), embedder=DeterministicEmbedder(64), encryption_key=KEY)
    with Memory(str(path), embedder=DeterministicEmbedder(64), encryption_key=PASSPHRASE) as mem:
        assert len(mem.get_all(user_id="u")) == n_filled()
    with pytest.raises(ConfigError, match="wrong encryption key"):
        rekey_file(str(path), KEY, "9" * 64)
    assert b"Zanzibar" not in files_bytes(path)


def test_the_rekey_command_reads_keys_from_the_environment_only(tmp_path):
    path = tmp_path / "m.db"
    with Memory(str(path), embedder="hash", encryption_key=KEY) as mem:
        mem.add("I moved to Lisbon.", user_id="u")
    runner = CliRunner()
    res = runner.invoke(app, ["--db", str(path), "rekey"], env={"ANCHORMEM_ENCRYPTION_KEY": KEY})
    assert res.exit_code == 2 and "ANCHORMEM_NEW_ENCRYPTION_KEY" in res.output
    new = "7e" * 32
    res = runner.invoke(app, ["--db", str(path), "--json", "rekey"],
                        env={"ANCHORMEM_ENCRYPTION_KEY": KEY, "ANCHORMEM_NEW_ENCRYPTION_KEY": new})
    assert res.exit_code == 0, res.output
    assert KEY not in res.output and new not in res.output
    res = runner.invoke(app, ["--db", str(path), "--json", "list", "--user", "u"],
                        env={"ANCHORMEM_ENCRYPTION_KEY": new, "ANCHORMEM_EMBEDDER": "hash"})
    assert res.exit_code == 0 and "I moved to Lisbon." in res.output
