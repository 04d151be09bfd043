// Issue 6.6: the soak benchmark in its CI short form (30 s) must end by itself
// with a PASS verdict (bounded RSS and fds, only injected failures, no lost records).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, REPO, run } from "../cli/relay-process.ts";

test("bench/soak.ts --minutes 0.5 passes", async () => {
  const result = await run([BUN, join(REPO, "bench/soak.ts"), "--minutes", "0.5"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
    timeoutMs: 90_000,
  });
  const summary = result.stdout.split("\n").filter((l) => l.startsWith("soak:") || l.startsWith("VERDICT"));
  console.log(summary.join("\n"));
  expect(result.stdout).toContain("VERDICT: PASS");
  expect(result.code).toBe(0);
}, 100_000);
