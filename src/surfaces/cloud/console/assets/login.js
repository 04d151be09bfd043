// Relay console sign-in: the pasted API key is sent once (same-origin JSON POST) and traded for the
// console's HttpOnly session cookie; the key is not kept by the page, then the console opens.
"use strict";
(() => {
  const { $ } = window.RelayUI;

  async function signIn(key) {
    $("login-error").hidden = true;
    const res = await fetch("/console/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: key }),
      credentials: "same-origin",
      cache: "no-store",
      // The page's no-referrer policy would make this POST's Origin "null", which the console refuses.
      referrerPolicy: "same-origin",
    });
    if (res.ok) return location.replace("/console");
    const body = await res.json().catch(() => undefined);
    $("login-error").textContent = body?.error?.message || `Sign-in failed (HTTP ${res.status})`;
    $("login-error").hidden = false;
  }

  $("login-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = $("login-key");
    const key = input.value.trim();
    input.value = "";
    if (key) void signIn(key);
  });
})();
