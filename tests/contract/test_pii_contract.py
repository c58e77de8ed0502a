"""PII tokenisation through Memory on every backend (SQLite and PostgreSQL): the vault round trip and forgetting."""

from __future__ import annotations

import pytest

from anchormem.errors import ConfigError, PrivacyError
from anchormem.privacy import find_tokens

KEY = b"k" * 32
PHONE = "13812345678"
EMAIL = "maya.silva@example.com"


def test_tokenize_round_trip(backend):
    mem = backend.memory(pii="tokenize", pii_key=KEY)
    a = mem.add(f"我的手机是{PHONE}，email me at {EMAIL}", user_id="maya")[0].memory
    b = mem.add(f"Call {PHONE} after six.", user_id="maya")[0].memory
    other = mem.add("I water the plants on Fridays.", user_id="maya")[0].memory
    ta, tb = find_tokens(a.text), find_tokens(b.text)
    assert len(ta) == 2 and tb == ta[:1]
    assert PHONE not in a.text + b.text + a.source_text and EMAIL not in a.text
    turns = {h.memory.source_message_ids[0] for h in mem.search(PHONE, user_id="maya", recipe="bm25")}
    assert turns == {a.source_message_ids[0], b.source_message_ids[0]}  # a's turn: it or its phone fact's clause
    assert other.id not in {h.memory.id for h in mem.search(EMAIL, user_id="maya", recipe="bm25")}
    assert mem.reveal(a.text) == f"我的手机是{PHONE}，email me at {EMAIL}"
    with pytest.raises(PrivacyError):
        mem.reveal(a.text, key=b"z" * 32)
    # another Memory (another process, another pool) on the same database reveals with the same key
    again = backend.memory(pii="tokenize", pii_key=KEY)
    assert again.reveal(b.text) == f"Call {PHONE} after six."
    assert find_tokens(again.add(f"new number? no, still {PHONE}", user_id="maya")[0].memory.text) == ta[:1]


def test_vault_store_methods(store):
    assert store.vault_put("t", "u1", {"[PHONE:00000001]": b"\x01one", "[EMAIL:00000002]": b"\x01two"}) == 2
    assert store.vault_put("t", "u1", {"[PHONE:00000001]": b"\x01changed"}) == 0  # the first ciphertext stays
    assert store.vault_put("t", "u2", {"[PHONE:00000001]": b"\x01one"}) == 1
    got = store.vault_get("t", ["[PHONE:00000001]", "[EMAIL:00000002]", "[IBAN:00000003]"])
    assert got == {"[PHONE:00000001]": b"\x01one", "[EMAIL:00000002]": b"\x01two"}
    assert store.vault_get("other-tenant", ["[PHONE:00000001]"]) == {}
    assert store.vault_delete("t", "u1", ["[EMAIL:00000002]"]) == 1  # no text of u1 holds it
    assert store.vault_delete("t", "u1", None) == 1
    assert store.vault_get("t", ["[PHONE:00000001]"]) == {"[PHONE:00000001]": b"\x01one"}  # u2's row


def test_forgetting_deletes_vault_rows(backend):
    mem = backend.memory(pii="tokenize", pii_key=KEY)
    gone = mem.add(f"mail {EMAIL}, phone {PHONE}", user_id="u")[0].memory
    kept = mem.add(f"the plumber has {PHONE}", user_id="u")[0].memory
    bystander = mem.add(f"my own phone is {PHONE}", user_id="v")[0].memory
    assert mem.delete(gone.id, purge=True)["vault"] == 1  # the e-mail; the phone is still used by `kept`
    assert mem.reveal(kept.text) == f"the plumber has {PHONE}"
    assert mem.reveal(gone.text) == gone.text.replace(find_tokens(gone.text)[1], PHONE)  # e-mail stays a token
    assert mem.delete_all(user_id="u", purge=True)["vault"] == 1
    assert mem.reveal(bystander.text) == f"my own phone is {PHONE}"  # another user's row is untouched
    assert mem.delete_all(user_id="v", purge=True)["vault"] == 1
    assert mem.reveal(bystander.text) == bystander.text


def test_tokenize_needs_a_key(backend):
    with pytest.raises(ConfigError):
        backend.memory(pii="tokenize")
