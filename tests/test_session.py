"""Working buffer, session stores (in-process and a real Redis) and the context builder.

Redis tests use the server at $ANCHORMEM_TEST_REDIS_URL (default redis://127.0.0.1:6379/0), a unique key prefix
per test, and delete their keys afterwards. They are skipped, with the reason, only when Redis is not reachable.
"""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anchormem import Memory
from anchormem.errors import ConfigError, InvalidInputError, ProviderError, ScopeError, StoreError
from anchormem.session import (
    InProcessSessionStore,
    RedisSessionStore,
    SessionKey,
    SessionStore,
    WorkingBuffer,
    build_context,
    count_tokens,
    decay_weight,
    make_session_store,
    make_turn,
)
from anchormem.testing import FrozenClock, frozen_clock, run_concurrently

from redis_fixtures import REDIS_URL, redis_client, redis_prefix  # noqa: F401 - fixtures (CI: Redis must run)


# ------------------------------------------------------------------------------------------------ fixtures
def _redis_store(prefix: str, **kw) -> RedisSessionStore:
    return RedisSessionStore(REDIS_URL, prefix=prefix, **kw)


@pytest.fixture(params=["memory", "redis"])
def make_store(request):
    """make_store(**options) -> a fresh session store of each backend (closed afterwards)."""
    made = []
    if request.param == "redis":
        prefix = request.getfixturevalue("redis_prefix")

        def factory(**kw):
            made.append(_redis_store(prefix, **kw))
            return made[-1]
    else:
        def factory(**kw):
            made.append(InProcessSessionStore(**kw))
            return made[-1]
    yield factory
    for s in made:
        s.close()


K = SessionKey(user_id="u1", session_id="s1")


def _turn(role, content, ts, **kw):
    return {"role": role, "content": content, "timestamp": ts, **kw}


# ------------------------------------------------------------------------------------------------ count_tokens
@pytest.mark.parametrize("text, expected", [
    ("", 0),
    ("   \n\t ", 0),
    ("I moved to Lisbon last month.", 7),                # 6 short words + "."
    ("internationalization", 3),                         # 20 letters -> ceil(20 / 8)
    ("1234567", 3),                                      # 7 digits -> ceil(7 / 3)
    ("我上周三刚搬到杭州，月租4500元。", 16),             # 9 + "，" + 2 + ceil(4/3)=2 + 1 + "。"
    ("こんにちは", 5),                                   # kana: one each
    ("안녕하세요", 5),                                   # hangul syllables: one each
    ("ok 👍!", 3),
    ("Привет, мир", 3),                                  # Cyrillic words are words
    ("(id 81449e683dfa4377a6ec97b7bdb6f297)", 19),       # a memory id: ceil(32 / 2), whatever its characters
    ("(id ae5d1016992949e7b38e1b6ebfd6e015)", 19),
    ("deadbeef", 1),                                     # shorter than an id: a word
])
def test_count_tokens_rule(text, expected):
    assert count_tokens(text) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text())
def test_count_tokens_is_additive_over_newlines(a, b):
    assert count_tokens(a + "\n" + b) == count_tokens(a) + count_tokens(b)
    assert count_tokens(a) >= 0


def test_count_tokens_rejects_non_text():
    with pytest.raises(InvalidInputError, match="expected a string"):
        count_tokens(b"bytes")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------ decay
def test_decay_weight_formula():
    assert decay_weight(0, 60) == 1.0
    assert decay_weight(60, 60) == 0.5
    assert decay_weight(180, 60) == 0.125
    assert decay_weight(-30, 60) == 1.0                     # future timestamps are not boosted
    assert decay_weight(10**9, math.inf) == 1.0             # decay off
    assert decay_weight(90, 60) == pytest.approx(2 ** -1.5)
    for bad in (0, -1, float("nan"), "60", True):
        with pytest.raises(InvalidInputError, match="half_life_seconds"):
            decay_weight(1, bad)
    with pytest.raises(InvalidInputError, match="age_seconds"):
        decay_weight(float("inf"), 60)


