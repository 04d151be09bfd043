/** @jsxImportSource @kitajs/html */
// The console's pages. Ids and data-* attributes are the contract with assets/console.js, which
// fills them from /console/api/…; the pages themselves hold no data.
import { LogPager, Panel, RequestDrawer } from "../../web/markup.tsx";
import { CONSOLE_PATHS } from "./assets.ts";
import { ConsoleHead, ConsoleLayout } from "./layout.tsx";

const RANGES = [
  { range: "day", label: "24 h" },
  { range: "7d", label: "7 d" },
  { range: "30d", label: "30 d" },
];

const CARDS = [
  { key: "requests", label: "Requests" },
  { key: "cost", label: "Estimated cost" },
  { key: "input", label: "Input tokens" },
  { key: "output", label: "Output tokens" },
  { key: "errors", label: "Errors" },
  { key: "fallbacks", label: "Fallbacks" },
];

const Th = (props: { children: string; class?: string }) => (
  <th scope="col" class={props.class} safe>
    {props.children}
  </th>
);

export function UsagePage() {
  return (
    <ConsoleLayout page="overview" title="Usage">
      <div class="toolbar">
        <h1>Usage</h1>
        <div class="segmented" role="group" aria-label="Time range">
          {RANGES.map((r) => (
            <button type="button" class="seg" data-range={r.range} aria-pressed={r.range === "day" ? "true" : "false"} safe>
              {r.label}
            </button>
          ))}
        </div>
      </div>
      <section class="cards" aria-label="Headline figures">
        {CARDS.map((c) => (
          <div class="card" data-card={c.key}>
            <div class="card-label" safe>{c.label}</div>
            <div class="card-value" data-value>—</div>
          </div>
        ))}
      </section>
      <Panel id="by-model" title="By model">
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr><Th>Model</Th><Th class="hide-sm">Provider</Th><Th class="num">Requests</Th><Th class="num hide-sm">Tokens in / out</Th><Th class="num">Cost</Th></tr>
            </thead>
            <tbody id="models"></tbody>
          </table>
        </div>
      </Panel>
    </ConsoleLayout>
  );
}

export function LogPage() {
  return (
    <ConsoleLayout page="logs" title="Request log">
      <div class="toolbar">
        <h1>Request log</h1>
        <div class="buttons" role="group" aria-label="Export the filtered log">
          <a id="export-csv" class="btn" href="/console/api/logs/export?format=csv" download="">Export CSV</a>
          <a id="export-json" class="btn" href="/console/api/logs/export?format=json" download="">Export JSON</a>
        </div>
      </div>
      <p id="export-note" class="notice" hidden></p>
      <Panel id="log" title="Requests" class="log">
        <form id="log-filters" class="filters" aria-label="Filter the request log">
          <div class="field">
            <label for="filter-model">Model</label>
            <input id="filter-model" name="model" autocomplete="off" />
          </div>
          <div class="field">
            <label for="filter-status">Status</label>
            <input id="filter-status" name="status" inputmode="numeric" pattern="[1-5][0-9][0-9]" placeholder="e.g. 502" />
          </div>
          <div class="field">
            <label for="filter-since">From (UTC day)</label>
            <input id="filter-since" name="since" type="date" />
          </div>
          <div class="field">
            <label for="filter-until">To (UTC day)</label>
            <input id="filter-until" name="until" type="date" />
          </div>
          <div class="buttons">
            <button type="submit" class="btn primary">Filter</button>
            <button type="reset" class="btn">Clear</button>
          </div>
        </form>
        <div class="table-wrap">
          <table class="table runs">
            <thead>
              <tr><Th>Time</Th><Th>Model</Th><Th class="hide-sm">Provider</Th><Th>Status</Th><Th class="num hide-sm">Latency</Th><Th class="num hide-sm">Tokens</Th><Th class="num">Cost</Th></tr>
            </thead>
            <tbody id="logs"></tbody>
          </table>
        </div>
        <LogPager />
      </Panel>
      <RequestDrawer />
    </ConsoleLayout>
  );
}

