// anchormem web inspector: plain JavaScript over the authenticated /v1 REST API.
// Security rules kept throughout: user data only ever reaches the page through textContent / attribute
// setters (never innerHTML), and the API key lives only in sessionStorage and the Authorization header.
"use strict";

(() => {
  const KEY_STORE = "anchormem.apiKey";
  const API_BASE = new URL("../v1/", document.baseURI);  // the page is served at <prefix>/ui/
  const PAGE = 100;

  const state = { user: "", offset: 0, memory: null };
  const $ = (id) => document.getElementById(id);

  // ------------------------------------------------------------------------------------------- helpers
  /** Build an element; children are nodes or strings (strings become text nodes, never HTML). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "dataset") Object.assign(node.dataset, v);
      else if (k === "onclick") node.addEventListener("click", v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === undefined || c === null) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  const dash = (v) => (v === undefined || v === null || v === "" ? "—" : String(v));
  const num = (v, digits = 4) => (typeof v === "number" ? v.toFixed(digits) : dash(v));
  const labelText = (l) => [l.domain, l.topic, l.intent].filter(Boolean).join("/") +
    (typeof l.score === "number" ? ` (${l.score.toFixed(2)})` : "") + (l.primary ? " *" : "");

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  function showError(err) {
    const box = $("error");
    if (err instanceof ApiError) {
      box.textContent = (err.status ? `${err.status} ` : "") + `${err.code}: ${err.message}`;
    } else {
      box.textContent = `error: ${err && err.message ? err.message : String(err)}`;
    }
    box.hidden = false;
    $("status").textContent = "";
  }

  function clearError() {
    $("error").hidden = true;
    $("error").textContent = "";
  }

  function say(text) {
    $("status").textContent = text;
  }

  /** Run an async UI action: clear the old error, show any new one. */
  function action(fn) {
    return async (ev) => {
      if (ev && ev.preventDefault) ev.preventDefault();
      clearError();
      try {
        await fn(ev);
      } catch (err) {
        showError(err);
      }
    };
  }

  // ------------------------------------------------------------------------------------------- the API
  const getKey = () => sessionStorage.getItem(KEY_STORE) || "";

  async function api(method, path, { query, body } = {}) {
    const key = getKey();
    if (!key) throw new ApiError(0, "no_key", "enter an API key first");
    const url = new URL(path, API_BASE);
    for (const [k, v] of Object.entries(query || {})) {
      if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, String(v));
    }
    const headers = { Accept: "application/json", Authorization: `Bearer ${key}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let resp;
    try {
      resp = await fetch(url, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store", credentials: "omit",
      });
    } catch (err) {
      throw new ApiError(0, "network_error", `could not reach the API (${err.message})`);
    }
    const raw = await resp.text();
    let data = null;
    try {
      data = raw ? JSON.parse(raw) : null;
    } catch (_) {
      data = null;
    }
    if (!resp.ok) {
      const e = data && data.error ? data.error : { code: `http_${resp.status}`, message: raw.slice(0, 300) };
      throw new ApiError(resp.status, String(e.code), String(e.message));
    }
    return data;
  }

  function needUser() {
    if (!state.user) throw new ApiError(0, "no_user", "enter a user id and press Load");
    return state.user;
  }

  // ------------------------------------------------------------------------------------------- key and user
  function showKeyStatus() {
    const key = getKey();
    const id = key.startsWith("amk_") ? key.split("_")[1] : "";
    $("key-status").textContent = key ? `key set${id ? ` (id ${id})` : ""}, this tab only` : "no key";
  }

  function saveKey(ev) {
    ev.preventDefault();
    const key = $("api-key").value.trim();
    $("api-key").value = "";
    clearError();
    if (key) sessionStorage.setItem(KEY_STORE, key);
    showKeyStatus();
    if (state.user) reloadAll();
  }

  function forgetKey() {
    sessionStorage.removeItem(KEY_STORE);
    showKeyStatus();
    say("key forgotten");
  }

  const loadUser = action(async () => {
    const user = $("user-id").value.trim();
    if (!user) throw new ApiError(0, "no_user", "enter a user id");
    state.user = user;
    $("empty-state").hidden = true;
    $("data-user").textContent = user;
    closeDetail();
    $("search-results").replaceChildren();
    $("forget-confirm").value = "";
    $("forget-result").textContent = "";
    updateForget();
    await Promise.all([loadMemories(), loadReview()]);
  });

  const reloadAll = action(async () => {
    await Promise.all([loadMemories(), loadReview()]);
  });

  // ------------------------------------------------------------------------------------------- tabs
  function showTab(name) {
    say("");  // a status belongs to the tab it was said on
    clearError();
    for (const b of document.querySelectorAll("#tabs [data-tab]")) {
      b.setAttribute("aria-selected", String(b.dataset.tab === name));
    }
    for (const s of document.querySelectorAll("main > .tab")) s.hidden = s.id !== `tab-${name}`;
  }

  // ------------------------------------------------------------------------------------------- memories
  function openButton(m) {
    return el("button", { type: "button", class: "open", title: "open this memory", dataset: { id: m.id },
      onclick: action(() => openMemory(m.id)) }, m.text);
  }

  function memoryRow(m) {
    const valid = `${dash(m.valid_from)} → ${m.valid_to ? m.valid_to : "now"}`;
    const old = (m.claims || []).filter((c) => c.valid_to);
    return el("tr", { class: m.superseded_by || m.current === false ? "superseded" : null, dataset: { id: m.id } },
      el("td", { class: "memtext" }, openButton(m),
        m.superseded_by ? el("span", { class: "tag" }, `superseded by ${m.superseded_by}`) : null,
        !m.superseded_by && old.length ? el("span", { class: "tag" },
          `superseded: ${old.map((c) => `${c.slot.split("|").pop()} = ${c.value}`).join(", ")}`) : null),
      el("td", { class: "kind" }, dash(m.kind)),
      el("td", { class: "source" }, dash(m.source)),
      el("td", { class: "speaker" }, dash(m.speaker)),
      el("td", { class: "created" }, dash(m.created_at)),
      el("td", { class: "valid" }, valid),
      el("td", { class: "labels" }, (m.labels || []).map((l) => el("span", { class: "tag" }, labelText(l)))),
      el("td", { class: "confidence" }, num(m.confidence, 2)));
  }

  async function loadMemories(append = false) {
    const user = needUser();
    if (!append) state.offset = 0;
    const data = await api("GET", "memories", { query: {
      user_id: user, limit: PAGE, offset: state.offset,
      include_superseded: $("include-superseded").checked ? "true" : "false" } });
    const rows = data.memories.map(memoryRow);
    if (append) $("memories-body").append(...rows);
    else $("memories-body").replaceChildren(...rows);
    state.offset += data.memories.length;
    $("memories-more").hidden = data.memories.length < PAGE;
    $("memories-count").textContent = `${$("memories-body").children.length} memories of ${user}`;
    $("memories-empty").hidden = $("memories-body").children.length > 0;
  }

  // ------------------------------------------------------------------------------------------- search
  const signal = (v) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(4)) : dash(v));

  /** The score's signals as a small two-row table (names, values); nested values as "key value" pairs. */
  function explainTable(explain) {
    const entries = Object.entries(explain || {});
    const shown = (v) => {
      if (Array.isArray(v)) return v.map(shown).join(", ") || "—";
      if (v && typeof v === "object") {
        if (typeof v.domain === "string") return labelText(v);  // a label
        return Object.entries(v).map(([k, x]) => `${k} ${shown(x)}`).join("; ") || "—";
      }
      return signal(v);
    };
    return el("table", { class: "explain" },
      el("thead", {}, el("tr", {}, entries.map(([k]) => el("th", { scope: "col" }, k)))),
      el("tbody", {}, el("tr", {}, entries.map(([k, v]) => el("td", { dataset: { signal: k } }, shown(v))))));
  }

  async function runSearch() {
    const user = needUser();
    const query = $("search-query").value.trim();
    if (!query) throw new ApiError(0, "no_query", "type something to search for");
    const limit = Math.max(1, Math.min(100, parseInt($("search-limit").value, 10) || 10));
    const data = await api("POST", "search", { body: { query, user_id: user, limit } });
    $("search-results").replaceChildren(...data.hits.map((h) => el("li", { class: "hit", dataset: { id: h.memory.id } },
      el("div", { class: "hit-head" }, el("span", { class: "score" }, `score ${h.score.toFixed(4)}`), " ",
        openButton(h.memory)),
      el("div", { class: "muted" }, `${dash(h.memory.kind)} · ${dash(h.memory.source)} · ${dash(h.memory.created_at)}`),
      explainTable(h.explain))));
    say(`${data.hits.length} hits`);
  }

  // ------------------------------------------------------------------------------------------- one memory
  function fieldList(pairs) {
    return pairs.map(([k, v]) => [el("dt", {}, k), el("dd", { dataset: { field: k } }, v)]);
  }

  async function openMemory(id) {
    const [m, h] = await Promise.all([api("GET", `memories/${encodeURIComponent(id)}`),
      api("GET", `memories/${encodeURIComponent(id)}/history`)]);
    state.memory = m;
    $("detail-id").textContent = m.id;
    $("detail-text").textContent = m.text;
    $("detail-fields").replaceChildren(...fieldList([
      ["kind", dash(m.kind)], ["role", dash(m.role)], ["source", dash(m.source)], ["speaker", dash(m.speaker)],
      ["user / agent / session", `${dash(m.user_id)} / ${dash(m.agent_id)} / ${dash(m.session_id)}`],
      ["created_at", dash(m.created_at)], ["updated_at", dash(m.updated_at)],
      ["valid", `${dash(m.valid_from)} → ${m.valid_to ? m.valid_to : "now"}`],
      ["confidence", num(m.confidence, 2)],
      ["labels", (m.labels || []).map(labelText).join(", ") || "—"],
      ["entities", (m.entities || []).map((e) => `${e.type}: ${e.value}`).join(", ") || "—"],
      ["fact", m.fact ? `${m.fact.entity}.${m.fact.attribute} = ${m.fact.value}${m.fact.polarity < 0 ? " (not)" : ""}`
        : "—"],
      ["superseded_by", dash(m.superseded_by)], ["current", m.state === "scheduled" ? `not yet (scheduled from ${m.valid_from})` : m.current === false ? "no" : m.state === "partly_superseded" ? "yes (some claims superseded)" : "yes"],
      ["claims", (m.claims || []).map((c) => `${c.slot} = ${c.value}${c.polarity < 0 ? " (not)" : ""} `
        + `(${c.valid_to ? `superseded ${c.valid_to}` : "current"})`).join("; ") || "—"],
      ["expires_at", dash(m.expires_at)],
      ["metadata", Object.keys(m.metadata || {}).length ? JSON.stringify(m.metadata) : "—"],
    ]).flat());
    $("detail-provenance").replaceChildren(...fieldList([
      ["source_text", el("pre", { class: "memtext" }, m.source_text || "—")],
      ["source_message_ids", (m.source_message_ids || []).join(", ") || "—"],
      ["event_time", m.event_time ? `${m.event_time}${m.event_time_end ? ` → ${m.event_time_end}` : ""}` : "—"],
    ]).flat());
    $("history-body").replaceChildren(...h.history.map((e) => el("tr", { dataset: { event: e.event } },
      el("td", {}, String(e.version)), el("td", { class: "event" }, e.event),
      el("td", { class: "memtext" }, dash(e.old_text)), el("td", { class: "memtext" }, dash(e.new_text)),
      el("td", {}, dash(e.actor)), el("td", {}, dash(e.reason)), el("td", { class: "said" }, dash(e.said_at)),
      el("td", {}, dash(e.created_at)))));
    $("edit-text").value = m.text;
    $("edit-reason").value = "";
    $("delete-purge").checked = false;
    $("detail").hidden = false;
    $("detail").scrollIntoView({ block: "nearest" });
  }

  function closeDetail() {
    state.memory = null;
    $("detail").hidden = true;
  }

  async function saveEdit() {
    const m = state.memory;
    if (!m) return;
    const text = $("edit-text").value;
    if (!text.trim()) throw new ApiError(0, "invalid_input", "the text must not be empty");
    const reason = $("edit-reason").value.trim();
    await api("PATCH", `memories/${encodeURIComponent(m.id)}`, { body: reason ? { text, reason } : { text } });
    say("saved");
    await Promise.all([openMemory(m.id), state.user ? loadMemories() : null]);
  }

  async function deleteMemory() {
    const m = state.memory;
    if (!m) return;
    const short = m.text.length > 80 ? `${m.text.slice(0, 80)}…` : m.text;
    if (!window.confirm(`Delete this memory?\n\n${short}`)) {
      say("delete cancelled");
      return;
    }
    const purge = $("delete-purge").checked;
    await api("DELETE", `memories/${encodeURIComponent(m.id)}`, { query: { purge: purge ? "true" : "" } });
    closeDetail();
    say("deleted");
    if (state.user) await loadMemories();
  }

  // ------------------------------------------------------------------------------------------- review queue
  /** Old text (the memories it replaces) beside the proposed new text. */
  function compare(r, olds) {
    return el("div", { class: "compare" },
      el("div", { class: "old" }, el("h4", {}, "now stored"),
        olds.length ? olds.map((t) => el("div", { class: "memtext old-text" }, t))
          : el("div", { class: "muted" }, "nothing (a new fact)")),
      el("div", { class: "new" }, el("h4", {}, "proposed"), el("div", { class: "memtext new-text" }, r.proposed.text)));
  }

  function reviewItem(r, texts) {
    const pending = r.status === "pending";
    const decide = (verb) => action(async () => {
      await api("POST", `review/${encodeURIComponent(r.id)}/${verb}`);
      say(`${verb === "approve" ? "approved" : "rejected"}: ${r.proposed.text}`);
      await Promise.all([loadReview(), loadMemories()]);
    });
    return el("li", { class: `review ${r.status}`, dataset: { id: r.id, status: r.status } },
      compare(r, (r.targets || []).map((id) => texts.get(id) || `(memory ${id} no longer stored)`)),
      el("div", { class: "muted" }, `${r.status} · ${r.reason} · confidence ${num(r.proposed.confidence, 2)} · ` +
        `proposed ${dash(r.created_at)}`),
      pending ? el("div", { class: "toolbar" },
        el("button", { type: "button", class: "approve", onclick: decide("approve") }, "Approve"),
        el("button", { type: "button", class: "reject", onclick: decide("reject") }, "Reject"))
        : el("div", { class: "muted" }, `resolved ${dash(r.resolved_at)} by ${dash(r.resolved_by)}`));
  }

  async function loadReview() {
    const user = needUser();
    const status = $("review-status").value;
    const data = await api("GET", "review", { query: { user_id: user, status } });
    const ids = [...new Set(data.items.flatMap((r) => r.targets || []))];
    const texts = new Map();
    await Promise.all(ids.map(async (id) => {
      try {
        texts.set(id, (await api("GET", `memories/${encodeURIComponent(id)}`)).text);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 404) throw err;
      }
    }));
    $("review-list").replaceChildren(...data.items.map((r) => reviewItem(r, texts)));
    $("review-count").textContent = `${data.items.length} ${status === "all" ? "" : `${status} `}items`;
  }

  // ------------------------------------------------------------------------------------------- export, forget
  async function exportUser() {
    const user = needUser();
    const data = await api("GET", "export", { query: { user_id: user } });
    const blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const safe = user.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 64) || "user";
    const a = el("a", { href: url, download: `anchormem-export-${safe}.json`, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    say(`exported ${(data.memories || []).length} memories of ${user}`);
  }

  function updateForget() {
    $("forget-btn").disabled = !state.user || $("forget-confirm").value !== state.user;
  }

  async function forgetUser() {
    const user = needUser();
    if ($("forget-confirm").value !== user) {
      throw new ApiError(0, "not_confirmed", "type the user id exactly to confirm");
    }
    const data = await api("POST", "forget", { body: { user_id: user, purge: $("forget-purge").checked } });
    const counts = Object.entries(data.deleted || {}).map(([k, v]) => `${k}: ${v}`).join(", ");
    $("forget-result").textContent = `forgot ${user}: ${counts || "nothing stored"}`;
    $("forget-confirm").value = "";
    updateForget();
    say(`forgot ${user}`);
    closeDetail();
    await Promise.all([loadMemories(), loadReview()]);
  }

  // ------------------------------------------------------------------------------------------- wiring
  function init() {
    $("key-form").addEventListener("submit", saveKey);
    $("key-clear").addEventListener("click", forgetKey);
    $("user-form").addEventListener("submit", loadUser);
    for (const b of document.querySelectorAll("#tabs [data-tab]")) {
      b.addEventListener("click", () => showTab(b.dataset.tab));
    }
    $("include-superseded").addEventListener("change", action(() => loadMemories()));
    $("memories-refresh").addEventListener("click", action(() => loadMemories()));
    $("memories-more").addEventListener("click", action(() => loadMemories(true)));
    $("search-form").addEventListener("submit", action(runSearch));
    $("review-status").addEventListener("change", action(loadReview));
    $("review-refresh").addEventListener("click", action(loadReview));
    $("detail-close").addEventListener("click", closeDetail);
    $("edit-form").addEventListener("submit", action(saveEdit));
    $("delete-btn").addEventListener("click", action(deleteMemory));
    $("export-btn").addEventListener("click", action(exportUser));
    $("forget-confirm").addEventListener("input", updateForget);
    $("forget-btn").addEventListener("click", action(forgetUser));
    showKeyStatus();
    updateForget();
    document.body.dataset.ready = "true";
  }

  init();
})();
