// Drives an HTTP target with wrk (C, one thread: it must not compete with the
// processes under test for the machine's two cores) and parses its summary.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tracked } from "./procs.ts";

export interface LoadSpec {
  url: string;
  body: string;
  headers?: Record<string, string>;
  connections: number;
  durationSec: number;
  /** One header whose value changes on each request, round-robin (bench/hosted.ts: one API key per team, so no team reaches its plan's rate limit). */
  cycle?: { header: string; values: string[] };
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx answers plus socket errors: any of these makes the figures suspect. */
  errors: number;
}

export function assertWrkInstalled(): void {
  if (!Bun.which("wrk")) throw new Error("wrk not found on PATH (Debian: apt-get install -y wrk)");
}

export async function runWrk(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), "relay-bench-wrk-"));
  const script = join(dir, "post.lua");
  writeFileSync(script, luaPost(spec.body, spec.headers ?? {}, spec.cycle));
  try {
    const proc = tracked(
      Bun.spawn(["wrk", "-t1", `-c${spec.connections}`, `-d${spec.durationSec}s`, "--timeout", "30s", "--latency", "-s", script, spec.url], {
        stdout: "pipe",
        stderr: "pipe",
      }),
    );
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0) throw new Error(`wrk exited with ${code}: ${err || out}`);
    return parseWrk(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function luaPost(body: string, headers: Record<string, string>, cycle?: LoadSpec["cycle"]): string {
  // A Lua long string needs no escaping as long as the text has no "]==]"; inside [ ] it needs
  // spaces around it, since "[[" would open a long string of its own.
  const long = (text: string) => {
    if (text.includes("]==]")) throw new Error(`cannot embed in the wrk script: ${text}`);
    return `[==[${text}]==]`;
  };
  const lines = ['wrk.method = "POST"', `wrk.body = ${long(body)}`];
  for (const [name, value] of Object.entries({ "content-type": "application/json", ...headers })) lines.push(`wrk.headers[ ${long(name)} ] = ${long(value)}`);
  if (cycle) {
    // Every request is formatted once, at start: per request wrk only picks the next one.
    lines.push("local requests, n = {}, 0", "init = function()", `  for i, v in ipairs({ ${cycle.values.map(long).join(", ")} }) do`);
    lines.push(`    wrk.headers[ ${long(cycle.header)} ] = v`, "    requests[i] = wrk.format()", "  end", "end");
    lines.push("request = function() n = n % #requests + 1; return requests[n] end");
  }
  return `${lines.join("\n")}\n`;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function percentileMs(out: string, pct: string): number {
  const m = new RegExp(`^\\s*${pct}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(out);
  if (!m) throw new Error(`wrk output has no ${pct}% latency:\n${out}`);
  return Number(m[1]) * UNIT_MS[m[2]];
}

export function parseWrk(out: string): LoadResult {
  const requests = /(\d+) requests in/.exec(out);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!requests || !rps) throw new Error(`unreadable wrk output:\n${out}`);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((s, n) => s + Number(n), 0) : 0;
  return {
    requests: Number(requests[1]),
    rps: Number(rps[1]),
    p50Ms: percentileMs(out, "50"),
    p99Ms: percentileMs(out, "99"),
    errors: non2xx + socketErrors,
  };
}
