// Terminal output for the operator commands: colour only on a terminal and
// never with NO_COLOR (https://no-color.org), aligned tables, and a spinner on
// stderr so piped stdout stays clean.

type Env = Record<string, string | undefined>;

export interface Terminal {
  /** ANSI colours on stdout. */
  colour: boolean;
  /** A spinner may be drawn on stderr. */
  spinner: boolean;
  /** Both stdin and stdout are terminals: questions can be asked. */
  interactive: boolean;
}

export interface Streams {
  stdin: { isTTY?: boolean };
  stdout: { isTTY?: boolean };
  stderr: { isTTY?: boolean };
}

export function terminalFor(streams: Streams, env: Env): Terminal {
  const stdoutTty = streams.stdout.isTTY === true;
  const noColour = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  return {
    colour: stdoutTty && !noColour && env.TERM !== "dumb",
    spinner: stdoutTty && streams.stderr.isTTY === true,
    interactive: stdoutTty && streams.stdin.isTTY === true,
  };
}

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const sgr = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`;
const plain = (s: string) => s;

export function styleFor(term: Terminal): Style {
  if (!term.colour) return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39) };
}

const ANSI = /\x1b\[[0-9;]*m/g;
export const visibleLength = (s: string): number => s.replace(ANSI, "").length;

export interface Column {
  title: string;
  align?: "left" | "right";
}

/** Rows padded to their widest cell (colour codes not counted), two spaces apart, header first. */
export function renderTable(columns: Column[], rows: string[][], style: Style): string {
  const widths = columns.map((c, i) => Math.max(c.title.length, ...rows.map((r) => visibleLength(r[i] ?? ""))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => {
        const pad = " ".repeat(widths[i]! - visibleLength(cell));
        return columns[i]!.align === "right" ? pad + cell : i === cells.length - 1 ? cell : cell + pad;
      })
      .join("  ")
      .trimEnd();
  const header = style.bold(line(columns.map((c) => c.title)));
  return [header, ...rows.map(line)].join("\n") + "\n";
}

/** "$0.0123": four decimals below a dollar, where per-request costs live. */
export function formatUsd(n: number): string {
  return `$${n.toFixed(Math.abs(n) < 1 ? 4 : 2)}`;
}

export interface Spinner {
  stop(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A spinner with a label on stderr; does nothing when stderr/stdout is not a terminal. */
export function startSpinner(term: Terminal, label: string, write: (s: string) => void): Spinner {
  if (!term.spinner) return { stop() {} };
  let frame = 0;
  const draw = () => write(`\r${FRAMES[frame++ % FRAMES.length]} ${label}`);
  draw();
  const timer = setInterval(draw, 80);
  return {
    stop() {
      clearInterval(timer);
      write("\r\x1b[2K");
    },
  };
}
