// Output of a benchmark run: the machine it ran on and one table of figures
// with a PASS/MISS verdict next to each target.
import { cpus } from "node:os";

export interface Row {
  case: string;
  target: string;
  rps?: number;
  p50Ms?: number;
  p99Ms?: number;
  /** Relay requests/s divided by the floor's, on the relay row. */
  ratio?: number;
  rssMb?: number;
  verdict?: string;
}

export async function machineLine(): Promise<string> {
  const cpuinfo = await Bun.file("/proc/cpuinfo").text().catch(() => "");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? "unknown CPU";
  return `machine: nproc ${navigator.hardwareConcurrency}, ${model}, Bun ${Bun.version}`;
}

export const verdict = (ok: boolean, text: string): string => `${ok ? "PASS" : "MISS"} ${text}`;

const num = (n: number | undefined, digits: number): string => (n === undefined ? "" : n.toFixed(digits));
const COLUMNS: Array<{ head: string; cell: (r: Row) => string; left?: boolean }> = [
  { head: "case", cell: (r) => r.case, left: true },
  { head: "target", cell: (r) => r.target, left: true },
  { head: "req/s", cell: (r) => (r.rps === undefined ? "" : Math.round(r.rps).toLocaleString("en-US")) },
  { head: "p50 ms", cell: (r) => num(r.p50Ms, 2) },
  { head: "p99 ms", cell: (r) => num(r.p99Ms, 2) },
  { head: "relay/floor", cell: (r) => num(r.ratio, 2) },
  { head: "relay RSS MB", cell: (r) => num(r.rssMb, 1) },
  { head: "verdict", cell: (r) => r.verdict ?? "", left: true },
];

export function formatTable(rows: Row[]): string {
  const cells = rows.map((r) => COLUMNS.map((c) => c.cell(r)));
  const widths = COLUMNS.map((c, i) => Math.max(c.head.length, ...cells.map((row) => row[i].length)));
  const line = (values: string[]) =>
    values.map((v, i) => (COLUMNS[i].left ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join("  ").trimEnd();
  return [line(COLUMNS.map((c) => c.head)), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)].join("\n");
}