# ------------------------------------------------------------------------------------------------ turns
def test_make_turn_normalises_time_and_keeps_content_verbatim():
    t = make_turn({"role": "user", "content": "  我住在杭州。 ", "timestamp": "2024-05-06T21:00:00+08:00",
                   "name": "林晓"})
    assert t == {"role": "user", "content": "  我住在杭州。 ", "timestamp": "2024-05-06T13:00:00Z", "name": "林晓"}
    with frozen_clock("2025-01-02T03:04:05Z"):
        assert make_turn({"role": "assistant", "content": "hi"})["timestamp"] == "2025-01-02T03:04:05Z"


@pytest.mark.parametrize("raw, message", [
    ({"role": "tool", "content": "x"}, "role must be one of user, assistant, system"),
    ({"role": "user", "content": "   "}, "empty text"),
    ({"role": "user", "content": 5}, "content must be a string"),
    ({"role": "user", "content": "x", "tool_calls": []}, "unknown keys tool_calls"),
    ({"role": "user", "content": "x", "timestamp": "yesterday"}, "not an ISO-8601 timestamp"),
    ({"role": "user", "content": "x", "name": ""}, "name must be a non-empty string"),
    ("just text", "expected a dict"),
])
def test_make_turn_rejects_bad_input(raw, message):
    with pytest.raises(InvalidInputError, match=message):
        make_turn(raw)


# ------------------------------------------------------------------------------------------------ working buffer
NOW = "2024-05-06T13:10:00Z"


def _conversation():
    # token cost of each rendered line, by the documented rule, in the trailing comment
    return [
        _turn("user", "Hi", "2024-05-06T13:00:00Z"),                                   # user : Hi            -> 3
        _turn("assistant", "Hello! How can I help?", "2024-05-06T13:00:05Z"),          # assistant(2) : 5 ! ? -> 10
        _turn("user", "我想找房子。", "2024-05-06T13:01:00Z", name="林晓"),              # user ( 林晓 ) : 5+1 -> 12
        _turn("assistant", "Which city?", "2024-05-06T13:01:05Z"),                     # assistant(2) : 2 + ? -> 6
        _turn("user", "杭州，西湖区。", "2024-05-06T13:02:00Z"),                          # user : 7 chars    -> 9
    ]


def test_window_keeps_newest_turns_within_budget():
    buf = WorkingBuffer()
    conv = _conversation()
    assert [buf.cost(t) for t in conv] == [3, 10, 12, 6, 9]
    with frozen_clock(NOW):
        w = buf.window(conv, 26)                    # 9 + 6 = 15; + 12 = 27 would be over
    assert [t["content"] for t in w.turns] == ["Which city?", "杭州，西湖区。"]
    assert w.used_tokens == 15 and w.tokens == [6, 9] and w.dropped == 3 and w.weights[-1] == 0.5 ** (8 / 360)


def test_window_is_contiguous_and_fills_exactly():
    buf = WorkingBuffer()
    conv = _conversation()
    with frozen_clock(NOW):
        assert len(buf.window(conv, 27).turns) == 3
        w = buf.window(conv, 39)            # 9 + 6 + 12 + 10 = 37; + 3 = 40 would be over
        assert [t["content"] for t in w.turns] == ["Hello! How can I help?", "我想找房子。", "Which city?", "杭州，西湖区。"]
        assert w.used_tokens == 37 and w.dropped == 1
        assert len(buf.window(conv, 1000).turns) == 5
        # a big old turn blocks everything older than it (no holes in the window)
        big = [_turn("user", "old", "2024-05-06T12:00:00Z"), _turn("assistant", "word " * 50, "2024-05-06T12:00:01Z")]
        assert [t["content"] for t in buf.window(big + conv, 40 + 10).turns] == [t["content"] for t in conv]


