// Relay dashboard sign-in. `relay dashboard` prints /dashboard/login#<token>:
// the fragment never leaves the browser, so the token is in no server or proxy
// log. This script removes it from the address bar and history at once, trades
// it (same-origin JSON POST) for the listener's HttpOnly session cookie, and
// opens the dashboard. The form does the same with a pasted token.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);

  async function signIn(token) {
    $("login-error").hidden = true;
    const res = await fetch("/dashboard/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
      credentials: "same-origin",
      cache: "no-store",
      // The page's no-referrer policy would make this POST's Origin "null", which Relay refuses.
      referrerPolicy: "same-origin",
    });
    if (res.ok) return location.replace("/dashboard");
    const body = await res.json().catch(() => undefined);
    $("login-error").textContent = body?.error?.message || `Sign-in failed (HTTP ${res.status})`;
    $("login-error").hidden = false;
  }

  /** The token in the fragment, taken out of the address bar and history first. */
  function fromLink() {
    const token = decodeURIComponent(location.hash.slice(1));
    if (location.hash) history.replaceState(null, "", location.pathname);
    if (token) void signIn(token);
  }

  $("login-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const value = $("login-token").value.trim();
    if (value) void signIn(value);
  });
  // A link opened in a tab already on this page changes only the fragment.
  window.addEventListener("hashchange", fromLink);
  fromLink();
})();
