/** @jsxImportSource @kitajs/html */
// The page frame shared by the overview and settings pages. Markup only: the
// data is fetched by the client script, signed in by the listener's session
// cookie (see login.tsx).
import type { Children } from "@kitajs/html";
import { VERSION } from "../../version.ts";
import { ConfirmDialog, PageHead as SharedHead } from "../web/markup.tsx";
import { ASSET_BASE, ASSET_PATHS } from "./assets.ts";

export type PageName = "overview" | "settings";

const NAV: { page: PageName; href: string; label: string }[] = [
  { page: "overview", href: "/dashboard", label: "Overview" },
  { page: "settings", href: "/dashboard/settings", label: "Settings" },
];

/** The head every dashboard page shares (the sign-in page too). */
export const PageHead = (props: { title: string; styles?: string[]; scripts: string[] }) => <SharedHead {...props} base={ASSET_BASE} />;

export function Layout(props: { page: PageName; title: string; children: Children }) {
  return (
    <html lang="en">
      <PageHead title={props.title} styles={[ASSET_PATHS.uplotCss]} scripts={[ASSET_PATHS.uplotJs, ASSET_PATHS.uiJs, ASSET_PATHS.appJs]} />
      <body data-page={props.page}>
        <a class="skip" href="#main">Skip to content</a>
        <header class="topbar">
          <div class="brand">
            <span class="logo" aria-hidden="true">R</span>
            <span class="brand-name">Relay</span>
            <span class="version" safe>{`v${VERSION}`}</span>
          </div>
          <nav aria-label="Dashboard pages">
            {NAV.map((n) => (
              <a href={n.href} aria-current={n.page === props.page ? "page" : undefined} safe>
                {n.label}
              </a>
            ))}
          </nav>
          <div class="topbar-end">
            <span id="routing-pill" class="pill" role="status" aria-live="polite">…</span>
          </div>
        </header>
        <main id="main" tabindex="-1">
          <noscript><p class="notice">The dashboard needs JavaScript to load its data.</p></noscript>
          <div id="toast" class="toast" role="status" aria-live="polite" hidden></div>
          {props.children}
        </main>
        <ConfirmDialog />
      </body>
    </html>
  );
}
