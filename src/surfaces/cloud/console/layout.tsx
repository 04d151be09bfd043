/** @jsxImportSource @kitajs/html */
// The console's page frame: the head and stylesheet it shares with the dashboard, the console's own navigation, and
// the slots console.js fills (who is signed in, the toast, the confirmation dialog). Markup only:
// the data comes from /console/api/…, signed in by the session cookie.
import type { Children } from "@kitajs/html";
import { ConfirmDialog, PageHead } from "../../web/markup.tsx";
import { CONSOLE_ASSET_BASE, CONSOLE_PATHS } from "./assets.ts";

export type ConsolePage = "overview" | "logs" | "runs" | "agents" | "keys";

const NAV: { page: ConsolePage; href: string; label: string }[] = [
  { page: "overview", href: "/console", label: "Usage" },
  { page: "logs", href: "/console/logs", label: "Request log" },
  { page: "runs", href: "/console/runs", label: "Runs" },
  { page: "agents", href: "/console/agents", label: "Agents" },
  { page: "keys", href: "/console/keys", label: "API keys" },
];

/** The head of every console page, the sign-in page's too. */
export const ConsoleHead = (props: { title: string; script: string }) => (
  <PageHead title={`${props.title} · Console`} styles={[CONSOLE_PATHS.consoleCss]} scripts={[CONSOLE_PATHS.uiJs, props.script]} base={CONSOLE_ASSET_BASE} />
);

export function ConsoleLayout(props: { page: ConsolePage; title: string; children: Children }) {
  return (
    <html lang="en">
      <ConsoleHead title={props.title} script={CONSOLE_PATHS.consoleJs} />
      <body data-page={props.page}>
        <a class="skip" href="#main">Skip to content</a>
        <header class="topbar">
          <div class="brand">
            <span class="logo" aria-hidden="true">R</span>
            <span class="brand-name">Relay console</span>
          </div>
          <nav aria-label="Console pages">
            {NAV.map((n) => (
              <a href={n.href} aria-current={n.page === props.page ? "page" : undefined} safe>
                {n.label}
              </a>
            ))}
          </nav>
          <div class="topbar-end">
            <span id="team-name" class="team-name"></span>
            <span id="plan-pill" class="pill" title="The team's plan"></span>
            <button type="button" id="sign-out" class="btn ghost">Sign out</button>
          </div>
        </header>
        <main id="main" tabindex="-1">
          <noscript><p class="notice">The console needs JavaScript to load its data.</p></noscript>
          <div id="toast" class="toast" role="status" aria-live="polite" hidden></div>
          {props.children}
        </main>
        <ConfirmDialog />
      </body>
    </html>
  );
}
