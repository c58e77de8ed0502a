"""The web inspector at /ui, end to end: a real uvicorn server (the ``api`` fixture of conftest.py) driven
through real headless Chromium (Debian's ``chromium``) with Playwright's Python package.

No browser is downloaded: Playwright launches the system binary (``executable_path``). Without a chromium
binary (or without the playwright package) the browser tests skip, unless ``CI`` or
``ANCHORMEM_REQUIRE_BROWSER`` is set, in which case they fail. Screenshots go to ``test-artifacts/ui/``
(gitignored), the docs' screens too (``test-artifacts/ui/docs/``): a test run leaves the tree clean.
``python scripts/ui_screenshots.py`` refreshes ``docs/ui/*.png`` (it runs ``test_screens_for_the_docs`` with
``ANCHORMEM_UI_DOCS_SHOTS`` set to docs/ui).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from pathlib import Path

import httpx
import pytest

try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    expect = sync_playwright = None

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "ui"
T0 = "2025-03-10T09:00:00Z"


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


REQUIRED = _flag("CI") or _flag("ANCHORMEM_REQUIRE_BROWSER")


def _chromium() -> str | None:
    for name in (os.environ.get("ANCHORMEM_CHROMIUM"), "chromium", "chromium-browser"):
        path = shutil.which(name) if name else None
        if path:
            return path
    return None


def _unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"{reason}; CI or ANCHORMEM_REQUIRE_BROWSER is set, so the browser test must run",
                    pytrace=False)
    pytest.skip(reason)


def _uid() -> str:
    return "ui-" + uuid.uuid4().hex[:10]


# ----------------------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def browser():
    exe = _chromium()
    if exe is None:
        _unavailable("no chromium binary on PATH (apt-get install chromium, or set ANCHORMEM_CHROMIUM)")
    if sync_playwright is None:
        _unavailable("the playwright package is not installed (pip install -e '.[dev]')")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    expect.set_options(timeout=20_000)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True,
                              args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"])
        yield b
        b.close()


class Page:
    """A fresh browser context and page; records dialogs and uncaught page errors."""

    def __init__(self, browser, api) -> None:
        self.api = api
        self.ctx = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
        self.page = self.ctx.new_page()
        self.page.set_default_timeout(20_000)
        self.dialogs: list[str] = []
        self.accept_dialogs = True
        self.errors: list[str] = []
        self.page.on("dialog", self._dialog)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        if self.accept_dialogs:
            dialog.accept()
        else:
            dialog.dismiss()

    def open(self, key: str, user: str) -> None:
        """Load /ui, enter the key and the user id, wait for the memory list."""
        p = self.page
        p.goto(self.api.url + "/ui")
        expect(p.locator("body")).to_have_attribute("data-ready", "true")
        p.fill("#api-key", key)
        p.click("#key-save")
        expect(p.locator("#key-status")).to_contain_text("key set")
        p.fill("#user-id", user)
        p.click("#user-load")
        expect(p.locator("#memories-count")).to_contain_text(f"of {user}")

    def tab(self, name: str) -> None:
        self.page.click(f"#tabs [data-tab={name}]")
        expect(self.page.locator(f"#tab-{name}")).to_be_visible()

    def shot(self, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 1000
        return path


@pytest.fixture
def ui(browser, api):
    page = Page(browser, api)
    yield page
    page.ctx.close()
    assert page.errors == [], page.errors


def _seed(api, user: str, items: list, role: str = "writer") -> list[dict]:
    """Add each item (a string or a message list) through the API; returns the user's memories (API view)."""
    with api.client("acme", role) as c:
        for it in items:
            body = {"messages": it, "user_id": user, "timestamp": T0, "session_id": "s1"}
            r = c.post("/v1/memories", json=body)
            assert r.status_code == 201, r.text
        return c.get("/v1/memories", params={"user_id": user}).json()["memories"]