def test_window_always_keeps_newest_user_turn():
    buf = WorkingBuffer()
    conv = _conversation() + [_turn("assistant", "好的，" * 20, "2024-05-06T13:02:05Z")]  # reply after it: 63 tokens
    with frozen_clock(NOW):
        w = buf.window(conv, 9)
    assert [t["content"] for t in w.turns] == ["杭州，西湖区。"]
    assert w.used_tokens == 9


def test_window_budget_too_small_is_an_error_with_sizes():
    with frozen_clock(NOW), pytest.raises(InvalidInputError) as err:
        WorkingBuffer().window(_conversation(), 8)
    assert "budget_tokens=8" in str(err.value) and "(9 tokens)" in str(err.value)


def test_window_max_turns_decay_and_no_user_turn():
    conv = _conversation()
    with frozen_clock(NOW):
        assert len(WorkingBuffer(max_turns=2).window(conv, 1000).turns) == 2
    # 25 h later every turn but the newest user turn has decayed below 1/16 (4 half-lives of 6 h = 24 h)
    with frozen_clock("2024-05-07T14:02:00Z"):
        w = WorkingBuffer().window(conv, 1000)
        assert [t["content"] for t in w.turns] == ["杭州，西湖区。"]
        assert w.weights[0] == pytest.approx(0.5 ** (25 / 6))
        assert len(WorkingBuffer(min_weight=0).window(conv, 1000).turns) == 5
    with pytest.raises(InvalidInputError, match="at least one user turn"):
        WorkingBuffer().window([_turn("assistant", "hi", NOW)], 100)
    with pytest.raises(InvalidInputError, match="max_turns"):
        WorkingBuffer(max_turns=0)


# ------------------------------------------------------------------------------------------------ stores (both)
def test_store_round_trip_trim_and_limit(make_store):
    store = make_store(max_turns=5)
    assert isinstance(store, SessionStore)
    assert store.turns(K) == []
    conv = [_turn("user" if i % 2 == 0 else "assistant", f"第{i}句 turn {i}", f"2024-05-06T13:00:{i:02d}Z")
            for i in range(7)]
    assert store.append(K, conv[0]) == 1
    assert store.append(K, conv[1:]) == 5            # 7 turns, trimmed to the newest 5
    got = store.turns(K)
    assert got == conv[2:]
    assert store.turns(K, limit=2) == conv[5:]
    assert store.turns(SessionKey(user_id="u1", session_id="s2")) == []
    assert store.turns(SessionKey(user_id="u2", session_id="s1")) == []
    assert store.turns(SessionKey(user_id="u1", session_id="s1", tenant="other")) == []


def test_store_rejects_bad_turns_atomically(make_store):
    store = make_store()
    store.append(K, _turn("user", "first", NOW))
    with pytest.raises(InvalidInputError, match="turn 1: role"):
        store.append(K, [_turn("user", "ok", NOW), _turn("robot", "bad", NOW)])
    assert [t["content"] for t in store.turns(K)] == ["first"]
    with pytest.raises(InvalidInputError):
        store.append(K, [])
    with pytest.raises(ScopeError):
        SessionKey(user_id="", session_id="s")
    with pytest.raises(InvalidInputError, match="limit"):
        store.turns(K, limit=0)


def test_store_summary_and_clear(make_store):
    store = make_store()
    assert store.get_summary(K) is None
    store.set_summary(K, "林晓在杭州找两居室。", timestamp="2024-05-06T21:00:00+08:00")
    assert store.get_summary(K) == {"text": "林晓在杭州找两居室。", "timestamp": "2024-05-06T13:00:00Z"}
    store.append(K, _turn("user", "hello", NOW))
    store.clear(K)
    assert store.get_summary(K) is None and store.turns(K) == []
    with pytest.raises(InvalidInputError, match="summary: empty"):
        store.set_summary(K, " ")


