/** @jsxImportSource @kitajs/html */
// The overview and settings pages. Ids and data-* attributes are the contract
// with assets/app.js, which fills them from /dashboard/api/*.
import { LogPager, Panel, RequestDrawer } from "../web/markup.tsx";
import { Layout } from "./layout.tsx";
import { RANGES } from "./ranges.ts";

const RANGE_LABELS: Record<keyof typeof RANGES, string> = { hour: "1 h", day: "24 h", "7d": "7 d", "30d": "30 d" };

const CARDS = [
  { key: "requests", label: "Requests" },
  { key: "spend", label: "Spend" },
  { key: "savings", label: "Saved vs baseline" },
  { key: "success", label: "Success rate" },
  { key: "p50", label: "Median latency" },
  { key: "p95", label: "p95 latency" },
];

const CHARTS = [
  { key: "requests", label: "Requests" },
  { key: "spend", label: "Spend (USD)" },
  { key: "latency", label: "Latency (ms)" },
];

export function OverviewPage() {
  return (
    <Layout page="overview" title="Overview">
      <div class="toolbar">
        <h1>Overview</h1>
        <div class="segmented" role="group" aria-label="Time range">
          {Object.entries(RANGE_LABELS).map(([range, label]) => (
            <button type="button" class="seg" data-range={range} aria-pressed={range === "day" ? "true" : "false"} safe>
              {label}
            </button>
          ))}
        </div>
      </div>

      <section class="cards" aria-label="Headline figures">
        {CARDS.map((c) => (
          <div class="card" data-card={c.key}>
            <div class="card-label" safe>{c.label}</div>
            <div class="card-value" data-value>—</div>
            <div class="card-sub" data-sub></div>
          </div>
        ))}
      </section>

      <div class="grid charts">
        {CHARTS.map((c) => (
          <Panel id={`chart-${c.key}`} title={c.label}>
            <div class="chart" id={`chart-${c.key}`} role="img" aria-label={`${c.label} over the selected range`}></div>
          </Panel>
        ))}
        <Panel id="mix" title="Model mix">
          <ul id="model-mix" class="mix" aria-label="Share of requests by model"></ul>
        </Panel>
      </div>

      <div class="grid three">
        <Panel id="health" title="Provider health">
          <div class="table-wrap">
            <table class="table">
              <thead>
                <tr><th scope="col">Provider</th><th scope="col">State</th><th scope="col" class="num">Req 1 h</th><th scope="col" class="num">Success</th></tr>
              </thead>
              <tbody id="providers"></tbody>
            </table>
          </div>
        </Panel>
        <Panel id="budget" title="Budgets">
          <div id="budgets" class="gauges"></div>
        </Panel>
        <Panel id="rate" title="Rate-limit headroom">
          <div id="rate-limits" class="gauges"></div>
        </Panel>
      </div>

      <Panel id="controls" title="Controls" class="controls">
        <div class="control-row">
          <div>
            <div class="control-title">Routing</div>
            <div class="muted" id="routing-detail">…</div>
          </div>
          <button type="button" id="routing-toggle" class="btn">…</button>
        </div>
        <form class="control-row" id="kill-form">
          <div class="field">
            <label for="kill-session">End a session</label>
            <input id="kill-session" name="session" placeholder="session key" autocomplete="off" required />
          </div>
          <div class="buttons">
            <button type="submit" class="btn danger">End session</button>
            <button type="button" id="kill-all" class="btn danger">End all sessions</button>
          </div>
        </form>
        <form class="control-row" id="budget-form">
          <div class="field">
            <label for="budget-hourly">Hourly budget (USD, 0 = none)</label>
            <input id="budget-hourly" name="hourlyUsd" type="number" min="0" step="0.01" inputmode="decimal" required />
          </div>
          <div class="field">
            <label for="budget-daily">Daily budget (USD, 0 = none)</label>
            <input id="budget-daily" name="dailyUsd" type="number" min="0" step="0.01" inputmode="decimal" required />
          </div>
          <div class="buttons">
            <button type="submit" class="btn primary">Save budgets</button>
          </div>
        </form>
      </Panel>

      <Panel id="log" title="Request log" class="log">
        <form id="log-filters" class="filters" aria-label="Filter the request log">
          <div class="field">
            <label for="filter-model">Model</label>
            <input id="filter-model" name="model" list="model-options" autocomplete="off" />
            <datalist id="model-options"></datalist>
          </div>
          <div class="field">
            <label for="filter-provider">Provider</label>
            <select id="filter-provider" name="provider"><option value="">Any</option></select>
          </div>
          <div class="field">
            <label for="filter-status">Status</label>
            <input id="filter-status" name="status" inputmode="numeric" pattern="[1-5][0-9][0-9]" placeholder="e.g. 502" />
          </div>
          <div class="field">
            <label for="filter-session">Session</label>
            <input id="filter-session" name="session" autocomplete="off" />
          </div>
          <div class="buttons">
            <button type="submit" class="btn primary">Filter</button>
            <button type="reset" class="btn">Clear</button>
          </div>
        </form>
        <div class="table-wrap">
          <table class="table runs">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Model</th>
                <th scope="col" class="hide-sm">Provider</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">Latency</th>
                <th scope="col" class="num hide-sm">Tokens</th>
                <th scope="col" class="num">Cost</th>
              </tr>
            </thead>
            <tbody id="runs"></tbody>
          </table>
        </div>
        <LogPager />
      </Panel>

      <RequestDrawer />
    </Layout>
  );
}

export function SettingsPage() {
  return (
    <Layout page="settings" title="Settings">
      <div class="toolbar">
        <h1>Settings</h1>
      </div>
      <Panel id="config" title="Effective configuration">
        <p class="muted">
          Secrets are redacted. Each value comes from the built-in default, the config file (<code id="config-file">…</code>), an environment variable or a command-line flag.
        </p>
        <div class="table-wrap">
          <table class="table config">
            <thead>
              <tr><th scope="col">Setting</th><th scope="col">Value</th><th scope="col">Source</th></tr>
            </thead>
            <tbody id="config-rows"></tbody>
          </table>
        </div>
      </Panel>
    </Layout>
  );
}
