/** @jsxImportSource @kitajs/html */
// Markup Relay's browser pages share (the dashboard, the team console): the head, the confirmation
// dialog ui.js opens, a titled panel, and the request log's pager and detail drawer. Each surface serves the shared files under its own `base`.

/** A page's head: its own styles and deferred scripts, the shared stylesheet last; the icon and stylesheet from `base`. */
export function PageHead(props: { title: string; base: string; styles?: string[]; scripts: string[] }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="color-scheme" content="light dark" />
      <title safe>{`${props.title} · Relay`}</title>
      <link rel="icon" href={`${props.base}/icon.svg`} type="image/svg+xml" />
      {(props.styles ?? []).map((href) => (
        <link rel="stylesheet" href={href} />
      ))}
      <link rel="stylesheet" href={`${props.base}/app.css`} />
      {props.scripts.map((src) => (
        <script src={src} defer></script>
      ))}
    </head>
  );
}

/** The confirmation dialog of ui.js `confirmAction`. */
export const ConfirmDialog = () => (
  <dialog id="confirm-dialog" class="modal" aria-labelledby="confirm-title">
    <form method="dialog">
      <h2 id="confirm-title">Are you sure?</h2>
      <p id="confirm-text"></p>
      <div class="actions">
        <button type="submit" value="cancel" class="btn">Cancel</button>
        <button type="submit" value="ok" id="confirm-ok" class="btn primary">Confirm</button>
      </div>
    </form>
  </dialog>
);

export function Panel(props: { id: string; title: string; children: JSX.Element | JSX.Element[]; class?: string }) {
  return (
    <section class={`panel ${props.class ?? ""}`} aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`} safe>{props.title}</h2>
      {props.children}
    </section>
  );
}

/** The request log's pager: the page scripts fill #page-info and wire the two buttons. */
export const LogPager = () => (
  <nav class="pager" aria-label="Request log pages">
    <button type="button" id="page-prev" class="btn">Newer</button>
    <span id="page-info" class="muted" aria-live="polite"></span>
    <button type="button" id="page-next" class="btn">Older</button>
  </nav>
);

/** The drawer a request's detail opens in (#drawer-body), closed by #drawer-close or Escape. */
export const RequestDrawer = () => (
  <dialog id="drawer" class="drawer" aria-labelledby="drawer-title">
    <div class="drawer-head">
      <h2 id="drawer-title">Request</h2>
      <button type="button" id="drawer-close" class="btn ghost" aria-label="Close details">✕</button>
    </div>
    <div id="drawer-body" class="drawer-body"></div>
  </dialog>
);