def test_store_clear_user_forgets_every_session_of_one_user(make_store):
    store = make_store()
    mine = [SessionKey(user_id="u*", session_id=s) for s in ("s1", "s2:x")]
    others = [SessionKey(user_id="ux", session_id="s1"), SessionKey(user_id="u*x", session_id="s1"),
              SessionKey(user_id="u*", session_id="s1", tenant="acme")]  # a glob, a longer id, another tenant
    for k in mine + others:
        store.append(k, _turn("user", f"turn of {k}", NOW))
        store.set_summary(k, f"summary of {k}")
    assert store.clear_user("default", "u*") >= 2
    assert all(store.turns(k) == [] and store.get_summary(k) is None for k in mine)
    assert all(store.turns(k) and store.get_summary(k) for k in others)
    assert store.clear_user("default", "nobody") == 0


@pytest.mark.parametrize("how", ["delete_all", "delete_all session", "delete", "gc"])
def test_a_purge_clears_the_session_buffers_quoting_it(db_path, make_store, how):
    """``add`` copies each stored turn into the session store; a purge must not leave that copy behind."""
    with Memory(db_path, embedder="hash") as mem:
        mem._sessions = make_store()  # the store ``session_url`` would open (Redis: a test prefix)
        expires = {"expires_at": "2024-05-01T00:00:00Z"} if how == "gc" else None
        mid = mem.add("My locker code is 4411.", user_id="u1", session_id="s1", metadata=expires)[0].memory.id
        mem.add("I like tea.", user_id="u1", session_id="s2")
        mem.add("I like coffee.", user_id="u2", session_id="s1")
        {"delete_all": lambda: mem.delete_all(user_id="u1", purge=True),
         "delete_all session": lambda: mem.delete_all(user_id="u1", session_id="s1", purge=True),
         "delete": lambda: mem.delete(mid, purge=True),
         "gc": lambda: mem.gc(user_id="u1", purge=True)}[how]()
        assert mem.sessions.turns(SessionKey("u1", "s1")) == []
        assert bool(mem.sessions.turns(SessionKey("u1", "s2"))) == (how != "delete_all")  # a whole-user purge
        assert mem.sessions.turns(SessionKey("u2", "s1"))  # another user's session stays
        mem.add("I like cake.", user_id="u1", session_id="s3")
        mem.delete_all(user_id="u1")  # a plain delete keeps the session buffers
        assert mem.sessions.turns(SessionKey("u1", "s3"))


# ------------------------------------------------------------------------------------------------ in-process only
def test_in_process_ttl_uses_injected_clock():
    clock = FrozenClock("2024-05-06T13:00:00Z")
    store = InProcessSessionStore(ttl_seconds=60, clock=clock)
    other = SessionKey(user_id="u1", session_id="other")
    store.set_summary(other, "s")                                         # expires at +60 s
    store.append(K, {"role": "user", "content": "hi"})
    assert store.turns(K)[0]["timestamp"] == "2024-05-06T13:00:00Z"     # default time from the injected clock
    clock.advance(seconds=59)
    store.append(K, {"role": "assistant", "content": "hello"})            # refreshes K's TTL to +119 s
    clock.advance(seconds=1)
    assert store.get_summary(other) is None
    clock.advance(seconds=58)
    assert [t["content"] for t in store.turns(K)] == ["hi", "hello"]
    clock.advance(seconds=1)
    assert store.turns(K) == []
    store.set_summary(other, "s2")
    assert set(store._sessions) == {other}                                # expired sessions were removed


def test_in_process_store_is_thread_safe():
    store = InProcessSessionStore(max_turns=10_000)

    def writer(n):
        def run():
            for i in range(100):
                store.append(K, {"role": "user", "content": f"w{n}-{i}"})
        return run

    run_concurrently([writer(n) for n in range(8)])
    got = [t["content"] for t in store.turns(K)]
    assert len(got) == 800
    for n in range(8):  # each writer's turns appear in its own order
        assert [c for c in got if c.startswith(f"w{n}-")] == [f"w{n}-{i}" for i in range(100)]


