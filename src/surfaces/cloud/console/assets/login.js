// Relay console sign-in: the pasted API key, or a user's email and password, is sent once
// (same-origin JSON POST) and traded for the console's HttpOnly session cookie; the page keeps
// neither, then the console opens.
"use strict";
(() => {
  const { $ } = window.RelayUI;

  async function signIn(credentials) {
    $("login-error").hidden = true;
    const res = await fetch("/console/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(credentials),
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
    if (key) void signIn({ api_key: key });
  });

  $("account-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const email = $("login-email").value.trim();
    const password = $("login-password");
    const credentials = { email, password: password.value };
    password.value = "";
    if (email && credentials.password) void signIn(credentials);
  });
})();