/** The team's workflow runs; a run's steps open in the drawer. The form only refreshes (logControls needs one). */
export function RunsPage() {
  return (
    <ConsoleLayout page="runs" title="Workflow runs">
      <div class="toolbar">
        <h1>Workflow runs</h1>
      </div>
      <Panel id="runs" title="Runs" class="log">
        <form id="log-filters" class="filters" aria-label="Refresh the runs">
          <div class="buttons">
            <button type="submit" class="btn">Refresh</button>
          </div>
        </form>
        <div class="table-wrap">
          <table class="table runs">
            <thead>
              <tr><Th>Started</Th><Th>Workflow</Th><Th>Status</Th><Th class="num hide-sm">Duration</Th></tr>
            </thead>
            <tbody id="run-rows"></tbody>
          </table>
        </div>
        <LogPager />
      </Panel>
      <RequestDrawer />
    </ConsoleLayout>
  );
}

export function AgentsPage() {
  return (
    <ConsoleLayout page="agents" title="Agents">
      <div class="toolbar">
        <h1>Agents</h1>
      </div>
      <Panel id="agents" title="Registered agents">
        <p class="muted">The agents your team registered (POST /api/register) and the public agents of other teams, as GET /api/discover finds them.</p>
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr><Th>Name</Th><Th>Capability</Th><Th class="hide-sm">Protocol</Th><Th class="hide-sm">Endpoint</Th><Th>Public</Th></tr>
            </thead>
            <tbody id="agent-rows"></tbody>
          </table>
        </div>
      </Panel>
    </ConsoleLayout>
  );
}

export function KeysPage() {
  return (
    <ConsoleLayout page="keys" title="API keys">
      <div class="toolbar">
        <h1>API keys</h1>
      </div>
      <p id="read-only-note" class="notice" hidden>You signed in with a read-only key: keys can be listed, not created, rotated or revoked.</p>
      <Panel id="new-key" title="Create a key">
        <form id="key-form" class="filters">
          <div class="field">
            <label for="key-name">Name</label>
            <input id="key-name" name="name" maxlength="200" autocomplete="off" placeholder="e.g. production" />
          </div>
          <div class="field">
            <label for="key-type">Type</label>
            <select id="key-type" name="type">
              <option value="standard">Standard: every route</option>
              <option value="read_only">Read-only: health, usage and logs</option>
            </select>
          </div>
          <div class="buttons">
            <button type="submit" class="btn primary">Create key</button>
          </div>
        </form>
        <section id="secret-box" class="secret" aria-labelledby="secret-title" hidden>
          <h3 id="secret-title">Copy the new key now: it is shown only once</h3>
          <div class="secret-row">
            <label for="secret-value" class="visually-hidden">New API key</label>
            <input id="secret-value" readonly spellcheck="false" autocomplete="off" />
            <button type="button" id="secret-copy" class="btn">Copy</button>
            <button type="button" id="secret-done" class="btn ghost">Done</button>
          </div>
        </section>
      </Panel>
      <Panel id="keys" title="Keys">
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr><Th>Name</Th><Th>Type</Th><Th class="hide-sm">Prefix</Th><Th class="hide-sm">Created</Th><Th>State</Th><Th>Actions</Th></tr>
            </thead>
            <tbody id="key-rows"></tbody>
          </table>
        </div>
      </Panel>
    </ConsoleLayout>
  );
}

export function LoginPage() {
  return (
    <html lang="en">
      <ConsoleHead title="Sign in" script={CONSOLE_PATHS.loginJs} />
      <body data-page="login">
        <main id="main">
          <section class="panel login" aria-labelledby="login-title">
            <h1 id="login-title">Sign in to the Relay console</h1>
            <p>Paste one of your team's API keys. It is exchanged for a session of this browser and not kept in it; a read-only key can view but not manage keys.</p>
            <form id="login-form">
              <label for="login-key">API key</label>
              <input id="login-key" type="password" autocomplete="off" spellcheck="false" placeholder="rk_live_…" required />
              <button type="submit" class="btn primary">Sign in</button>
            </form>
            <p>Or sign in with your account (POST /v1/accounts/signup makes one).</p>
            <form id="account-form">
              <label for="login-email">Email</label>
              <input id="login-email" type="email" autocomplete="username" spellcheck="false" required />
              <label for="login-password">Password</label>
              <input id="login-password" type="password" autocomplete="current-password" required />
              <button type="submit" class="btn">Use email and password</button>
            </form>
            <p id="login-error" class="notice bad" role="alert" hidden></p>
          </section>
        </main>
      </body>
    </html>
  );
}