# ------------------------------------------------------------------------------------------------ redis only
def test_redis_key_layout_trim_and_ttl(redis_client, redis_prefix):
    store = _redis_store(redis_prefix, max_turns=3, ttl_seconds=3600)
    key = SessionKey(user_id="林晓", session_id="2024-05-06", tenant="acme")
    store.append(key, [_turn("user", f"第{i}条", NOW) for i in range(5)])
    tkey = f"{redis_prefix}:acme:林晓:2024-05-06:turns"
    assert redis_client.type(tkey) == b"list"
    assert [v.decode() for v in redis_client.lrange(tkey, 0, -1)] == [
        '{"role":"user","content":"第2条","timestamp":"2024-05-06T13:10:00Z"}',
        '{"role":"user","content":"第3条","timestamp":"2024-05-06T13:10:00Z"}',
        '{"role":"user","content":"第4条","timestamp":"2024-05-06T13:10:00Z"}',
    ]
    assert 3_590_000 < redis_client.pttl(tkey) <= 3_600_000
    redis_client.pexpire(tkey, 5_000)                 # as if most of the TTL had passed
    store.append(key, _turn("assistant", "好", NOW))  # ... an append refreshes it
    assert redis_client.pttl(tkey) > 3_590_000
    store.set_summary(key, "summary")
    assert 3_590_000 < redis_client.pttl(f"{redis_prefix}:acme:林晓:2024-05-06:summary") <= 3_600_000
    store.close()


def test_redis_ids_with_colons_do_not_collide(redis_prefix):
    store = _redis_store(redis_prefix)
    a, b = SessionKey(user_id="a:b", session_id="c"), SessionKey(user_id="a", session_id="b:c")
    store.append(a, _turn("user", "from a", NOW))
    store.append(b, _turn("user", "from b", NOW))
    assert [t["content"] for t in store.turns(a)] == ["from a"]
    assert [t["content"] for t in store.turns(b)] == ["from b"]
    store.close()


def test_redis_two_workers_share_sessions(redis_prefix):
    worker_a, worker_b = _redis_store(redis_prefix), _redis_store(redis_prefix)  # separate connection pools
    assert worker_a._r is not worker_b._r
    worker_a.append(K, _turn("user", "我想找房子。", "2024-05-06T13:00:00Z"))
    assert [t["content"] for t in worker_b.turns(K)] == ["我想找房子。"]
    worker_b.append(K, _turn("assistant", "Which city?", "2024-05-06T13:00:05Z"))
    worker_a.append(K, _turn("user", "杭州。", "2024-05-06T13:01:00Z"))
    worker_b.set_summary(K, "looking for a flat")
    assert [t["content"] for t in worker_a.turns(K)] == ["我想找房子。", "Which city?", "杭州。"]
    assert worker_a.turns(K) == worker_b.turns(K)
    assert worker_a.get_summary(K)["text"] == "looking for a flat"
    worker_a.close()
    worker_b.close()


def test_redis_session_expires_after_ttl(redis_client, redis_prefix):
    store = _redis_store(redis_prefix, ttl_seconds=0.5)
    store.append(K, _turn("user", "short-lived", NOW))
    store.set_summary(K, "short-lived summary")
    assert len(store.turns(K)) == 1
    time.sleep(1.0)
    assert store.turns(K) == [] and store.get_summary(K) is None
    assert list(redis_client.scan_iter(f"{redis_prefix}:*")) == []
    store.close()


def test_redis_concurrent_appends_from_two_workers(redis_prefix):
    stores = [_redis_store(redis_prefix, max_turns=1000) for _ in range(2)]

    def writer(n):
        def run():
            for i in range(50):
                stores[n].append(K, {"role": "user", "content": f"w{n}-{i}"})
        return run

    run_concurrently([writer(0), writer(1)])
    got = [t["content"] for t in stores[0].turns(K)]
    assert len(got) == 100
    for n in range(2):
        assert [c for c in got if c.startswith(f"w{n}-")] == [f"w{n}-{i}" for i in range(50)]
    for s in stores:
        s.close()


