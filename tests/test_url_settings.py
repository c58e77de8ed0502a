"""Malformed Redis-style URL settings fail when Memory / the API app is built (ConfigError naming the setting and
the accepted forms; ``anchormem serve`` exits 2 before binding), while a well-formed URL whose Redis is down keeps
its documented behaviour (StoreError, HTTP 503, on use)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from anchormem import ConfigError, Memory, Settings, StoreError
from anchormem.cli import app as cli_app
from anchormem.urlcheck import check_redis_url

DOWN = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.mark.parametrize("url, detail", [
    ("notaurl", "is not a valid URL"),
    ("http://127.0.0.1:6379", "is not a valid URL"),
    ("redis://127.0.0.1:abc/0", "Port could not be cast"),
    ("redis://127.0.0.1:99999/0", "Port out of range"),
])
def test_bad_session_url_is_a_config_error_at_construction(tmp_path, url, detail):
    with pytest.raises(ConfigError) as info:
        Memory(str(tmp_path / "m.db"), embedder="hash", settings=Settings(session_url=url))
    msg = str(info.value)
    assert msg.startswith("ANCHORMEM_SESSION_URL=") and detail in msg
    assert "redis://host:6379/0" in msg and "unix:///path/to/redis.sock" in msg
    assert not (tmp_path / "m.db").exists()  # refused before the database was created


def test_bad_urls_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_SESSION_URL", "notaurl")
    with pytest.raises(ConfigError, match="^ANCHORMEM_SESSION_URL='notaurl' is not a valid URL"):
        Memory(str(tmp_path / "a.db"), embedder="hash")
    monkeypatch.delenv("ANCHORMEM_SESSION_URL")
    monkeypatch.setenv("ANCHORMEM_CACHE_URL", "notaurl")
    with pytest.raises(ConfigError, match="^ANCHORMEM_CACHE_URL='notaurl' is not a valid URL"):
        Memory(str(tmp_path / "b.db"), embedder="hash")
    monkeypatch.setenv("ANCHORMEM_CACHE", "false")  # the cache is off: its URL is not used, not checked
    m = Memory(str(tmp_path / "c.db"), embedder="hash")
    assert m.cache is None
    m.close()


def test_check_redis_url_values_and_password_redaction():
    for in_process in (None, "", "memory", "memory://"):
        assert check_redis_url(in_process, "X") is None
    for ok in ("redis://127.0.0.1:6379/0", "rediss://u:pw@h:6380/2", "unix:///tmp/redis.sock"):
        assert check_redis_url(ok, "X") == ok
    with pytest.raises(ConfigError) as info:
        check_redis_url("redis://user:hunter22@h:nope/0", "ANCHORMEM_SESSION_URL")
    assert "hunter22" not in str(info.value) and "ANCHORMEM_SESSION_URL" in str(info.value)
    with pytest.raises(ConfigError) as info:
        check_redis_url("ftp://user:hunter22@h/0", "ANCHORMEM_CACHE_URL")
    assert "hunter22" not in str(info.value) and "'ftp://user@h/0'" in str(info.value)
    with pytest.raises(ConfigError, match="must be a string URL, got int"):
        check_redis_url(6379, "X")


def test_valid_url_with_redis_down_fails_on_use_not_construction(tmp_path):
    m = Memory(str(tmp_path / "d.db"), embedder="hash", settings=Settings(session_url=DOWN, cache=False))
    try:
        m.add("I like oolong tea.", user_id="u")  # no session_id: the session store is not needed
        assert [x.text for x in m.get_all(user_id="u")] == ["I like oolong tea."]
        with pytest.raises(StoreError, match="127.0.0.1:1"):
            m.context(user_id="u", session_id="s1", query="tea?", budget_tokens=200)
    finally:
        m.close()


def test_api_app_refuses_bad_urls_and_serves_503_when_redis_is_down(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from anchormem.server.app import create_app
    from anchormem.server.keys import KeyStore

    db = str(tmp_path / "api.db")
    ks = KeyStore(db + ".keys.db")
    for bad in (Settings(session_url="notaurl"), Settings(cache_url="notaurl")):
        with pytest.raises(ConfigError, match="is not a valid URL"):
            create_app(db, embedder="hash", keys=ks, rate_limit="off", settings=bad)
    with pytest.raises(ConfigError, match="^ANCHORMEM_RATE_LIMIT_URL='notaurl'"):
        create_app(db, embedder="hash", keys=ks, rate_limit="off", rate_limit_url="notaurl")
    key = ks.create("acme", "admin", name="a")[1]
    api = create_app(db, embedder="hash", keys=ks, rate_limit="off",
                     settings=Settings(session_url=DOWN, cache=False))
    with TestClient(api, headers={"Authorization": "Bearer " + key}) as c:
        r = c.post("/v1/context", json={"query": "tea?", "user_id": "u", "session_id": "s1", "budget_tokens": 200})
        assert r.status_code == 503 and r.json()["error"]["code"] == "store_error"
        assert c.get("/v1/ready").status_code == 503
        r = c.post("/v1/memories", json={"messages": [{"role": "user", "content": "I like tea."}], "user_id": "u"})
        assert r.status_code == 201  # writes without a session_id do not need Redis
    ks.close()


@pytest.mark.parametrize("var", ["ANCHORMEM_SESSION_URL", "ANCHORMEM_CACHE_URL", "ANCHORMEM_RATE_LIMIT_URL"])
def test_serve_refuses_to_start_with_a_bad_url(tmp_path, monkeypatch, var):
    pytest.importorskip("uvicorn")
    for k in ("ANCHORMEM_URL", "ANCHORMEM_KEYS_PATH", "ANCHORMEM_SESSION_URL", "ANCHORMEM_CACHE_URL",
              "ANCHORMEM_RATE_LIMIT_URL"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("ANCHORMEM_PATH", str(tmp_path / "unused.db"))  # restored after serve overwrites it
    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    monkeypatch.setenv(var, "notaurl")
    res = CliRunner().invoke(cli_app, ["--db", str(tmp_path / "s.db"), "serve", "--port", "1"])
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {var}='notaurl' is not a valid URL"), res.output
    assert "Traceback" not in res.output and "anchormem API on" not in res.output


def test_a_bad_setting_is_a_config_error_from_arguments_and_from_the_environment(monkeypatch):
    from anchormem import Settings
    from anchormem.errors import AnchormemError, ConfigError

    with pytest.raises(ConfigError, match="labeller: Input should be 'auto', 'offline' or 'llm'"):
        Settings(labeller="gpt")
    monkeypatch.setenv("ANCHORMEM_SUMMARY_EVERY", "-3")
    with pytest.raises(AnchormemError, match="summary_every"):
        Settings()
