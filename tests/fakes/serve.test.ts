import { expect, test } from "bun:test";
import path from "node:path";
import { parseSse } from "./wire.ts";

test("serve.ts prints LISTENING <url> and answers with the configured chunking", async () => {
  const proc = Bun.spawn(
    [process.execPath, path.join(import.meta.dir, "serve.ts"), "--kind", "anthropic", "--port", "0", "--latency-ms", "1", "--chunks", "4"],
    { stdout: "pipe", stderr: "inherit" },
  );
  try {
    const reader = proc.stdout.getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    const url = /^LISTENING (http:\/\/\S+)$/m.exec(out)?.[1];
    expect(url).toBeDefined();
    const res = await fetch(`${url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "k", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-bench", stream: true, max_tokens: 10, messages: [] }),
    });
    const events = parseSse(await res.text());
    expect(events.filter((e) => e.data.includes('"text_delta"')).length).toBe(4);
    expect(events.at(-1)!.event).toBe("message_stop");
  } finally {
    proc.kill();
    await proc.exited;
  }
});