def test_make_session_store_picks_backend(redis_prefix):
    assert isinstance(make_session_store(None), InProcessSessionStore)
    assert isinstance(make_session_store("memory://", max_turns=3), InProcessSessionStore)
    store = make_session_store(REDIS_URL, prefix=redis_prefix, ttl_seconds=10)
    assert isinstance(store, RedisSessionStore) and store.ttl_seconds == 10
    store.close()


def test_unreachable_redis_is_a_provider_error_without_password():
    with pytest.raises(StoreError) as err:
        make_session_store("redis://user:s3cret@127.0.0.1:1/0", socket_timeout=1)
    assert isinstance(err.value, ProviderError)
    msg = str(err.value)
    assert "redis://user@127.0.0.1:1/0" in msg and "s3cret" not in msg
    lazy = RedisSessionStore("redis://:s3cret@127.0.0.1:1/0", socket_timeout=1)  # no I/O until used
    with pytest.raises(StoreError, match=r"redis://127\.0\.0\.1:1/0: append failed") as err2:
        lazy.append(K, _turn("user", "x", NOW))
    assert "s3cret" not in str(err2.value)
    with pytest.raises(ConfigError, match="unknown session store URL"):
        make_session_store("http://user:s3cret@example.com")


# ------------------------------------------------------------------------------------------------ build_context
def _seed_long_term(mem: Memory) -> dict[str, str]:
    """Two earlier sessions of long-term memories; returns {label: memory id}."""
    zh = mem.add([{"role": "user", "content": "我上周三刚搬到杭州，月租4500元。", "name": "林晓",
                   "timestamp": "2024-05-06T21:00:00+08:00"}], user_id="u1", session_id="old-zh")
    en = mem.add("My sister Ana is visiting Lisbon in July.", user_id="u1", session_id="old-en",
                 timestamp="2024-04-01T10:00:00Z")
    other = mem.add("月租4500元 is what user2 pays.", user_id="u2", timestamp="2024-05-01T10:00:00Z")
    return {"rent": zh[0].memory.id, "sister": en[0].memory.id, "other_user": other[0].memory.id}


SESSION = [
    _turn("user", "Hi, I need help with my budget.", "2024-05-10T09:00:00Z"),
    _turn("assistant", "Sure. What are your fixed costs?", "2024-05-10T09:00:05Z"),
    _turn("user", "房租和交通。", "2024-05-10T09:01:00Z"),
    _turn("assistant", "How much is the rent?", "2024-05-10T09:01:05Z"),
]
QUERY = "我的月租是多少？"


class _Spy:
    """A real Memory whose search calls are recorded."""

    def __init__(self, mem):
        self._mem, self.calls = mem, []

    def __getattr__(self, name):
        return getattr(self._mem, name)

    def search(self, query, **kw):
        self.calls.append((query, kw))
        return self._mem.search(query, **kw)


