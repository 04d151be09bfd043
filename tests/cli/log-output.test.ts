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

test("an access line is the line info() writes for the same fields, and is dropped below info", () => {
  const lines: string[] = [];
  const log = createLogger("info", (l) => lines.push(l));
  const paths = ["/v1/chat/completions", '/odd "path"\\é\u2028', "/proxy/https://user:hunter2@example.com/v1/models"];
  for (const path of paths) {
    const fields = { requestId: "req_0k9abcdef000abcdefghijk", method: "POST", path, status: 200, ms: 0.07 };
    // Both in one millisecond, or the times could differ: repeat until they share one.
    for (;;) {
      lines.length = 0;
      log.access(fields);
      log.info("request", fields);
      if (lines[0] === lines[1]) break;
      expect(JSON.parse(lines[0]!).time).not.toBe(JSON.parse(lines[1]!).time);
    }
  }
  expect(lines[0]).not.toContain("hunter2");
  const quiet = createLogger("warn", (l) => lines.push(l));
  lines.length = 0;
  quiet.access({ requestId: "req_1", method: "GET", path: "/health", status: 200, ms: 1 });
  expect(lines).toEqual([]);
});

test("stdout gets every line, in order, also when the process exits in the same turn", async () => {
  const script = `
    import { createLogger } from ${JSON.stringify(path.resolve("src/core/log.ts"))};
    import { stdoutSink } from ${JSON.stringify(path.resolve("src/runtime/stdout.ts"))};
    const log = createLogger("info", stdoutSink());
    for (let i = 0; i < 5000; i++) log.info("line", { i });
    log.info("last");
    process.exit(0);
  `;
  const run = async (): Promise<string> => {
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe" });
    const out = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    return out;
  };
  // Eight at once, four times: readers that lag behind busy writers, as journald can under load.
  // Lines left in Bun's asynchronous stdout buffer were lost at exit, cutting the output short in
  // about half of such rounds here; the synchronous write loses none.
  for (let round = 0; round < 4; round++) {
    for (const out of await Promise.all(Array.from({ length: 8 }, run))) {
      const lines = out.trimEnd().split("\n");
      expect(lines).toHaveLength(5001);
      const parsed = lines.map((l) => JSON.parse(l));
      expect(parsed.slice(0, 5000).map((l) => l.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
      expect(parsed[5000].msg).toBe("last");
    }
  }
});

test("a line reaches stdout while the process runs on, not only when it exits", async () => {
  // The marker is written straight to stdout 100 ms after the first line was logged: by then the
  // first line must be out, and the second, logged after the marker, must follow it.
  const script = `
    import { writeSync } from "node:fs";
    import { createLogger } from ${JSON.stringify(path.resolve("src/core/log.ts"))};
    import { stdoutSink } from ${JSON.stringify(path.resolve("src/runtime/stdout.ts"))};
    const log = createLogger("info", stdoutSink());
    log.info("first");
    await Bun.sleep(100);
    writeSync(1, "marker\\n");
    log.info("second");
  `;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe" });
  const out = await new Response(child.stdout).text();
  expect(await child.exited).toBe(0);
  const lines = out.trimEnd().split("\n");
  expect(lines.map((l) => (l === "marker" ? l : JSON.parse(l).msg))).toEqual(["first", "marker", "second"]);
});

test("a stdout the runtime made non-blocking, with a reader that lags: every line arrives, in order", async () => {
  // Touching process.stdout makes Bun set the pipe non-blocking, and `sleep` keeps the reader away
  // for 300 ms: the 400 KB of lines meet a full pipe, are kept and retried, and the rest is
  // written at exit.
  const script = `
    import { createLogger } from ${JSON.stringify(path.resolve("src/core/log.ts"))};
    import { stdoutSink } from ${JSON.stringify(path.resolve("src/runtime/stdout.ts"))};
    process.stdout.write("");
    const log = createLogger("info", stdoutSink());
    for (let i = 0; i < 5000; i++) {
      log.info("line", { i });
      if (i % 500 === 0) await Bun.sleep(1);
    }
    log.info("last");
  `;
  const child = Bun.spawn(["sh", "-c", '"$BUN" -e "$SCRIPT" | (sleep 0.3; cat)'], { env: { ...process.env, BUN: process.execPath, SCRIPT: script }, stdout: "pipe" });
  const out = await new Response(child.stdout).text();
  expect(await child.exited).toBe(0);
  const lines = out.trimEnd().split("\n").map((l) => JSON.parse(l));
  expect(lines).toHaveLength(5001);
  expect(lines.slice(0, 5000).map((l) => l.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  expect(lines[5000].msg).toBe("last");
});

test("a command's output written with writeAllSync arrives whole although the process exits at once", async () => {
  // What the CLI's stdout does. Bun's own process.stdout.write of these 400 KB followed by
  // process.exit arrived cut at 219 KB in about half of eight concurrent runs.
  const script = `
    import { writeAllSync } from ${JSON.stringify(path.resolve("src/runtime/fs.ts"))};
    process.stdout.write("");
    writeAllSync(1, ("x".repeat(79) + "\\n").repeat(5000), Infinity);
    process.exit(0);
  `;
  for (let round = 0; round < 2; round++) {
    const sizes = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe" });
        const out = await new Response(child.stdout).text();
        expect(await child.exited).toBe(0);
        return out.length;
      }),
    );
    expect(sizes).toEqual(Array(8).fill(400_000));
  }
});