# ----------------------------------------------------------------------------------------------- serving
def test_inspector_is_served_without_a_key_and_embeds_none(api):
    r = httpx.get(api.url + "/ui", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "ui/"
    page = httpx.get(api.url + "/ui/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert '<script src="app.js"' in page.text and 'href="style.css"' in page.text
    bodies = [page.text]
    for name, media in (("app.js", "text/javascript"), ("style.css", "text/css")):
        r = httpx.get(f"{api.url}/ui/{name}")
        assert r.status_code == 200 and r.headers["content-type"].startswith(media), name
        bodies.append(r.text)
    # no HTML sink in the script: user data reaches the page as text only
    assert not re.search(r"\.(inner|outer)HTML|insertAdjacentHTML|document\.write|eval\(", bodies[1])
    assert "sessionStorage" in bodies[1] and "localStorage" not in bodies[1]
    for key in api.key.values():  # no API key (nor its secret part) is ever in a served file
        assert all(key not in b and key.split("_", 2)[2] not in b for b in bodies)
    for bad in ("nope.js", "..%2Froutes.py", "ui_routes.py", "index.htm"):
        r = httpx.get(f"{api.url}/ui/{bad}")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", bad
    assert not any(p.startswith("/ui") for p in httpx.get(api.url + "/openapi.json").json()["paths"])


# ----------------------------------------------------------------------------------------------- browser
def test_list_search_history_edit_delete(ui, api):
    user = _uid()
    mems = _seed(api, user, ["I moved to Lisbon last month.",
                             [{"role": "user", "content": "My sister Ana lives in Berlin and works as a nurse.",
                               "name": "Maya"}],
                             "我最喜欢的茶是龙井。"])
    # 4: Ana's home is "Berlin", a fact of its own beside the turn (its words end at "and works…": claims.value_head)
    assert len(mems) == 4
    ui.open(api.key[("acme", "writer")], user)
    p = ui.page
    rows = p.locator("#memories-body tr")
    expect(rows).to_have_count(4)
    for m in mems:
        row = p.locator(f"#memories-body tr[data-id='{m['id']}']")
        expect(row.locator("td.memtext button.open")).to_have_text(m["text"])
        expect(row.locator("td.kind")).to_have_text(m["kind"])
        expect(row.locator("td.source")).to_have_text(m["source"])
        expect(row.locator("td.speaker")).to_have_text(m["speaker"] or "—")
        expect(row.locator("td.created")).to_have_text(m["created_at"])
        expect(row.locator("td.valid")).to_have_text(f"{m['valid_from']} → {m['valid_to'] or 'now'}")
        expect(row.locator("td.confidence")).to_have_text(f"{m['confidence']:.2f}")
        for lab in m["labels"]:
            expect(row.locator("td.labels")).to_contain_text(lab["domain"])
    assert any(m["speaker"] == "Maya" for m in mems)
    ui.shot("memories")

    # search (English and Chinese): the page shows the API's top hit, its score and explain signals
    ui.tab("search")
    with api.client("acme", "reader") as c:
        for query in ("Where does my sister live?", "龙井"):
            hits = c.post("/v1/search", json={"query": query, "user_id": user, "limit": 10}).json()["hits"]
            p.fill("#search-query", query)
            with p.expect_response(lambda r: r.url.endswith("/v1/search")) as resp:
                p.click("#search-go")
            got = resp.value.json()["hits"]  # what the page received (scores move a little per call)
            first = p.locator("#search-results li.hit").first
            expect(first).to_have_attribute("data-id", hits[0]["memory"]["id"])
            assert [h["memory"]["id"] for h in got] == [h["memory"]["id"] for h in hits]
            expect(p.locator("#search-results li.hit")).to_have_count(len(hits))
            expect(first.locator(".score")).to_have_text(f"score {got[0]['score']:.4f}")
            for signal in ("dense", "bm25", "final"):
                v = got[0]["explain"][signal]  # integers (ranks, or an exact 0) show as integers; null as a dash
                shown = "—" if v is None else str(int(v)) if float(v).is_integer() else f"{v:.4f}"
                expect(first.locator(f"table.explain td[data-signal={signal}]")).to_have_text(shown)
    assert "龙井" in hits[0]["memory"]["text"]
    ui.shot("search")

    # open a memory: history and provenance
    lisbon = next(m for m in mems if m["text"].startswith("I moved"))
    assert lisbon["event_time"] is not None
    ui.tab("memories")
    p.click(f"#memories-body tr[data-id='{lisbon['id']}'] button.open")
    expect(p.locator("#detail")).to_be_visible()
    expect(p.locator("#detail-text")).to_have_text(lisbon["text"])
    expect(p.locator("#history-body tr")).to_have_count(1)
    expect(p.locator("#history-body tr td.event")).to_have_text("ADD")
    prov = p.locator("#detail-provenance")
    expect(prov.locator("dd[data-field=source_text]")).to_have_text(lisbon["source_text"])
    expect(prov.locator("dd[data-field=source_message_ids]")).to_have_text(", ".join(lisbon["source_message_ids"]))
    expect(prov.locator("dd[data-field=event_time]")).to_contain_text(lisbon["event_time"])

    # edit: the new text shows in the detail, the history and the list, and the API agrees
    new_text = "I moved to Porto last month."
    p.fill("#edit-text", new_text)
    p.fill("#edit-reason", "typo")
    p.click("#edit-save")
    expect(p.locator("#detail-text")).to_have_text(new_text)
    expect(p.locator("#history-body tr")).to_have_count(2)
    update = p.locator("#history-body tr[data-event=UPDATE]")
    expect(update.locator("td.memtext").first).to_have_text(lisbon["text"])
    expect(update).to_contain_text("typo")
    expect(p.locator(f"#memories-body tr[data-id='{lisbon['id']}'] button.open")).to_have_text(new_text)
    with api.client("acme", "reader") as c:
        assert c.get(f"/v1/memories/{lisbon['id']}").json()["text"] == new_text
    ui.shot("detail")

    # delete: dismissing the confirm keeps it, accepting deletes it
    ui.accept_dialogs = False
    p.click("#delete-btn")
    expect(p.locator("#status")).to_have_text("delete cancelled")
    assert ui.dialogs and ui.dialogs[-1].startswith("confirm: Delete this memory?") and new_text in ui.dialogs[-1]
    with api.client("acme", "reader") as c:
        assert c.get(f"/v1/memories/{lisbon['id']}").status_code == 200
    ui.accept_dialogs = True
    p.click("#delete-btn")
    expect(p.locator("#detail")).to_be_hidden()
    expect(rows).to_have_count(3)
    expect(p.locator(f"#memories-body tr[data-id='{lisbon['id']}']")).to_have_count(0)
    assert len(ui.dialogs) == 2
    with api.client("acme", "reader") as c:
        assert c.get(f"/v1/memories/{lisbon['id']}").json()["error"]["code"] == "not_found"


def test_review_queue_approve_and_reject(ui, api):
    user = _uid()
    with api.client("acme", "writer") as c:
        def add(text: str, ts: str) -> list[dict]:
            r = c.post("/v1/memories", json={"messages": text, "user_id": user, "timestamp": ts})
            assert r.status_code == 201, r.text
            return r.json()["events"]

        add("My favourite tea is oolong.", "2024-03-01T09:00:00Z")
        tea = add("Maybe my favourite tea is green tea.", "2024-03-31T09:00:00Z")
        add("My phone number is 555-0100.", "2024-03-01T09:00:00Z")
        phone = add("My phone number is 555-0199.", "2024-03-31T09:00:00Z")
    assert [e["event"] for e in tea + phone] == ["REVIEW", "REVIEW"]
    tea_id, phone_id = tea[0]["review_id"], phone[0]["review_id"]

    ui.open(api.key[("acme", "writer")], user)
    p = ui.page
    ui.tab("review")
    items = p.locator("#review-list li.review")
    expect(items).to_have_count(2)
    tea_item = p.locator(f"li.review[data-id='{tea_id}']")
    expect(tea_item.locator(".new-text")).to_have_text(tea[0]["memory"]["text"])
    expect(tea_item.locator(".old-text")).to_have_text("My favourite tea is oolong.")  # the text, not its id
    expect(p.locator(f"li.review[data-id='{tea_id}']")).to_contain_text("confidence 0.60")
    ui.shot("review")

    p.click(f"li.review[data-id='{tea_id}'] button.approve")
    expect(items).to_have_count(1)
    expect(p.locator("#status")).to_contain_text("approved")
    p.click(f"li.review[data-id='{phone_id}'] button.reject")
    expect(items).to_have_count(0)
    expect(p.locator("#status")).to_contain_text("rejected")

    with api.client("acme", "reader") as c:
        done = {r["id"]: r["status"] for r in c.get("/v1/review", params={"user_id": user, "status": "all"})
                .json()["items"]}
        texts = [m["text"] for m in c.get("/v1/memories", params={"user_id": user}).json()["memories"]]
    assert done == {tea_id: "approved", phone_id: "rejected"}
    assert "Maybe my favourite tea is green tea." in texts and "My phone number is 555-0199." not in texts

    p.select_option("#review-status", "all")
    expect(items).to_have_count(2)
    expect(p.locator(f"li.review[data-id='{tea_id}']")).to_have_attribute("data-status", "approved")
    expect(p.locator(f"li.review[data-id='{phone_id}']")).to_have_attribute("data-status", "rejected")
    ui.tab("memories")
    expect(p.locator("#memories-body tr", has_text="Maybe my favourite tea is green tea.")).to_have_count(1)
    # the approved change superseded the oolong fact: hidden by default, shown (marked) with the toggle
    oolong = p.locator("#memories-body tr", has_text="My favourite tea is oolong.")
    expect(oolong).to_have_count(0)
    p.check("#include-superseded")
    expect(oolong).to_have_count(1)
    with api.client("acme", "reader") as c:
        everything = c.get("/v1/memories", params={"user_id": user, "include_superseded": "true"}).json()
    old = next(m for m in everything["memories"] if m["text"] == "My favourite tea is oolong.")
    assert old["superseded_by"] and old["valid_to"]
    expect(oolong).to_have_class("superseded")
    expect(oolong.locator("td.memtext .tag")).to_have_text(f"superseded by {old['superseded_by']}")
    expect(oolong.locator("td.valid")).to_have_text(f"{old['valid_from']} → {old['valid_to']}")
    ui.shot("superseded")


def test_export_downloads_json_and_forget_needs_the_typed_user_id(ui, api):
    user = _uid()
    mems = _seed(api, user, ["I am allergic to peanuts.", "我对花生过敏。"])
    ui.open(api.key[("acme", "admin")], user)
    p = ui.page
    ui.tab("data")
    expect(p.locator("#data-user")).to_have_text(user)
    with p.expect_download() as info:
        p.click("#export-btn")
    download = info.value
    assert download.suggested_filename == f"anchormem-export-{user}.json"
    doc = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert doc["format"] == "anchormem.export/1" and doc["tenant"] == "acme"
    assert sorted(m["text"] for m in doc["memories"]) == sorted(m["text"] for m in mems)
    expect(p.locator("#status")).to_have_text(f"exported {len(mems)} memories of {user}")

    button = p.locator("#forget-btn")
    expect(button).to_be_disabled()
    p.fill("#forget-confirm", user[:-1])
    expect(button).to_be_disabled()
    p.fill("#forget-confirm", user + " ")
    expect(button).to_be_disabled()
    p.fill("#forget-confirm", user)
    expect(button).to_be_enabled()
    ui.shot("export-forget")
    with api.client("acme", "reader") as c:  # nothing was deleted while typing
        assert len(c.get("/v1/memories", params={"user_id": user}).json()["memories"]) == len(mems)
    button.click()
    expect(p.locator("#forget-result")).to_contain_text(f"memories: {len(mems)}")
    expect(button).to_be_disabled()
    with api.client("acme", "reader") as c:
        assert c.get("/v1/memories", params={"user_id": user}).json() == {"memories": []}
    ui.tab("memories")
    expect(p.locator("#memories-body tr")).to_have_count(0)


def test_memory_text_is_never_parsed_as_html(ui, api):
    user = _uid()
    payloads = ["<img src=x onerror=alert(1)>", '"><svg onload=alert(2)></svg>', "<script>alert(3)</script> 你好"]
    mems = _seed(api, user, payloads)
    assert sorted(m["text"] for m in mems) == sorted(payloads)
    ui.open(api.key[("acme", "writer")], user)
    p = ui.page
    for m in mems:
        expect(p.locator(f"#memories-body tr[data-id='{m['id']}'] button.open")).to_have_text(m["text"])
    img = next(m for m in mems if m["text"].startswith("<img"))
    p.click(f"#memories-body tr[data-id='{img['id']}'] button.open")
    expect(p.locator("#detail-text")).to_have_text(img["text"])
    expect(p.locator("#detail-provenance dd[data-field=source_text]")).to_have_text(img["text"])
    expect(p.locator("#history-body tr td.memtext").nth(1)).to_have_text(img["text"])
    assert p.locator("#edit-text").input_value() == img["text"]
    ui.tab("search")
    p.fill("#search-query", "img src onerror alert")
    p.click("#search-go")
    expect(p.locator("#search-results li.hit")).to_have_count(3)
    p.wait_for_timeout(300)  # give any injected handler a chance to fire
    assert ui.dialogs == []
    assert p.locator("img").count() == 0 and p.locator("svg").count() == 0
    assert p.locator("script").count() == 1  # only the page's own app.js
    ui.shot("xss")


def test_reader_key_cannot_edit_and_errors_are_shown(ui, api):
    user = _uid()
    mems = _seed(api, user, ["I bought a red bicycle for commuting."])
    mid = mems[0]["id"]
    key = api.key[("acme", "reader")]
    with httpx.Client(base_url=api.url, headers={"Authorization": f"Bearer {key}"}) as c:
        denied = c.patch(f"/v1/memories/{mid}", json={"text": "changed"})
    assert denied.status_code == 403
    message = denied.json()["error"]["message"]

    ui.open(key, user)
    p = ui.page
    assert p.evaluate("sessionStorage.getItem('anchormem.apiKey')") == key
    assert p.evaluate("localStorage.length") == 0 and key not in p.content()
    expect(p.locator("#memories-body tr")).to_have_count(1)
    p.click(f"#memories-body tr[data-id='{mid}'] button.open")
    p.fill("#edit-text", "I bought a blue bicycle.")
    p.click("#edit-save")
    error = p.locator("#error")
    expect(error).to_be_visible()
    expect(error).to_have_text(f"403 forbidden: {message}")
    ui.shot("reader-403")
    p.click("#delete-btn")  # the confirm dialog is accepted; the API still refuses
    expect(error).to_contain_text("403 forbidden")
    with api.client("acme", "reader") as c:
        assert c.get(f"/v1/memories/{mid}").json()["text"] == mems[0]["text"]

    # a wrong key: the 401 envelope is shown; another tenant's key sees none of this user's memories
    p.fill("#api-key", "amk_0000000000000000_wrong")
    p.click("#key-save")
    expect(error).to_contain_text("401 unauthorized")
    p.fill("#api-key", api.key[("globex", "admin")])
    p.click("#key-save")
    p.click("#user-load")
    expect(p.locator("#memories-count")).to_have_text(f"0 memories of {user}")
    expect(error).to_be_hidden()


# ----------------------------------------------------------------------------------------------- CJK and docs
DOCS_SHOTS_ENV = "ANCHORMEM_UI_DOCS_SHOTS"  # where test_screens_for_the_docs writes; scripts/ui_screenshots.py sets it


def _docs_shots() -> Path:
    """``$ANCHORMEM_UI_DOCS_SHOTS`` (the docs' folder, when refreshing them), else ``test-artifacts/ui/docs``."""
    return Path(os.environ.get(DOCS_SHOTS_ENV) or ARTIFACTS / "docs")

_GLYPHS_JS = """([sel, chars]) => {
  // draw each character alone in the element's computed font; return one bitmap signature per character
  const font = getComputedStyle(document.querySelector(sel)).font;
  const c = document.createElement("canvas");
  c.width = 64; c.height = 64;
  const ctx = c.getContext("2d", { willReadFrequently: true });
  return chars.map((ch) => {
    ctx.clearRect(0, 0, 64, 64);
    ctx.font = font.replace(/\\d+(\\.\\d+)?px/, "40px");
    ctx.fillStyle = "#000";
    ctx.fillText(ch, 4, 48);
    const d = ctx.getImageData(0, 0, 64, 64).data;
    let ink = 0, sig = 0;
    for (let i = 3; i < d.length; i += 4) { if (d[i] > 128) { ink += 1; sig = (sig * 31 + i) % 1000000007; } }
    return [ink, sig];
  });
}"""


def test_chinese_renders_as_glyphs_not_boxes(ui, api):
    """Each Chinese character of a memory draws its own glyph in the page's font: distinct bitmaps with ink, none
    equal to the missing-glyph box (what a private-use code point draws)."""
    user = _uid()
    text = "我最喜欢的茶是龙井。"
    mems = _seed(api, user, [text])
    ui.open(api.key[("acme", "writer")], user)
    p = ui.page
    cell = f"#memories-body tr[data-id='{mems[0]['id']}'] button.open"
    expect(p.locator(cell)).to_have_text(text)
    chars = list("我喜欢茶龙井")
    sigs = p.evaluate(_GLYPHS_JS, [cell, chars + ["\ue000", "\ue001"]])
    glyphs, boxes = sigs[:-2], sigs[-2:]
    assert all(ink > 40 for ink, _ in glyphs), sigs
    assert len({tuple(s) for s in glyphs}) == len(chars), sigs  # tofu draws one box for every character
    assert not {tuple(s) for s in glyphs} & {tuple(s) for s in boxes}, sigs
    family = p.evaluate("getComputedStyle(document.documentElement).fontFamily")
    assert "WenQuanYi Zen Hei" in family and "Noto Sans CJK SC" in family


def test_screens_for_the_docs(ui, api):
    """One screenshot per screen for docs/ui.md (viewport only, to keep the PNGs small): the first screen, the
    memory list, search with its explain table, a memory's detail, the review queue, export/forget. Written to
    test-artifacts/ui/docs/ unless ``$ANCHORMEM_UI_DOCS_SHOTS`` names another folder (scripts/ui_screenshots.py:
    docs/ui/)."""
    shots = _docs_shots()
    shots.mkdir(parents=True, exist_ok=True)
    p = ui.page
    p.set_viewport_size({"width": 1100, "height": 640})

    def shot(name: str) -> None:
        path = shots / f"{name}.png"
        p.screenshot(path=str(path))
        assert 1000 < path.stat().st_size < 400_000, (name, path.stat().st_size)

    p.goto(api.url + "/ui")
    expect(p.locator("#empty-state")).to_be_visible()
    expect(p.locator("#empty-state")).to_contain_text("paste an API key")
    shot("start")
    user = _uid()
    with api.client("acme", "writer") as c:
        for t, ts in (("My favourite tea is oolong.", "2024-03-01T09:00:00Z"),
                      ("Maybe my favourite tea is green tea.", "2024-03-31T09:00:00Z")):
            c.post("/v1/memories", json={"messages": t, "user_id": user, "timestamp": ts}).raise_for_status()
    _seed(api, user, ["I moved to Lisbon last month.", "我最喜欢的茶是龙井。", "我女儿叫朵朵，今年五岁。"])
    ui.open(api.key[("acme", "admin")], user)
    expect(p.locator("#empty-state")).to_be_hidden()
    shot("memories")
    ui.tab("search")
    p.fill("#search-query", "龙井")
    p.click("#search-go")
    expect(p.locator("#status")).to_contain_text("hits")
    expect(p.locator("#search-results table.explain").first).to_be_visible()
    shot("search")
    ui.tab("review")
    expect(p.locator("#status")).to_have_text("")  # the search tab's status does not follow
    expect(p.locator("li.review .old-text").first).to_have_text("My favourite tea is oolong.")
    shot("review")
    ui.tab("data")
    shot("export-forget")
    ui.tab("memories")
    p.click("#memories-body tr button.open >> nth=0")
    expect(p.locator("#detail")).to_be_visible()
    p.locator("#detail").scroll_into_view_if_needed()
    shot("detail")
    # a user without memories: the list says what to do
    p.fill("#user-id", _uid())
    p.click("#user-load")
    expect(p.locator("#memories-empty")).to_be_visible()
