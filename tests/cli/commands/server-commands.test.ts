// `relay status`, `logs`, `budget` against a real Relay (in this process, real
// SQLite, fake vendors), with the CLI run as a subprocess the way an operator would.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeVendor, type FakeVendor } from "../../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../../helpers/relay.ts";
import { FROM_SOURCE, childEnv, freePort, run } from "../relay-process.ts";

let openai: FakeVendor;
let relay: TestRelay;
let port: string;

const cli = (...args: string[]) => run([...FROM_SOURCE, ...args, "--port", port], { env: childEnv(relay.home) });

async function chat(model: string): Promise<void> {
  const res = await fetch(`${relay.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
  });
  expect(res.status).toBe(200);
  await res.text();
}

beforeAll(async () => {
  openai = await startFakeVendor("openai");
  openai.setDefault({ text: "hello", usage: { input: 1000, output: 100 } });
  relay = await startRelay({ env: { OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: "sk-test" } });
  port = new URL(relay.url).port;
  await chat("gpt-4o-mini");
  await chat("gpt-4o");
  await relay.relay.writer.flush();
});
afterAll(async () => {
  await relay.stop();
  await openai.close();
});

describe("relay status", () => {
  test("reports the running server, routing, today's spend and the providers with keys", async () => {
    const r = await cli("status");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`is running at http://127.0.0.1:${port}`);
    expect(r.stdout).toMatch(/routing:\s+enabled/);
    // gpt-4o-mini 1000/100 tokens at 0.15/0.6 + gpt-4o at 2.5/10 per million.
    const spent = (1000 * 0.15 + 100 * 0.6 + 1000 * 2.5 + 100 * 10) / 1e6;
    expect(r.stdout).toContain(`spend:      $${spent.toFixed(4)} in the last 24h (2 requests, 0 failed)`);
    expect(r.stdout).toMatch(/budget:\s+no daily budget/);
    expect(r.stdout).toMatch(/providers:.*openai/);
    expect(r.stdout).not.toContain("\x1b["); // not a terminal: no colour
  });

  test("says so and exits 1 when nothing answers", async () => {
    const r = await run([...FROM_SOURCE, "status", "--port", String(await freePort())], { env: childEnv(relay.home) });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("not running");
  });

  test("routing disabled shows as disabled", async () => {
    relay.relay.control.disable();
    try {
      expect((await cli("status")).stdout).toMatch(/routing:\s+disabled/);
    } finally {
      relay.relay.control.enable();
    }
  });
});

describe("relay logs", () => {
  test("--json prints one run per line, oldest first", async () => {
    const r = await cli("logs", "--json");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    const runs = lines.map((l) => JSON.parse(l));
    expect(runs.map((x) => x.routedModel)).toEqual(["gpt-4o-mini", "gpt-4o"]);
    expect(runs[0]).toMatchObject({ provider: "openai", status: 200, outcome: "ok", inputTokens: 1000, outputTokens: 100 });
  });

  test("--limit 1 prints only the newest run", async () => {
    const r = await cli("logs", "--json", "--limit", "1");
    expect(r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l).routedModel)).toEqual(["gpt-4o"]);
  });

  test("the text form shows model, provider, status and tokens", async () => {
    const r = await cli("logs");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/ 200 gpt-4o \(openai\) 1000→100 tok \$0\.0035 /);
  });

  test("--limit must be a whole number", async () => {
    const r = await cli("logs", "--limit", "many");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--limit");
  });

  test("--follow prints new runs as they arrive, each once", async () => {
    const proc = Bun.spawn([...FROM_SOURCE, "logs", "--follow", "--json", "--port", port], { env: childEnv(relay.home), stdout: "pipe", stderr: "pipe" });
    const lines: string[] = [];
    const reader = (async () => {
      let buf = "";
      for await (const chunk of proc.stdout.pipeThrough(new TextDecoderStream())) {
        buf += chunk;
        const parts = buf.split("\n");
        buf = parts.pop()!;
        lines.push(...parts);
      }
    })();
    const waitFor = async (n: number) => {
      for (let i = 0; i < 300 && lines.length < n; i++) await Bun.sleep(50);
    };
    try {
      await waitFor(2);
      expect(lines).toHaveLength(2);
      await chat("gpt-4.1-nano");
      await relay.relay.writer.flush();
      await waitFor(3);
      await Bun.sleep(1500); // a further poll must not repeat anything
      expect(lines.map((l) => JSON.parse(l).routedModel)).toEqual(["gpt-4o-mini", "gpt-4o", "gpt-4.1-nano"]);
    } finally {
      proc.kill();
      await proc.exited;
      await reader;
    }
  });
});

describe("relay budget", () => {
  test("shows both windows without limits", async () => {
    const r = await cli("budget");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^WINDOW\s+LIMIT\s+SPENT/m);
    expect(r.stdout).toMatch(/^hourly\s+none\s+\$0\.\d{4}/m);
    expect(r.stdout).toMatch(/^daily\s+none\s+\$0\.\d{4}/m);
    expect(r.stdout).toContain("No limits set");
  });

  test("set changes the running server's limits and saves them in its config file", async () => {
    const r = await cli("budget", "set", "--daily", "12.5", "--hourly", "2");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^hourly\s+\$2\.00\s/m);
    expect(r.stdout).toMatch(/^daily\s+\$12\.50\s/m);
    expect(relay.relay.config().limits).toMatchObject({ dailyUsd: 12.5, hourlyUsd: 2 });
    const saved = JSON.parse(readFileSync(join(relay.home, "config.json"), "utf8"));
    expect(saved.limits).toEqual({ dailyUsd: 12.5, hourlyUsd: 2 });
    expect((await cli("status")).stdout).toMatch(/budget:\s+\$0\.0000 of \$12\.50 daily budget spent today/);
  });

  test("set without a limit, or with a bad amount, is a usage error", async () => {
    const none = await cli("budget", "set");
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--daily");
    const bad = await cli("budget", "set", "--daily", "-3");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--daily");
  });

  test("an unknown flag exits 2", async () => {
    const r = await cli("budget", "--monthly", "5");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--monthly");
  });
});

describe("admin token", () => {
  test("RELAY_ADMIN_TOKEN is sent: the right one is let in, a wrong one is refused", async () => {
    const token = "admin-token-0123456789";
    const guarded = await startRelay({ config: { adminToken: token } });
    try {
      const at = (t: string) => run([...FROM_SOURCE, "budget", "--port", new URL(guarded.url).port], { env: childEnv(guarded.home, { RELAY_ADMIN_TOKEN: t }) });
      const ok = await at(token);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain("WINDOW");
      const refused = await at("wrong-token-0123456789");
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("HTTP 401");
    } finally {
      await guarded.stop();
    }
  });
});
