// Relay dashboard client. Polls the admin JSON endpoints (/dashboard/api/*,
// /dashboard/config) with ETags, renders them with DOM nodes (never innerHTML),
// and sends every action through the same /control/* endpoints as the API.
// It is signed in by the listener's HttpOnly session cookie (/dashboard/login);
// an expired or missing one sends the browser back to the sign-in page.
// Shared helpers come from ui.js (window.RelayUI), loaded before this file.
"use strict";
(() => {
  const POLL_MS = 5000;
  const PAGE_SIZE = 25;

  const { $, h, count, usd, ms, time, dateTime, statusClass, kv, toast, confirmAction, logControls } = window.RelayUI;
  const { getJson, postJson } = window.RelayUI.api("/dashboard/login");

  // ---- formatting -------------------------------------------------------
  /** A run's cost: "unknown" for a model with no listed price, whose logged $0 is not its cost. */
  const cost = (r) => (r.costUnknown ? h("span", { class: "muted", title: "no listed price for this model" }, "unknown") : usd(r.costUsd));
  /** Axis labels share one precision, enough to tell neighbouring ticks apart. */
  function usdAxis(splits) {
    const step = Math.abs((splits[1] ?? 1) - (splits[0] ?? 0)) || 1;
    const digits = Math.min(8, Math.max(2, Math.ceil(-Math.log10(step))));
    const f = new Intl.NumberFormat(undefined, { style: "currency", currency: "USD", minimumFractionDigits: digits, maximumFractionDigits: digits });
    return splits.map((v) => f.format(v));
  }
  const pf = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 1 });
  const pct = (r) => (r === null || r === undefined ? "—" : pf.format(r));
  function duration(sec) {
    sec = Math.max(0, Math.ceil(sec));
    if (sec >= 3600) return `${Math.floor(sec / 3600)}h ${Math.floor((sec % 3600) / 60)}m`;
    if (sec >= 60) return `${Math.floor(sec / 60)}m ${String(sec % 60).padStart(2, "0")}s`;
    return `${sec}s`;
  }

  // ---- actions ----------------------------------------------------------
  /** Runs a confirmed action, reports its outcome and refreshes the page's data. */
  async function act(text, okLabel, run, done) {
    if (!(await confirmAction(text, okLabel))) return;
    try {
      await run();
      toast(done);
    } catch (e) {
      toast(e.message, true);
    }
    refresh();
  }

  // ---- overview: cards --------------------------------------------------
  function setCard(key, value, sub, good) {
    const card = document.querySelector(`[data-card="${key}"]`);
    card.querySelector("[data-value]").textContent = value;
    const s = card.querySelector("[data-sub]");
    s.textContent = sub || "";
    s.classList.toggle("good", !!good);
  }

  function renderSummary(s) {
    setCard("requests", count(s.requests), s.fallbacks ? `${count(s.fallbacks)} with fallback` : "");
    setCard("spend", usd(s.costUsd), s.requests ? `${usd(s.costUsd / s.requests)} per request` : "");
    if (s.savings.error) setCard("savings", "—", s.savings.error);
    else setCard("savings", usd(s.savings.savedUsd), `${s.savings.savedPercent.toFixed(0)}% vs ${s.savings.baselineModel}`, s.savings.savedUsd > 0);
    setCard("success", pct(s.successRate), s.errors ? `${count(s.errors)} failed` : s.requests ? "no failures" : "");
    setCard("p50", ms(s.latencyMs.p50), "end to end");
    setCard("p95", ms(s.latencyMs.p95), "end to end");
    renderMix(s.models, s.requests);
  }

  function renderMix(models, total) {
    const list = $("model-mix");
    list.replaceChildren();
    if (!models.length) {
      list.append(h("li", { class: "muted" }, "No requests in this range."));
      return;
    }
    const options = $("model-options");
    options.replaceChildren(...models.map((m) => h("option", { value: m.model })));
    for (const m of models.slice(0, 8)) {
      const share = total ? m.requests / total : 0;
      const bar = h("span");
      bar.style.width = `${Math.max(2, share * 100)}%`;
      list.append(
        h("li", {},
          h("span", { class: "name" }, m.model, h("small", {}, m.provider)),
          h("span", { class: "num" }, `${count(m.requests)} · ${pct(share)}`),
          h("div", { class: "bar", role: "presentation" }, bar)),
      );
    }
  }

  // ---- overview: charts -------------------------------------------------
  const charts = {};
  let lastSeries;

  const cssVar = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

  /** `emptyMax`: the y scale's top while there is no data yet. */
  function chartOptions(width, series, axisValues, emptyMax) {
    const text = cssVar("--muted");
    const grid = cssVar("--chart-grid");
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    return {
      width,
      height: 200,
      padding: [8, 8, 0, 0],
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.15 : emptyMax] } },
      axes: [axis, { ...axis, size: 70, values: (_u, splits) => axisValues(splits) }],
      series: [{}, ...series],
    };
  }

  /** `dots`: latency has gaps (no runs, no latency), so isolated values need a marker to be seen. */
  function seriesStyle(label, color, format, fill, dots) {
    return { label, stroke: color, width: 2, fill: fill ? `${color}22` : undefined, points: { show: !!dots, size: 6, fill: color }, value: (_u, v) => (v === null ? "—" : format(v)) };
  }

  function renderCharts(data) {
    lastSeries = data;
    if (typeof uPlot === "undefined") return;
    const xs = data.points.map((p) => p.ts / 1000);
    const c1 = cssVar("--chart-1");
    const c2 = cssVar("--chart-2");
    const c3 = cssVar("--chart-3");
    const defs = {
      requests: {
        series: [seriesStyle("Requests", c1, count, true), seriesStyle("Failed", c3, count, false)],
        data: [xs, data.points.map((p) => p.requests), data.points.map((p) => p.errors)],
        axis: (splits) => splits.map(count),
        emptyMax: 4,
      },
      spend: {
        series: [seriesStyle("Spend", c2, usd, true)],
        data: [xs, data.points.map((p) => p.costUsd)],
        axis: usdAxis,
        emptyMax: 0.01,
      },
      latency: {
        series: [seriesStyle("Average", c1, ms, false, true), seriesStyle("Slowest", c3, ms, false, true)],
        data: [xs, data.points.map((p) => p.latencyAvgMs), data.points.map((p) => p.latencyMaxMs)],
        axis: (splits) => splits.map(ms),
        emptyMax: 100,
      },
    };
    for (const [key, def] of Object.entries(defs)) {
      const el = $(`chart-${key}`);
      const width = Math.max(240, el.clientWidth);
      const existing = charts[key];
      if (existing && existing.series.length === def.series.length + 1 && existing.width === width) {
        existing.setData(def.data);
        continue;
      }
      existing?.destroy();
      charts[key] = new uPlot(chartOptions(width, def.series, def.axis, def.emptyMax), def.data, el);
    }
  }

  function redrawCharts() {
    for (const key of Object.keys(charts)) {
      charts[key].destroy();
      delete charts[key];
    }
    if (lastSeries) renderCharts(lastSeries);
  }

  // ---- overview: live state (routing, health, budgets, headroom) --------
  let skewMs = 0;
  let routingEnabled = true;

  function renderLive(live) {
    skewMs = live.now - Date.now();
    routingEnabled = live.routing.routingEnabled;
    const killed = renderRoutingPill(live.routing);
    $("routing-detail").textContent =
      `${routingEnabled ? "Enabled: virtual models are routed by their strategy." : "Disabled: requests pass through to the model asked for."} ` +
      `${live.routing.inflight} in flight${killed ? `; ${killed}` : ""}.`;
    const toggle = $("routing-toggle");
    toggle.textContent = routingEnabled ? "Disable routing" : "Enable routing";
    toggle.className = routingEnabled ? "btn danger" : "btn primary";

    renderProviders(live.providers);
    renderBudgets(live.budget);
    renderRate(live.rate);
  }

  /** The top bar's routing state, on every page; returns the ended-sessions note. */
  function renderRoutingPill(routing) {
    const pill = $("routing-pill");
    const killed = routing.killedAll ? "all sessions ended" : routing.killedSessions.length ? `${routing.killedSessions.length} session(s) ended` : "";
    pill.textContent = routing.routingEnabled ? "Routing on" : "Routing off";
    pill.className = `pill ${routing.routingEnabled ? (killed ? "warn" : "ok") : "bad"}`;
    return killed;
  }

  const STATE_LABEL = { healthy: ["Healthy", "ok"], degraded: ["Degraded", "warn"], cooled_down: ["Cooling down", "bad"], no_credentials: ["No key", ""] };

  function renderProviders(providers) {
    const body = $("providers");
    // Providers without a key cannot be routed to: one summary row instead of a row each.
    const usable = providers.filter((p) => p.state !== "no_credentials" || p.requests > 0);
    const keyless = providers.filter((p) => !usable.includes(p)).map((p) => p.provider);
    body.replaceChildren(
      ...usable.map((p) => {
        const [label, cls] = STATE_LABEL[p.state] || [p.state, ""];
        const state = h("td", {}, h("span", { class: `badge ${cls}`, title: p.lastError || undefined }, label));
        if (p.cooldownEndsAt) state.append(" ", h("span", { class: "muted", "data-until": Date.parse(p.cooldownEndsAt) }));
        return h("tr", {}, h("th", { scope: "row" }, p.provider), state, h("td", { class: "num" }, count(p.requests)), h("td", { class: "num" }, pct(p.successRate)));
      }),
      keyless.length ? h("tr", { class: "keyless" }, h("td", { colspan: 4 }, `No key: ${keyless.join(", ")}`)) : null,
    );
    const select = $("filter-provider");
    const chosen = select.value;
    select.replaceChildren(h("option", { value: "" }, "Any"), ...providers.map((p) => h("option", { value: p.provider }, p.provider)));
    select.value = chosen;
    tick();
  }

  function meter(fraction) {
    const fill = h("span");
    fill.style.width = `${Math.min(100, Math.max(0, fraction * 100))}%`;
    return h("div", { class: `meter ${fraction >= 0.9 ? "bad" : fraction >= 0.7 ? "warn" : ""}`, role: "presentation" }, fill);
  }

  let budgetFormDirty = false;

  function renderBudgets(budget) {
    const rows = [["This hour", budget.hourly, "budget-hourly"], ["Today (UTC)", budget.daily, "budget-daily"]];
    $("budgets").replaceChildren(
      ...rows.map(([label, w]) => {
        const used = w.spentUsd + w.reservedUsd;
        const limit = w.limitUsd;
        return h("div", { class: "gauge", role: "group", "aria-label": `${label} budget` },
          h("div", { class: "gauge-head" }, h("span", {}, label), h("span", {}, limit ? `${usd(used)} of ${usd(limit)}` : `${usd(used)} · no limit`)),
          meter(limit ? used / limit : 0),
          h("div", { class: "gauge-foot" }, `resets in ${duration(w.resetsInSec)}${w.reservedUsd ? ` · ${usd(w.reservedUsd)} reserved` : ""}`));
      }),
    );
    if (!budgetFormDirty) for (const [, w, id] of rows) $(id).value = String(w.limitUsd ?? 0);
  }

  function renderRate(rate) {
    const box = $("rate-limits");
    if (!rate.length) {
      box.replaceChildren(h("p", { class: "muted" }, "No per-model request limits configured (limits.rpm, limits.rpmDefault)."));
      return;
    }
    box.replaceChildren(
      ...rate.map((r) =>
        h("div", { class: "gauge", role: "group", "aria-label": `${r.model} rate limit` },
          h("div", { class: "gauge-head" }, h("span", {}, r.model), h("span", {}, `${r.remaining} of ${r.limit} left / min`)),
          meter((r.limit - r.remaining) / r.limit),
          h("div", { class: "gauge-foot" }, `${r.provider}${r.resetSec ? ` · full again in ${duration(r.resetSec)}` : ""}`)),
      ),
    );
  }

  /** Cooldown countdowns move every second between polls. */
  function tick() {
    for (const el of document.querySelectorAll("[data-until]")) {
      const left = (Number(el.dataset.until) - (Date.now() + skewMs)) / 1000;
      el.textContent = left > 0 ? duration(left) : "ending";
    }
  }

  // ---- overview: request log --------------------------------------------
  /** The log's filters, offset and drawer (ui.js logControls), wired in setupOverview. */
  let log;

  function runsUrl() {
    const q = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(log.offset) });
    for (const [k, v] of Object.entries(log.filters)) if (v) q.set(k, v);
    return `/dashboard/api/runs?${q}`;
  }

  function renderRuns(page) {
    const body = $("runs");
    if (!page.runs.length) {
      body.replaceChildren(h("tr", { class: "empty" }, h("td", { colspan: 7 }, log.offset ? "No more requests." : "No requests match.")));
    } else {
      body.replaceChildren(
        ...page.runs.map((r) => {
          const routed = r.routedModel !== r.requestedModel ? h("small", {}, `asked ${r.requestedModel}`) : null;
          return h("tr", { "data-run": r.id, onclick: (e) => { if (!e.target.closest("button")) openDrawer(r.id, e.currentTarget.querySelector("button")); } },
            h("td", {}, h("button", { type: "button", class: "row-open", "aria-label": `Details of the ${r.routedModel} request at ${time(r.ts)}`, onclick: (e) => openDrawer(r.id, e.currentTarget) }, time(r.ts))),
            h("td", {}, h("div", { class: "model" }, h("span", {}, r.routedModel, r.stream ? h("small", {}, " · stream") : null), routed)),
            h("td", { class: "hide-sm" }, r.provider),
            h("td", {}, h("span", { class: `badge ${statusClass(r.status)}` }, String(r.status))),
            h("td", { class: "num" }, ms(r.latencyMs)),
            h("td", { class: "num hide-sm" }, `${count(r.inputTokens)} / ${count(r.outputTokens)}`),
            h("td", { class: "num" }, cost(r)));
        }),
      );
    }
    const first = page.total ? log.offset + 1 : 0;
    $("page-info").textContent = `${count(first)}–${count(log.offset + page.runs.length)} of ${count(page.total)}`;
    $("page-prev").disabled = log.offset === 0;
    $("page-next").disabled = log.offset + page.runs.length >= page.total;
  }

  const EVENT_LABEL = { attempt: "Attempt", fallback: "Fallback", escalation: "Escalation", error: "Error", mismatch: "Model mismatch", cost_unknown: "Cost unknown" };

  function renderRun(r) {
    const events = r.events.length
      ? h("ol", { class: "events" },
          ...r.events.map((e) =>
            h("li", {},
              h("span", { class: `badge ${e.type === "attempt" && (e.status ?? 200) < 400 ? "ok" : e.type === "attempt" || e.type === "error" ? "bad" : "warn"}` }, EVENT_LABEL[e.type] || e.type),
              h("span", {}, `${e.model} · ${e.provider}`),
              e.status ? h("span", { class: "muted" }, `HTTP ${e.status}`) : null,
              e.latencyMs !== undefined ? h("span", { class: "muted" }, ms(e.latencyMs)) : null,
              e.reason ? h("span", { class: "muted" }, e.reason) : null)))
      : h("p", { class: "muted" }, "No routing events recorded.");
    return [
      kv([
        ["Status", h("span", { class: `badge ${statusClass(r.status)}` }, `${r.status} · ${r.outcome}`)],
        ["Time", dateTime(r.ts)],
        ["Request id", h("code", {}, r.id)],
        ["Session", r.sessionKey],
        ["Client format", `${r.clientFormat}${r.stream ? " (stream)" : ""}`],
        ["Error", r.error],
      ]),
      h("h3", {}, "Routing decision"),
      kv([
        ["Strategy", r.strategy],
        ["Tier", r.tier],
        ["Requested", r.requestedModel],
        ["Routed to", `${r.routedModel} · ${r.provider}`],
        ["Attempts", String(r.attempts)],
        ["Fallback used", r.fallbackUsed ? "yes" : "no"],
        ["Reasons", r.reasons.length ? h("ul", { class: "reasons" }, ...r.reasons.map((x) => h("li", {}, x))) : null],
      ]),
      h("h3", {}, "Events"),
      events,
      h("h3", {}, "Tokens and cost"),
      kv([
        ["Input", count(r.inputTokens)],
        ["Output", count(r.outputTokens)],
        ["Cache read", count(r.cacheReadTokens)],
        ["Cache write", count(r.cacheWriteTokens)],
        ["Cost", cost(r)],
        ["Latency", `${ms(r.latencyMs)} (Relay's own ${ms(r.overheadMs)})`],
      ]),
      h("h3", {}, "Metadata"),
      Object.keys(r.metadata).length ? h("pre", { class: "meta" }, JSON.stringify(r.metadata, null, 2)) : h("p", { class: "muted" }, "None."),
      h("h3", {}, "Content"),
      h("p", { class: "muted" }, "Content logging is off: request and response bodies are not stored."),
    ];
  }

  const openDrawer = (id, opener) =>
    log.open(opener, async () => {
      const r = await getJson(`/dashboard/api/runs/${encodeURIComponent(id)}`);
      return { title: `${r.routedModel} · ${time(r.ts)}`, children: renderRun(r).filter(Boolean) };
    });

  // ---- overview: wiring -------------------------------------------------
  let range = new URLSearchParams(location.search).get("range") || "day";

  function setupOverview() {
    for (const b of document.querySelectorAll("[data-range]")) {
      b.setAttribute("aria-pressed", String(b.dataset.range === range));
      b.addEventListener("click", () => {
        range = b.dataset.range;
        for (const o of document.querySelectorAll("[data-range]")) o.setAttribute("aria-pressed", String(o === b));
        history.replaceState(null, "", `?range=${range}`);
        refresh();
      });
    }
    $("routing-toggle").addEventListener("click", () =>
      routingEnabled
        ? act("Turn routing off? Requests will go straight to the model they name.", "Disable routing", () => postJson("/control/disable"), "Routing disabled")
        : act("Turn routing back on? This also lets ended sessions send requests again.", "Enable routing", () => postJson("/control/enable"), "Routing enabled"),
    );
    $("kill-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const sessionKey = $("kill-session").value.trim();
      if (!sessionKey) return;
      act(`End session “${sessionKey}”? Its requests in flight are aborted and new ones refused until routing is re-enabled.`, "End session",
        () => postJson("/control/kill", { sessionKey }), `Session ${sessionKey} ended`);
    });
    $("kill-all").addEventListener("click", () =>
      act("End ALL sessions? Every request in flight is aborted and new ones refused until routing is re-enabled.", "End all sessions",
        () => postJson("/control/kill", { all: true }), "All sessions ended"),
    );
    const budgetForm = $("budget-form");
    budgetForm.addEventListener("input", () => (budgetFormDirty = true));
    budgetForm.addEventListener("submit", (e) => {
      e.preventDefault();
      const hourlyUsd = Number($("budget-hourly").value);
      const dailyUsd = Number($("budget-daily").value);
      act(`Set the hourly budget to ${usd(hourlyUsd)} and the daily budget to ${usd(dailyUsd)} (0 = no limit)? This writes the config file.`, "Save budgets",
        async () => {
          await postJson("/control/config", { limits: { hourlyUsd, dailyUsd } });
          budgetFormDirty = false;
        }, "Budgets saved");
    });
    log = logControls(PAGE_SIZE, refreshRuns);
    let resizeTimer;
    window.addEventListener("resize", () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(redrawCharts, 150);
    });
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", redrawCharts);
    setInterval(tick, 1000);
  }

  const refreshRuns = () => getJson(runsUrl()).then(renderRuns).catch((e) => toast(e.message, true));

  // ---- settings page ----------------------------------------------------
  const SOURCE_CLASS = { default: "", file: "ok", env: "warn", flag: "warn" };

  function pointerGet(obj, path) {
    return path.split("/").slice(1).reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), obj);
  }

  function renderConfig(data) {
    $("config-file").textContent = data.file;
    const paths = Object.keys(data.sources).sort();
    // An object default later filled by another layer keeps a stale source of its own; show only the leaves.
    const rows = paths.filter((p) => !paths.some((q) => q.startsWith(`${p}/`)));
    $("config-rows").replaceChildren(
      ...rows.map((path) => {
        const value = pointerGet(data.config, path);
        const source = data.sources[path];
        return h("tr", {},
          h("td", {}, path.slice(1).replaceAll("/", ".")),
          h("td", {}, value === undefined ? "—" : JSON.stringify(value)),
          h("td", {}, h("span", { class: `badge ${SOURCE_CLASS[source] ?? ""}` }, source)));
      }),
    );
  }

  // ---- refresh loop -------------------------------------------------------
  const page = document.body.dataset.page;

  async function refresh() {
    try {
      if (page === "settings") {
        const [config, live] = await Promise.all([getJson("/dashboard/config"), getJson("/dashboard/api/live")]);
        renderConfig(config);
        renderRoutingPill(live.routing);
        return;
      }
      const [summary, series, live, runs] = await Promise.all([
        getJson(`/dashboard/api/summary?range=${range}`),
        getJson(`/dashboard/api/series?range=${range}`),
        getJson("/dashboard/api/live"),
        getJson(runsUrl()),
      ]);
      renderSummary(summary);
      renderCharts(series);
      renderLive(live);
      renderRuns(runs);
    } catch (e) {
      toast(e.message, true);
    }
  }

  if (page === "overview") setupOverview();
  refresh();
  setInterval(() => {
    if (!document.hidden) refresh();
  }, POLL_MS);
})();