def test_context_sections_order_and_contents(mem, make_store):
    ids = _seed_long_term(mem)
    store = make_store()
    store.append(K, SESSION)
    store.set_summary(K, "User is planning a monthly budget.", timestamp="2024-05-10T09:00:30Z")
    spy = _Spy(mem)
    with frozen_clock("2024-05-10T09:02:00Z"):
        block = build_context(spy, user_id="u1", session_id="s1", query=QUERY, budget_tokens=400,
                              session_store=store)
    assert [s.name for s in block.sections] == ["summary", "memories", "recent_turns"]
    summary, memories, recent = block.sections
    assert summary.text == "## Session summary\nUser is planning a monthly budget."
    assert recent.text == "\n".join([
        "## Recent conversation",
        "user: Hi, I need help with my budget.",
        "assistant: Sure. What are your fixed costs?",
        "user: 房租和交通。",
        "assistant: How much is the rent?",
        "user: 我的月租是多少？",
    ])
    assert block.text == "\n\n".join([summary.text, memories.text, recent.text])
    # the rent memory is there, with its said date, its resolved event day (上周三 of Mon 6 May = Wed 1 May) and id
    assert block.memory_ids[0] == ids["rent"]
    assert set(block.memory_ids) <= {ids["rent"], ids["sister"]}               # never another user's memory
    assert memories.text.splitlines()[1] == (
        f"- [2024-05-06, about 2024-05-01] user (林晓): 我上周三刚搬到杭州，月租4500元。 (id {ids['rent']})")
    # search got the query, the user and the recent turns (not the current message) as context
    (q, kw), = spy.calls
    assert q == QUERY and kw["user_id"] == "u1" and kw["limit"] == 10
    assert [c["content"] for c in kw["context"]] == [t["content"] for t in SESSION]
    # token accounting
    assert block.used_tokens == count_tokens(block.text) == sum(s.tokens for s in block.sections)
    assert block.used_tokens <= 400 and block.budget_tokens == 400
    assert recent.items[-1]["tokens"] == 10                      # "user: 我的月租是多少？" = 1 + 1 + 7 + 1
    assert recent.items[-1]["weight"] == 1.0 and recent.items[0]["weight"] < 1.0
    assert block.dropped == {"turns": 0, "memories": 0, "summary": 0}


def test_context_minimal_budget_and_error(mem):
    _seed_long_term(mem)
    store = InProcessSessionStore()
    store.append(K, SESSION)
    # "## Recent conversation" = 5 tokens, "user: 我的月租是多少？" = 10 tokens
    block = build_context(mem, user_id="u1", session_id="s1", query=QUERY, budget_tokens=15, session_store=store)
    assert block.text == "## Recent conversation\nuser: 我的月租是多少？"
    assert block.used_tokens == 15 and block.memory_ids == []
    assert block.dropped["turns"] == 4
    with pytest.raises(InvalidInputError) as err:
        build_context(mem, user_id="u1", session_id="s1", query=QUERY, budget_tokens=14, session_store=store)
    assert "budget_tokens=14" in str(err.value) and "needs 15 tokens (10 for the message, 5" in str(err.value)


def test_context_budget_is_shared_and_unused_share_flows_back(mem):
    _seed_long_term(mem)
    store = InProcessSessionStore()
    long_session = [_turn("user" if i % 2 == 0 else "assistant", f"Turn number {i}: we talk about rent and costs.",
                          f"2024-05-10T09:{i:02d}:00Z") for i in range(30)]
    store.append(K, long_session)
    buf = WorkingBuffer(max_turns=100)
    with frozen_clock("2024-05-10T10:00:00Z"):
        with_mem = build_context(mem, user_id="u1", session_id="s1", query=QUERY, budget_tokens=150,
                                 session_store=store, buffer=buf)
        no_mem = build_context(mem, user_id="u1", session_id="s1", query=QUERY, budget_tokens=150,
                               session_store=store, buffer=buf, memory_limit=0)
    for block in (with_mem, no_mem):
        turns = block.section("recent_turns").items
        shown = [t["content"] for t in turns[:-1]]
        assert shown == [t["content"] for t in long_session[len(long_session) - len(shown):]]  # contiguous suffix
        assert turns[-1]["content"] == QUERY
        assert block.used_tokens == count_tokens(block.text) <= 150
        assert block.dropped["turns"] == 30 - len(shown)
    assert with_mem.memory_ids and with_mem.section("memories") is not None
    assert no_mem.section("memories") is None
    n_with, n_without = len(with_mem.section("recent_turns").items), len(no_mem.section("recent_turns").items)
    assert n_without > n_with
    # without memories the turns fill the budget: the next older turn would not fit
    next_older = long_session[30 - (n_without - 1) - 1]
    assert no_mem.used_tokens + buf.cost(next_older) > 150


