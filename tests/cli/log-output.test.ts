// The structured log: one JSON object per line, fields after time/level/msg,
// secrets masked; stdout gets a turn's lines in one write (the access log
// writes a line per request), and nothing pending is lost when the process exits.
import { expect, test } from "bun:test";
import path from "node:path";
import { createLogger } from "../../src/core/log.ts";

test("a line is time, level, msg, then the redacted fields; errors become name and message", () => {
  const lines: string[] = [];
  const log = createLogger("info", (l) => lines.push(l));
  log.info("request", { requestId: "req_1", status: 200, ms: 1.25, apiKey: "sk-secret", nested: { err: new Error("boom") } });
  log.warn("plain");
  log.debug("below the level");
  expect(lines).toHaveLength(2);
  expect(lines.every((l) => l.endsWith("\n") && !l.slice(0, -1).includes("\n"))).toBe(true);
  const first = JSON.parse(lines[0]!);
  expect(Object.keys(first)).toEqual(["time", "level", "msg", "requestId", "status", "ms", "apiKey", "nested"]);
  expect(first).toMatchObject({ level: "info", msg: "request", requestId: "req_1", status: 200, ms: 1.25, apiKey: "[redacted]" });
  expect(first.nested.err).toEqual({ name: "Error", message: "boom" });
  expect(new Date(first.time).toISOString()).toBe(first.time);
  expect(JSON.parse(lines[1]!)).toEqual({ time: expect.any(String), level: "warn", msg: "plain" });
});

test("stdout gets every line, in order, also when the process exits in the same turn", async () => {
  const script = `
    import { createLogger } from ${JSON.stringify(path.resolve("src/core/log.ts"))};
    const log = createLogger("info");
    for (let i = 0; i < 5000; i++) log.info("line", { i });
    log.info("last");
    process.exit(0);
  `;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe" });
  const out = await new Response(child.stdout).text();
  expect(await child.exited).toBe(0);
  const lines = out.trimEnd().split("\n").map((l) => JSON.parse(l));
  expect(lines).toHaveLength(5001);
  expect(lines.slice(0, 5000).map((l) => l.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  expect(lines[5000].msg).toBe("last");
});
