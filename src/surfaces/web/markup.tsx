/** @jsxImportSource @kitajs/html */
// Markup Relay's browser pages share (the dashboard, the team console): the head, the confirmation
// dialog ui.js opens, and a titled panel. Each surface serves the shared files under its own `base`.

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