def test_context_does_not_repeat_current_message_or_shown_turns(mem):
    _seed_long_term(mem)
    store = InProcessSessionStore()
    turns = SESSION + [_turn("user", QUERY, "2024-05-10T09:02:00Z")]
    store.append(K, turns)
    mem.add(turns[2:3], user_id="u1", session_id="s1")                     # "房租和交通。" is also long-term
    with frozen_clock("2024-05-10T09:02:30Z"):
        block = build_context(mem, user_id="u1", session_id="s1", query=QUERY, budget_tokens=400,
                              session_store=store)
    recent = block.section("recent_turns")
    assert [t["content"] for t in recent.items] == [t["content"] for t in turns]
    assert [t["content"] for t in recent.items].count(QUERY) == 1
    assert recent.items[-1]["timestamp"] == "2024-05-10T09:02:00Z"        # the stored turn, not a copy
    texts = [i["text"] for i in block.section("memories").items]
    assert "房租和交通。" not in texts and block.dropped["memories"] >= 1


def test_context_decays_old_turns_and_summary(mem):
    store = InProcessSessionStore(ttl_seconds=10 * 86400)
    store.append(K, [_turn("user", "Two days ago.", "2024-05-08T09:00:00Z"),
                     _turn("assistant", "Six hours ago.", "2024-05-10T03:00:00Z")])
    store.set_summary(K, "stale summary", timestamp="2024-05-08T09:00:00Z")
    with frozen_clock("2024-05-10T09:00:00Z"):
        block = build_context(mem, user_id="u1", session_id="s1", query="And now?", budget_tokens=200,
                              session_store=store)
    recent = block.section("recent_turns")
    assert [(t["content"], t["weight"]) for t in recent.items] == [("Six hours ago.", 0.5), ("And now?", 1.0)]
    assert block.section("summary") is None
    assert block.dropped == {"turns": 1, "memories": 0, "summary": 1}


def test_context_scopes_session_by_memory_tenant(db_path):
    store = InProcessSessionStore()
    store.append(K, _turn("user", "default-tenant turn", NOW))
    with Memory(db_path, embedder="hash", tenant="acme") as acme:
        block = build_context(acme, user_id="u1", session_id="s1", query="hello", budget_tokens=100,
                              session_store=store)
    assert [t["content"] for t in block.section("recent_turns").items] == ["hello"]
    with pytest.raises(ScopeError):
        build_context(acme, user_id="", session_id="s1", query="hello", budget_tokens=100, session_store=store)


def test_context_with_two_redis_workers(mem, redis_prefix):
    ids = _seed_long_term(mem)
    worker_a, worker_b = _redis_store(redis_prefix), _redis_store(redis_prefix)
    worker_a.append(K, SESSION)
    worker_a.append(K, _turn("user", QUERY, "2024-05-10T09:02:00Z"))
    with frozen_clock("2024-05-10T09:02:30Z"):
        block = build_context(mem, user_id="u1", session_id="s1", query=QUERY, budget_tokens=300,
                              session_store=worker_b)
    assert [t["content"] for t in block.section("recent_turns").items] == [t["content"] for t in SESSION] + [QUERY]
    assert ids["rent"] in block.memory_ids
    worker_a.close()
    worker_b.close()


def test_context_rejects_bad_arguments(mem):
    store = InProcessSessionStore()
    for kwargs, message in [({"budget_tokens": 0}, "budget_tokens"), ({"memory_share": 1.5}, "memory_share"),
                            ({"memory_limit": -1}, "memory_limit"), ({"query": "  "}, "query: empty")]:
        args = {"user_id": "u1", "session_id": "s1", "query": "hi", "budget_tokens": 50, "session_store": store,
                **kwargs}
        with pytest.raises(InvalidInputError, match=message):
            build_context(mem, **args)
