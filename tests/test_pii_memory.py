"""PII redaction wired into Memory: mask and tokenize end to end, reveal, and verifiable forgetting (byte scans)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from anchormem import Memory
from anchormem.errors import ConfigError, PrivacyError
from anchormem.privacy import find_tokens
from anchormem.server.app import _status
from anchormem.testing import DeterministicEmbedder
from anchormem.types import Scope

KEY = b"k" * 32
OTHER_KEY = b"z" * 32
PHONE = "13812345678"
PHONE_DASHED = "138-1234-5678"
EMAIL = "maya.silva@example.com"
CN_ID = "110105197503136677"

MIXED = f"我的手机是{PHONE_DASHED}, email me at {EMAIL}。身份证{CN_ID}，我叫王建国。"
RAW_VALUES = [PHONE, PHONE_DASHED, EMAIL, "maya.silva", CN_ID, "王建国", "12345678"]


def _memory(tmp_path: Path, name: str = "m.db", **kwargs) -> Memory:
    kwargs.setdefault("embedder", DeterministicEmbedder(64))
    kwargs.setdefault("llm", None)
    return Memory(str(tmp_path / name), **kwargs)


def _file_bytes(mem: Memory) -> bytes:
    """The database file and its -wal file, as they are on disk now."""
    out = b""
    for suffix in ("", "-wal"):
        p = Path(mem.path + suffix)
        if p.exists():
            out += p.read_bytes()
    return out


def _all_text(mem: Memory, user_id: str) -> str:
    """Everything the store gives back for a user: export (memories, history, messages) and entities."""
    data = mem.export(user_id=user_id)
    return json.dumps(data, ensure_ascii=False)


@pytest.fixture(autouse=True)
def _no_pii_env(monkeypatch):
    monkeypatch.delenv("ANCHORMEM_PII", raising=False)
    monkeypatch.delenv("ANCHORMEM_PII_KEY", raising=False)


# ---------------------------------------------------------------- configuration


def test_default_is_off_and_stores_text_verbatim(tmp_path):
    with _memory(tmp_path) as mem:
        item = mem.add(f"my phone is {PHONE}", user_id="u")[0].memory
        assert item.text == f"my phone is {PHONE}"
        assert mem.store._read("SELECT count(*) FROM pii_vault")[0][0] == 0


def test_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="needs a key"):
        _memory(tmp_path, pii="tokenize")
    with pytest.raises(ConfigError, match="16 bytes"):
        _memory(tmp_path, pii="tokenize", pii_key=b"short")
    with pytest.raises(ConfigError, match="pii must be one of"):
        _memory(tmp_path, pii="hash")
    with _memory(tmp_path, pii="mask") as mem:
        with pytest.raises(ConfigError, match="needs a key"):
            mem.reveal("[PHONE:12345678]")


def test_settings_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_PII", "tokenize")
    monkeypatch.setenv("ANCHORMEM_PII_KEY", "0123456789abcdef0123456789abcdef")
    with _memory(tmp_path) as mem:
        text = mem.add(f"call me at {PHONE}", user_id="u")[0].memory.text
        assert PHONE not in text and len(find_tokens(text)) == 1
        assert mem.reveal(text) == f"call me at {PHONE}"
        assert "0123456789abcdef" not in repr(mem.settings)  # the key is a SecretStr


def test_privacy_error_is_http_400():
    assert _status(PrivacyError("wrong key")) == 400


# ---------------------------------------------------------------- mask


def test_mask_end_to_end_mixed_chinese_english(tmp_path):
    with _memory(tmp_path, pii="mask") as mem:
        events = mem.add([{"role": "user", "content": MIXED},
                          {"role": "assistant", "content": f"好的，我会发邮件到 {EMAIL}。"}], user_id="maya")
        items = mem.get_all(user_id="maya")
        assert items, events
        user_item = next(it for it in items if it.source == "user")
        assert user_item.text == "我的手机是[PHONE], email me at [EMAIL]。身份证[CN_ID]，我叫[NAME]。"
        assert user_item.source_text == user_item.text
        dump = _all_text(mem, "maya")
        for raw in RAW_VALUES:
            assert raw not in dump, raw
        assert [m["content"] for m in mem.export(user_id="maya")["messages"]] == [
            "我的手机是[PHONE], email me at [EMAIL]。身份证[CN_ID]，我叫[NAME]。", "好的，我会发邮件到 [EMAIL]。"]
        for it in items:  # entities were extracted from the masked text
            for e in it.entities:
                assert not any(raw in (e.value + (e.normalized or "")) for raw in RAW_VALUES), e
        # the embedding is of the masked text (speaker-less: the text itself)
        vec = mem.store.get_vectors(mem.tenant, [user_item.id])[user_item.id]
        assert np.allclose(vec, DeterministicEmbedder(64).embed_documents([user_item.text])[0])
        # the keyword index never saw the raw number
        scope = Scope(tenant=mem.tenant, user_id="maya")
        assert mem.store.keyword_search(scope, [PHONE], 10, None) == []
        assert mem.store.keyword_search(scope, ["maya.silva"], 10, None) == []
        # nothing raw anywhere in the file
        mem.store.checkpoint()
        data = _file_bytes(mem)
        for raw in RAW_VALUES:
            assert raw.encode("utf-8") not in data, raw


def test_mask_search_matches_by_type_not_by_value(tmp_path):
    with _memory(tmp_path, pii="mask") as mem:
        with_phone = mem.add(f"my phone is {PHONE}", user_id="u")[0].memory
        mem.add("I water the plants on Fridays.", user_id="u")
        # the query is masked too: any phone number, typed or as [PHONE], finds the memories holding a phone
        for query in (PHONE, "13900001111", "[PHONE]"):
            assert [h.memory.id for h in mem.search(query, user_id="u", recipe="bm25")] == [with_phone.id]
        # and two different numbers in one phrasing become one memory (masking makes them the same text)
        second = mem.add("my phone is 13900001111", user_id="u")
        assert [e.event for e in second] == ["NOOP"] and second[0].memory.id == with_phone.id


# ---------------------------------------------------------------- tokenize


def test_tokenize_same_value_one_token_search_and_reveal(tmp_path):
    with _memory(tmp_path, pii="tokenize", pii_key=KEY) as mem:
        a = mem.add(f"我的手机是{PHONE}，有事打给我", user_id="maya")[0].memory
        b = mem.add(f"Call me on {PHONE} tonight about the lease.", user_id="maya")[0].memory
        c = mem.add("I water the plants on Fridays.", user_id="maya")[0].memory
        ta, tb = find_tokens(a.text), find_tokens(b.text)
        assert len(ta) == 1 and ta == tb and re.fullmatch(r"\[PHONE:[0-9a-f]{8}\]", ta[0])
        assert PHONE not in a.text + a.source_text + b.text
        assert mem.store._read("SELECT count(*) FROM pii_vault")[0][0] == 1
        # a typed number finds its token (keyword search), in either spelling
        for query in (PHONE, PHONE_DASHED, f"what is {PHONE}?"):
            turns = {h.memory.source_message_ids[0] for h in mem.search(query, user_id="maya", recipe="bm25")}
            assert turns == {a.source_message_ids[0], b.source_message_ids[0]}, query  # (a's turn: it or its fact)
        assert c.id not in {h.memory.id for h in mem.search(PHONE, user_id="maya", recipe="bm25")}
        # searching a value never stored writes nothing to the vault
        assert mem.search("13900001111", user_id="maya", recipe="bm25") == []
        assert mem.store._read("SELECT count(*) FROM pii_vault")[0][0] == 1
        # reveal with the (configured or explicit) key restores the text byte for byte
        assert mem.reveal(a.text) == f"我的手机是{PHONE}，有事打给我"
        assert mem.reveal(b.text, key=KEY) == f"Call me on {PHONE} tonight about the lease."
        with pytest.raises(PrivacyError, match="wrong key"):
            mem.reveal(a.text, key=OTHER_KEY)
        assert mem.reveal("no tokens, just [PHONE]") == "no tokens, just [PHONE]"


def test_tokenize_mixed_text_reveals_exactly_and_keeps_raw_values_out_of_the_file(tmp_path):
    with _memory(tmp_path, pii="tokenize", pii_key=KEY) as mem:
        item = mem.add(MIXED, user_id="maya")[0].memory
        assert len(find_tokens(item.text)) == 4
        assert mem.reveal(item.source_text) == MIXED
        assert mem.reveal(mem.export(user_id="maya")["messages"][0]["content"]) == MIXED
        # entities are not read out of the tokens' hex digits
        hexes = {t.split(":")[1].rstrip("]") for t in find_tokens(item.text)}
        assert not [e for e in item.entities if any(e.value in h for h in hexes)]
        dump = _all_text(mem, "maya")
        for raw in RAW_VALUES:
            assert raw not in dump, raw
        mem.store.checkpoint()
        data = _file_bytes(mem)
        for raw in RAW_VALUES:
            assert raw.encode("utf-8") not in data, raw


def test_second_memory_on_the_same_file_reveals_with_the_same_key(tmp_path):
    with _memory(tmp_path, pii="tokenize", pii_key=KEY) as mem:
        text = mem.add(f"Transfer to IBAN GB82 WEST 1234 5698 7654 32 from {EMAIL}", user_id="u")[0].memory.text
    with _memory(tmp_path, pii="tokenize", pii_key=KEY) as again:
        assert again.reveal(text) == f"Transfer to IBAN GB82 WEST 1234 5698 7654 32 from {EMAIL}"
        # the same value written later gets the same token (the vault is shared through the file)
        assert find_tokens(again.add(f"email {EMAIL}", user_id="u")[0].memory.text)[0] == find_tokens(text)[1]
    with _memory(tmp_path, pii="tokenize", pii_key=KEY, tenant="globex") as other_tenant:
        assert other_tenant.reveal(text) == text  # the vault is per tenant
    with _memory(tmp_path, pii="off") as plain:  # reveal needs the key, not the mode
        assert plain.reveal(text, key=KEY).endswith(EMAIL)
        with pytest.raises(PrivacyError):
            plain.reveal(text, key=OTHER_KEY)


def test_update_is_redacted(tmp_path):
    with _memory(tmp_path, pii="tokenize", pii_key=KEY) as mem:
        mid = mem.add("My phone is unknown yet.", user_id="u")[0].memory.id
        item = mem.update(mid, f"My phone is {PHONE}.")
        assert PHONE not in item.text and mem.reveal(item.text) == f"My phone is {PHONE}."
        assert PHONE not in json.dumps([h.model_dump(mode="json") for h in mem.history(mid)])


def test_users_share_a_token_but_forgetting_one_keeps_the_other(tmp_path):
    with _memory(tmp_path, pii="tokenize", pii_key=KEY) as mem:
        a = mem.add(f"my landlord's number is {PHONE}", user_id="a")[0].memory
        b = mem.add(f"my plumber's number is {PHONE}", user_id="b")[0].memory
        assert find_tokens(a.text) == find_tokens(b.text)
        assert mem.store._read("SELECT count(*) FROM pii_vault")[0][0] == 2  # one row per user
        assert mem.delete_all(user_id="a", purge=True)["vault"] == 1
        assert mem.reveal(b.text) == f"my plumber's number is {PHONE}"


# ---------------------------------------------------------------- verifiable forgetting


SECRETS = [
    ("Zanzibarquux moved to Lisbonia with the wombatolith.", ["Zanzibarquux", "zanzibarquux", "Lisbonia",
                                                              "lisbonia", "wombatolith"]),
    ("我住在杭州市西湖区文三路九十九号梧桐苑，月租四千五。", ["梧桐苑", "文三路", "西湖区", "月租四千五"]),
    (f"Frobnicator code is {EMAIL}, phone {PHONE}.", ["Frobnicator", "frobnicator", EMAIL, PHONE]),
]


def _scan(mem: Memory, needles: list[str]) -> dict[str, int]:
    data = _file_bytes(mem)
    return {n: data.count(n.encode("utf-8")) for n in needles if data.count(n.encode("utf-8"))}


def _fill(mem: Memory, user_id: str, n: int) -> None:
    for i in range(n):
        mem.add([{"role": "user", "content": f"filler note {i}: pasta, hiking and the weather in spring"},
                 {"role": "user", "content": f"备忘 {i}：周末去爬山，记得带伞"}], user_id=user_id)


@pytest.mark.parametrize("mode", ["off", "tokenize"])
def test_delete_all_purge_leaves_no_bytes_of_the_user(tmp_path, mode):
    kwargs = {"pii": mode, "pii_key": KEY} if mode == "tokenize" else {}
    with _memory(tmp_path, **kwargs) as mem:
        _fill(mem, "other", 20)
        for text, _ in SECRETS:
            mem.add(text, user_id="maya", session_id="s1")
        first = mem.get_all(user_id="maya")[0]
        mem.update(first.id, "Zanzibarquux moved again, to Portovillea.")  # old text now lives in history
        mem.add("Frobnicator asked for a callback.", user_id="maya", session_id="s2")
        _fill(mem, "other", 20)
        tokens = sorted({t for it in mem.get_all(user_id="maya") for t in find_tokens(it.source_text)})
        assert len(tokens) == (3 if mode == "tokenize" else 0)  # the address, the e-mail, the phone
        needles = [w for _, words in SECRETS for w in words] + ["Portovillea", "portovillea", "callback"]
        needles += tokens + [t.split(":")[1].rstrip("]") for t in tokens]  # and the hex the FTS index holds
        mem.store.checkpoint()
        before = _scan(mem, needles)
        assert "Zanzibarquux" in before and "月租四千五" in before  # the scan does see what is there

        counts = mem.delete_all(user_id="maya", purge=True)
        # 4 turns + 3 facts: the rent turn's home and rent facts, and "moved to Lisbonia" (its clause ends before
        # "with ...")
        assert counts["memories"] == 7 and counts["vault"] == len(tokens)
        assert _scan(mem, needles) == {}
        assert Path(mem.path + "-wal").stat().st_size == 0
        # the other user's text is still there, and still found
        assert "filler note 3".encode() in _file_bytes(mem)
        assert mem.search("pasta hiking", user_id="other", recipe="bm25")
        assert mem.store._read("SELECT count(*) FROM pii_vault WHERE user_id='maya'")[0][0] == 0


def test_delete_one_purge_leaves_no_bytes_of_that_memory(tmp_path):
    with _memory(tmp_path, pii="tokenize", pii_key=KEY) as mem:
        _fill(mem, "other", 10)
        gone = mem.add(f"Quuxwobble lives at 55 Elm Street, Apt 3B, call {PHONE}.", user_id="maya")[0].memory
        kept = mem.add(f"Dentist appointment, they have my number {PHONE}.", user_id="maya")[0].memory
        _fill(mem, "other", 10)
        gone_tokens = find_tokens(gone.text)
        assert len(gone_tokens) == 2 and find_tokens(kept.text) == [gone_tokens[1]]  # address, shared phone
        address = gone_tokens[0]
        needles = ["Quuxwobble", "quuxwobble", address, address.split(":")[1].rstrip("]")]
        mem.store.checkpoint()
        assert "Quuxwobble" in _scan(mem, needles)

        counts = mem.delete(gone.id, purge=True)
        assert counts["memories"] == 1 and counts["messages"] == 1 and counts["vault"] == 1
        assert _scan(mem, needles) == {}
        # the phone token is still used by another memory of the user: its vault row stays and reveals
        assert mem.reveal(kept.text) == f"Dentist appointment, they have my number {PHONE}."
        # and once that one is purged too, the last vault row goes
        assert mem.delete(kept.id, purge=True)["vault"] == 1
        assert mem.store._read("SELECT count(*) FROM pii_vault")[0][0] == 0
        assert mem.reveal(kept.text) == kept.text  # forgotten tokens stay tokens


def test_delete_all_of_one_session_keeps_tokens_other_sessions_use(tmp_path):
    with _memory(tmp_path, pii="tokenize", pii_key=KEY) as mem:
        s1 = mem.add(f"old phone {PHONE}, mail {EMAIL}", user_id="u", session_id="s1")[0].memory
        s2 = mem.add(f"still reachable at {PHONE}", user_id="u", session_id="s2")[0].memory
        counts = mem.delete_all(user_id="u", session_id="s1", purge=True)
        assert counts["memories"] == 1 and counts["vault"] == 1  # the e-mail; the phone is still in s2
        assert mem.reveal(s2.text) == f"still reachable at {PHONE}"
        assert mem.reveal(s1.text, key=KEY).startswith("old phone 13812345678, mail [EMAIL:")


def test_non_purge_delete_keeps_the_vault(tmp_path):
    with _memory(tmp_path, pii="tokenize", pii_key=KEY) as mem:
        item = mem.add(f"my phone is {PHONE}", user_id="u")[0].memory
        counts = mem.delete(item.id)
        assert "vault" not in counts
        old = mem.history(item.id)[-1].old_text  # history keeps the (tokenised) text: it stays revealable
        assert mem.reveal(old) == f"my phone is {PHONE}"


def test_purge_removes_vectors_from_the_saved_ann_index(tmp_path):
    from anchormem.config import Settings

    with _memory(tmp_path, settings=Settings(ann_threshold=5)) as mem:
        for i in range(8):
            mem.add(f"memory {i} about topic {i * 7} and the river Zanzibarquux{i}", user_id="maya")
        target = mem.get_all(user_id="maya")[3]
        vec = mem.store.get_vectors(mem.tenant, [target.id])[target.id]
        assert mem.search("river", user_id="maya")  # builds and saves the scope's HNSW index
        files = list(Path(mem.path + ".vec").glob("*.usearch"))
        stored = vec.astype("<f2").tobytes()  # the graph keeps f16 copies of the vectors (stores/vectors.py)
        assert len(files) == 1 and stored in files[0].read_bytes()

        mem.delete(target.id, purge=True)
        assert not files[0].exists()
        hits = mem.search("river", user_id="maya", limit=10)  # rebuilt from the database, without it
        assert len(hits) == 7 and target.id not in {h.memory.id for h in hits}
        assert stored not in files[0].read_bytes()
        mem.delete_all(user_id="maya", purge=True)
        assert not files[0].exists()


def test_gc_purge_of_expired_memories_leaves_no_bytes(tmp_path):
    """gc(purge=True) gives the same guarantee as delete(purge=True): text, keyword index and vault rows gone."""
    from anchormem.testing import frozen_clock

    path = str(tmp_path / "gc.db")
    with frozen_clock("2025-01-01T00:00:00Z") as clock:
        with Memory(path, embedder="hash", pii="tokenize", pii_key=KEY) as m:
            m.add("Call me at 13812345678 about the zebrafish permit.", user_id="u",
                  metadata={"expire_strategy": "1d"})
            m.add("I keep the aquarium at home.", user_id="u")
            token = next(iter(m.store.vault_get(m.tenant, [t for t in _all_tokens(m, "u")])))
            clock.advance(days=2)
            counts = m.gc(user_id="u", purge=True)
            assert counts["memories"] == 1 and counts["vault"] == 1
            assert [x.text for x in m.get_all(user_id="u")] == ["I keep the aquarium at home."]
    raw = b"".join(open(p, "rb").read() for p in (path, path + "-wal") if os.path.exists(p))
    for gone in ("zebrafish", "13812345678", token):
        assert gone.encode() not in raw, gone
    assert b"aquarium" in raw


def _all_tokens(m, user):
    from anchormem.privacy.redact import find_tokens

    return sorted({t for x in m.get_all(user_id=user) for t in find_tokens(x.text)})
