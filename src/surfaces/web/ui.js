// What the dashboard's and the team console's pages share (loaded before their own script, which
// reads it from window.RelayUI): an element builder that never parses markup, number formats, the
// toast, the confirmation dialog, and JSON calls that send a signed-out browser to its sign-in page.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);

  /** Element builder: h("td", { class: "num" }, "12"). Text is set as text, so data cannot inject markup. */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : String(c));
    return el;
  }

  // ---- formatting -------------------------------------------------------
  const nf = new Intl.NumberFormat();
  const count = (n) => (n >= 10000 ? new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 }).format(n) : nf.format(n));
  function usd(n) {
    if (n === null || n === undefined) return "—";
    const abs = Math.abs(n);
    // Model calls cost fractions of a cent: show two significant digits below one cent.
    const opts = abs === 0 || abs >= 0.01 ? { minimumFractionDigits: 2, maximumFractionDigits: abs < 1 && abs > 0 ? 3 : 2 } : { maximumSignificantDigits: 2 };
    return new Intl.NumberFormat(undefined, { style: "currency", currency: "USD", ...opts }).format(n);
  }
  function ms(n) {
    if (n === null || n === undefined) return "—";
    if (n >= 1000) return `${(n / 1000).toFixed(2)} s`;
    return n >= 10 ? `${Math.round(n)} ms` : `${n.toFixed(n >= 1 ? 1 : 2)} ms`;
  }
  const time = (ts) => new Date(ts).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  const dateTime = (ts) => new Date(ts).toLocaleString();
  const statusClass = (status) => (status < 400 ? "ok" : status === 499 ? "warn" : "bad");

  /** A definition list of the pairs whose value is not empty. */
  function kv(pairs) {
    return h("dl", { class: "kv" }, ...pairs.filter(([, v]) => v !== undefined && v !== null && v !== "").flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  }

  // ---- toast and confirmation -------------------------------------------
  let toastTimer;
  function toast(message, bad) {
    const t = $("toast");
    t.textContent = message;
    t.className = bad ? "toast bad" : "toast";
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (t.hidden = true), 4000);
  }

  /** Resolves true when the user confirms in the modal dialog. */
  function confirmAction(text, okLabel) {
    const dialog = $("confirm-dialog");
    $("confirm-text").textContent = text;
    $("confirm-ok").textContent = okLabel;
    dialog.returnValue = "";
    dialog.showModal();
    return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true }));
  }

  // ---- API access -------------------------------------------------------
  /** JSON calls of pages signed in at `loginPath`; a 401 sends the browser there. */
  function api(loginPath) {
    const cache = new Map();

    async function failure(res) {
      if (res.status === 401) location.assign(loginPath);
      const body = await res.json().catch(() => undefined);
      return new Error(body?.error?.message || `HTTP ${res.status}`);
    }

    /** GET with If-None-Match: an unchanged resource costs a 304 and reuses the last body. */
    async function getJson(url) {
      const cached = cache.get(url);
      const headers = cached ? { "if-none-match": cached.etag } : {};
      const res = await fetch(url, { headers, cache: "no-store" });
      if (res.status === 304 && cached) return cached.data;
      if (!res.ok) throw await failure(res);
      const data = await res.json();
      const etag = res.headers.get("etag");
      if (etag) cache.set(url, { etag, data });
      return data;
    }

    /** A JSON request with a body (POST by default); the answer's JSON, or null when it has none. */
    async function sendJson(url, body, method = "POST") {
      const res = await fetch(url, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        // The pages' no-referrer policy would make the request's Origin "null", which Relay refuses.
        referrerPolicy: "same-origin",
      });
      if (!res.ok) throw await failure(res);
      return res.status === 204 ? null : res.json();
    }

    return { getJson, postJson: sendJson, sendJson };
  }

  /**
   * The request log's filter form (#log-filters), pager and detail drawer (web/markup.tsx): the
   * returned state holds the filters (the form's trimmed values) and the page's offset; `reload` runs
   * after every change. `state.open(opener, load)` shows the drawer for the row `opener` (focused
   * again when it closes): "Loading…", then the title and children `load()` resolves to, or its error.
   */
  function logControls(pageSize, reload) {
    let opener;
    const state = {
      filters: {},
      offset: 0,
      async open(row, load) {
        opener = row;
        const drawer = $("drawer");
        $("drawer-title").textContent = "Request";
        $("drawer-body").replaceChildren(h("p", { class: "muted" }, "Loading…"));
        if (!drawer.open) drawer.showModal();
        $("drawer-close").focus();
        try {
          const { title, children } = await load();
          $("drawer-title").textContent = title;
          $("drawer-body").replaceChildren(...children);
        } catch (e) {
          $("drawer-body").replaceChildren(h("p", { class: "notice" }, e.message));
        }
      },
    };
    const form = $("log-filters");
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      state.filters = Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, String(v).trim()]));
      state.offset = 0;
      reload();
    });
    form.addEventListener("reset", () => {
      state.filters = {};
      state.offset = 0;
      setTimeout(reload);
    });
    $("page-prev").addEventListener("click", () => {
      state.offset = Math.max(0, state.offset - pageSize);
      reload();
    });
    $("page-next").addEventListener("click", () => {
      state.offset += pageSize;
      reload();
    });
    const drawer = $("drawer");
    $("drawer-close").addEventListener("click", () => drawer.close());
    // Escape closes a modal <dialog> natively; focus goes back to the row that opened it.
    drawer.addEventListener("close", () => opener?.focus());
    drawer.addEventListener("click", (e) => { if (e.target === drawer) drawer.close(); });
    return state;
  }

  window.RelayUI = Object.freeze({ $, h, count, usd, ms, time, dateTime, statusClass, kv, toast, confirmAction, api, logControls });
})();
