// Relay team console client. Reads /console/api/* (signed in by the console's HttpOnly session
// cookie; a missing or ended session sends the browser to /console/login), renders with DOM nodes
// (never innerHTML), and manages the team's keys through the same handlers as /api/keys. Shared
// helpers come from ui.js (window.RelayUI), loaded before this file.
"use strict";
(() => {
  const PAGE_SIZE = 25;
  const { $, h, count, usd, ms, time, dateTime, statusClass, kv, toast, confirmAction, api, logControls } = window.RelayUI;
  const { getJson, sendJson } = api("/console/login");
  const page = document.body.dataset.page;
  let me;

  // ---- every page: who is signed in ---------------------------------------
  async function loadMe() {
    me = await getJson("/console/api/me");
    $("team-name").textContent = me.team.name;
    $("plan-pill").textContent = `${me.team.plan} plan`;
    return me;
  }

  $("sign-out").addEventListener("click", async () => {
    try {
      await sendJson("/console/logout", {});
    } finally {
      location.assign("/console/login");
    }
  });

  // ---- usage ----------------------------------------------------------------
  const RANGE_MS = { day: 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 };
  let range = "day";

  function setCard(key, value) {
    document.querySelector(`[data-card="${key}"] [data-value]`).textContent = value;
  }

  async function loadUsage() {
    const since = new Date(Date.now() - RANGE_MS[range]).toISOString();
    const u = await getJson(`/console/api/usage?since=${encodeURIComponent(since)}`);
    setCard("requests", count(u.requests));
    setCard("cost", usd(u.estimated_cost_usd));
    setCard("input", count(u.tokens.input));
    setCard("output", count(u.tokens.output));
    setCard("errors", count(u.errors));
    setCard("fallbacks", count(u.fallbacks));
    $("models").replaceChildren(
      ...(u.by_model.length
        ? u.by_model.map((m) =>
            h("tr", {},
              h("td", {}, m.model),
              h("td", { class: "hide-sm" }, m.provider),
              h("td", { class: "num" }, count(m.requests)),
              h("td", { class: "num hide-sm" }, `${count(m.tokens.input)} / ${count(m.tokens.output)}`),
              h("td", { class: "num" }, usd(m.estimated_cost_usd))))
        : [h("tr", { class: "empty" }, h("td", { colspan: 5 }, "No requests in this range."))]),
    );
  }

  function setupUsage() {
    for (const b of document.querySelectorAll("[data-range]")) {
      b.addEventListener("click", () => {
        range = b.dataset.range;
        for (const o of document.querySelectorAll("[data-range]")) o.setAttribute("aria-pressed", String(o === b));
        loadUsage().catch((e) => toast(e.message, true));
      });
    }
    return loadUsage();
  }

  // ---- request log ----------------------------------------------------------
  /** The log's filters, offset and drawer (ui.js logControls), wired in setupLogs. */
  let log;

  /** The filter form as query parameters: dates are whole UTC days, `until` inclusive. */
  function filterQuery() {
    const q = new URLSearchParams();
    const filters = log.filters;
    if (filters.model) q.set("model", filters.model);
    if (filters.status) q.set("status", filters.status);
    if (filters.since) q.set("since", new Date(`${filters.since}T00:00:00Z`).toISOString());
    if (filters.until) q.set("until", new Date(Date.parse(`${filters.until}T00:00:00Z`) + 86_400_000 - 1).toISOString());
    return q;
  }

  function logsUrl() {
    const q = filterQuery();
    q.set("limit", String(PAGE_SIZE));
    q.set("offset", String(log.offset));
    return `/console/api/logs?${q}`;
  }

  /** The export links carry the filters; a plan without export says which plans have it. */
  function renderExport() {
    for (const format of ["csv", "json"]) {
      const link = $(`export-${format}`);
      const q = filterQuery();
      q.set("format", format);
      link.href = `/console/api/logs/export?${q}`;
      if (!me.plan.export) {
        link.setAttribute("aria-disabled", "true");
        link.removeAttribute("href");
      }
    }
    if (!me.plan.export) {
      $("export-note").textContent = `Exporting the log (CSV, JSON) comes with the ${me.export_plans.join(" and ")} plans; this team is on ${me.team.plan}.`;
      $("export-note").hidden = false;
    }
  }

  function renderLogs(p) {
    const body = $("logs");
    if (!p.data.length) {
      body.replaceChildren(h("tr", { class: "empty" }, h("td", { colspan: 7 }, log.offset ? "No more requests." : "No requests match.")));
    } else {
      body.replaceChildren(
        ...p.data.map((r) => {
          const asked = r.requested_model !== r.model ? h("small", {}, `asked ${r.requested_model}`) : null;
          const open = (e) => openDrawer(r.id, e.currentTarget);
          return h("tr", { "data-log": r.id },
            h("td", {}, h("button", { type: "button", class: "row-open", "aria-label": `Details of the ${r.model} request at ${time(r.timestamp)}`, onclick: open }, time(r.timestamp))),
            h("td", {}, h("div", { class: "model" }, h("span", {}, r.model, r.stream ? h("small", {}, " · stream") : null), asked)),
            h("td", { class: "hide-sm" }, r.provider),
            h("td", {}, h("span", { class: `badge ${statusClass(r.status)}` }, String(r.status))),
            h("td", { class: "num hide-sm" }, ms(r.latency_ms)),
            h("td", { class: "num hide-sm" }, `${count(r.tokens.input)} / ${count(r.tokens.output)}`),
            h("td", { class: "num" }, usd(r.estimated_cost_usd)));
        }),
      );
    }
    const first = p.total ? log.offset + 1 : 0;
    $("page-info").textContent = `${count(first)}–${count(log.offset + p.data.length)} of ${count(p.total)}`;
    $("page-prev").disabled = log.offset === 0;
    $("page-next").disabled = log.offset + p.data.length >= p.total;
  }

  function renderRecord(r) {
    const events = r.fallback_events.length
      ? h("ol", { class: "events" },
          ...r.fallback_events.map((e) =>
            h("li", {},
              h("span", { class: `badge ${e.status !== undefined && e.status < 400 ? "ok" : "warn"}` }, e.type),
              h("span", {}, `${e.model} · ${e.provider}`),
              e.status ? h("span", { class: "muted" }, `HTTP ${e.status}`) : null,
              e.reason ? h("span", { class: "muted" }, e.reason) : null)))
      : h("p", { class: "muted" }, "No fallback: the model asked for answered.");
    return [
      kv([
        ["Status", h("span", { class: `badge ${statusClass(r.status)}` }, String(r.status))],
        ["Time", dateTime(r.timestamp)],
        ["Request id", h("code", {}, r.id)],
        ["Relay id", r.relay_id ? h("code", {}, r.relay_id) : null],
        ["Requested", r.requested_model],
        ["Answered by", `${r.model} · ${r.provider}`],
        ["Latency", ms(r.latency_ms)],
        ["Stream", r.stream ? "yes" : "no"],
      ]),
      h("h3", {}, "Fallback events"),
      events,
      h("h3", {}, "Tokens and estimated cost"),
      kv([
        ["Input", count(r.tokens.input)],
        ["Output", count(r.tokens.output)],
        ["Cache read", count(r.tokens.cache_read)],
        ["Cache write", count(r.tokens.cache_write)],
        ["Cost", usd(r.estimated_cost_usd)],
      ]),
      h("h3", {}, "Metadata"),
      Object.keys(r.metadata).length ? h("pre", { class: "meta" }, JSON.stringify(r.metadata, null, 2)) : h("p", { class: "muted" }, "None."),
    ];
  }

  const openDrawer = (id, opener) =>
    log.open(opener, async () => {
      const r = await getJson(`/console/api/logs/${encodeURIComponent(id)}`);
      return { title: `${r.model} · ${time(r.timestamp)}`, children: renderRecord(r) };
    });

  const loadLogs = () => getJson(logsUrl()).then(renderLogs);
  const reloadLogs = () => {
    renderExport();
    loadLogs().catch((e) => toast(e.message, true));
  };

  function setupLogs() {
    log = logControls(PAGE_SIZE, reloadLogs);
    renderExport();
    return loadLogs();
  }

  // ---- workflow runs ----------------------------------------------------------
  /** The runs page's offset and drawer (ui.js logControls; its form only refreshes), wired in setupRuns. */
  let runs;
  const RUN_STATUS = { succeeded: "ok", completed: "ok", failed: "bad" };
  const runBadge = (status) => h("span", { class: `badge ${RUN_STATUS[status] ?? "warn"}` }, status);
  const duration = (r) => (r.started_at && r.finished_at ? ms(Date.parse(r.finished_at) - Date.parse(r.started_at)) : "—");
  const asText = (v) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));

  function renderRuns(p) {
    $("run-rows").replaceChildren(
      ...(p.data.length
        ? p.data.map((r) =>
            h("tr", { "data-run": r.id },
              h("td", {}, h("button", { type: "button", class: "row-open", "aria-label": `Steps of the ${r.workflow} run of ${time(r.created_at)}`, onclick: (e) => openRun(r.id, e.currentTarget) },
                dateTime(r.started_at ?? r.created_at))),
              h("td", {}, r.workflow, h("small", { class: "muted" }, ` · v${r.version}`)),
              h("td", {}, runBadge(r.status)),
              h("td", { class: "num hide-sm" }, duration(r))))
        : [h("tr", { class: "empty" }, h("td", { colspan: 4 }, runs.offset ? "No more runs." : "No workflow runs yet (POST /api/v1/webhooks/trigger starts one)."))]),
    );
    const first = p.total ? runs.offset + 1 : 0;
    $("page-info").textContent = `${count(first)}–${count(runs.offset + p.data.length)} of ${count(p.total)}`;
    $("page-prev").disabled = runs.offset === 0;
    $("page-next").disabled = runs.offset + p.data.length >= p.total;
  }

  /** One step of GET /v1/debug/runs/:runId: what it sent (after templating), what came back, and its cost. */
  function renderStep(s) {
    const prompt = s.prompt ? [s.prompt.system ? `system: ${s.prompt.system}` : null, `user: ${s.prompt.user}`].filter(Boolean).join("\n\n") : null;
    return h("section", { class: "step", "data-step": s.name },
      h("h3", {}, s.name, " ", runBadge(s.status)),
      kv([
        ["Model", s.routed_model && s.routed_model !== s.model ? `${s.model} → ${s.routed_model}` : s.model],
        ["Tokens", s.tokens ? `${count(s.tokens.input)} / ${count(s.tokens.output)}` : null],
        ["Cost", s.cost_usd === null ? null : usd(s.cost_usd)],
        ["Latency", s.latency_ms === null ? null : ms(s.latency_ms)],
        ["Retries", s.retries === null ? null : String(s.retries) + (s.repaired ? " · repaired" : "")],
        ["Error", s.error ? s.error.message : null],
      ]),
      prompt ? h("h4", {}, "Prompt after templating") : null,
      prompt ? h("pre", { class: "meta", "data-prompt": "" }, prompt) : null,
      s.output === null ? null : h("h4", {}, "Output"),
      s.output === null ? null : h("pre", { class: "meta", "data-output": "" }, asText(s.output)));
  }

  const openRun = (id, opener) =>
    runs.open(opener, async () => {
      const { run } = await getJson(`/console/api/runs/${encodeURIComponent(id)}`);
      const error = run.result?.error ? h("p", { class: "notice bad" }, run.result.error.message) : null;
      return { title: `${run.workflow} · ${run.status}`, children: [kv([["Run id", h("code", {}, run.id)], ["Created", dateTime(run.created_at)], ["Duration", duration(run)]]), error, ...run.steps.map(renderStep)].filter(Boolean) };
    });

  const loadRuns = () => getJson(`/console/api/runs?limit=${PAGE_SIZE}&offset=${runs.offset}`).then(renderRuns);

  function setupRuns() {
    runs = logControls(PAGE_SIZE, () => loadRuns().catch((e) => toast(e.message, true)));
    return loadRuns();
  }

  // ---- agents ---------------------------------------------------------------
  async function setupAgents() {
    const { agents } = await getJson("/console/api/agents");
    $("agent-rows").replaceChildren(
      ...(agents.length
        ? agents.map((a) =>
            h("tr", {},
              h("td", {}, a.name),
              h("td", {}, a.capability),
              h("td", { class: "hide-sm" }, a.protocol),
              h("td", { class: "hide-sm endpoint" }, a.endpoint),
              h("td", {}, a.public ? "yes" : "no")))
        : [h("tr", { class: "empty" }, h("td", { colspan: 5 }, "No agents registered yet (POST /api/register)."))]),
    );
  }

  // ---- keys -----------------------------------------------------------------
  const canManage = () => me.key.type === "standard";

  function showSecret(secret) {
    $("secret-value").value = secret;
    $("secret-box").hidden = false;
    $("secret-value").select();
  }

  /** Runs a confirmed key action, shows a new secret if it made one, and reloads the list. */
  async function keyAction(text, okLabel, run, done) {
    if (!(await confirmAction(text, okLabel))) return;
    try {
      const answer = await run();
      if (answer?.api_key) showSecret(answer.api_key);
      toast(done);
    } catch (e) {
      toast(e.message, true);
    }
    await loadKeys().catch((e) => toast(e.message, true));
  }

  function keyButtons(k) {
    if (k.revoked_at || !canManage()) return null;
    const own = k.id === me.key.id ? " It is the key this console signed in with: you will be signed out." : "";
    return h("div", { class: "key-actions" },
      h("button", { type: "button", class: "btn", "aria-label": `Rotate ${k.name || k.prefix}`, onclick: () =>
        keyAction(`Create a new key to replace “${k.name || k.prefix}”? The old key keeps working until you revoke it.`, "Rotate", () => sendJson(`/console/api/keys/${k.id}/rotate`, {}), "Key rotated") }, "Rotate"),
      h("button", { type: "button", class: "btn danger", "aria-label": `Revoke ${k.name || k.prefix}`, onclick: () =>
        keyAction(`Revoke “${k.name || k.prefix}”? Requests with it are refused at once.${own}`, "Revoke", () => sendJson(`/console/api/keys/${k.id}`, undefined, "DELETE"), "Key revoked") }, "Revoke"));
  }

  async function loadKeys() {
    const { keys } = await getJson("/console/api/keys");
    $("key-rows").replaceChildren(
      ...keys.map((k) =>
        h("tr", { "data-key": k.id },
          h("td", {}, k.name || h("span", { class: "muted" }, "unnamed"), k.id === me.key.id ? h("small", { class: "muted" }, " · this session") : null),
          h("td", {}, k.type === "standard" ? "standard" : "read-only"),
          h("td", { class: "hide-sm" }, h("code", {}, `${k.prefix}…`)),
          h("td", { class: "hide-sm" }, dateTime(k.created_at)),
          h("td", {}, h("span", { class: `badge ${k.revoked_at ? "bad" : "ok"}` }, k.revoked_at ? "revoked" : "active")),
          h("td", {}, keyButtons(k)))),
    );
  }

  function setupKeys() {
    const form = $("key-form");
    if (!canManage()) {
      $("read-only-note").hidden = false;
      for (const el of form.elements) el.disabled = true;
    }
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        const made = await sendJson("/console/api/keys", { name: $("key-name").value.trim(), type: $("key-type").value });
        showSecret(made.api_key);
        form.reset();
        toast("Key created");
        await loadKeys();
      } catch (err) {
        toast(err.message, true);
      }
    });
    $("secret-copy").addEventListener("click", () =>
      navigator.clipboard.writeText($("secret-value").value).then(() => toast("Copied"), () => toast("Select the key and copy it", true)));
    $("secret-done").addEventListener("click", () => {
      $("secret-value").value = "";
      $("secret-box").hidden = true;
    });
    return loadKeys();
  }

  // ---- start ----------------------------------------------------------------
  const SETUP = { overview: setupUsage, logs: setupLogs, runs: setupRuns, agents: setupAgents, keys: setupKeys };
  loadMe()
    .then(() => SETUP[page]())
    .then(() => document.body.setAttribute("data-ready", ""))
    .catch((e) => toast(e.message, true));
})();
