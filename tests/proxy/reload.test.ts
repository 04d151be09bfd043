// Hot reload (Relay.watch): config file edits apply while running, invalid
// edits are ignored, and a strategy plugin dropped into the plugins folder
// becomes routable without disturbing a stream already in flight.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { anthropicStreamText, chatBody, eventually, getJson, messagesBody, post, readStream, startWorld, type World } from "./world.ts";

// Generous bound for the watcher (200 ms debounce) on a shared, noisy machine.
const RELOAD_WITHIN_MS = 3000;

let w: World;
let configFile: string;
beforeAll(async () => {
  w = await startWorld({ config: { limits: { rpmDefault: 5 } } });
  configFile = join(w.relay.home, "config.json");
  // The watcher skips folders that do not exist yet.
  mkdirSync(join(w.relay.home, "plugins"));
  w.relay.relay.watch();
});
afterAll(() => w.stop());

const rpmDefault = async (): Promise<number> => (await getJson(w.url, "/v1/config", w.relay.admin)).limits.rpmDefault;

function editConfig(edit: (c: any) => void): void {
  const c = JSON.parse(readFileSync(configFile, "utf8"));
  edit(c);
  writeFileSync(configFile, JSON.stringify(c));
}

test("a config file edit is applied while running", async () => {
  expect(await rpmDefault()).toBe(5);
  editConfig((c) => (c.limits.rpmDefault = 9));
  await eventually(async () => ((await rpmDefault()) === 9 ? true : undefined), "rpmDefault 9", RELOAD_WITHIN_MS);
  expect(w.relay.logs.some((l) => l.includes("config reloaded"))).toBe(true);
});

test("an invalid edit is ignored: the running config is kept and the error logged", async () => {
  const failures = () => w.relay.logs.filter((l) => l.includes("config reload failed")).length;
  const before = failures();
  editConfig((c) => {
    c.limits.rpmDefault = 11;
    c.server = { port: "x" };
  });
  await eventually(() => (failures() > before ? true : undefined), "the reload failure to be logged", RELOAD_WITHIN_MS);
  expect(await rpmDefault()).toBe(9);

  writeFileSync(configFile, "{ not json");
  await eventually(() => (failures() > before + 1 ? true : undefined), "the second reload failure", RELOAD_WITHIN_MS);
  expect(await rpmDefault()).toBe(9);
  expect((await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"))).status).toBe(200);
});

test("a dropped strategy plugin becomes routable while an earlier stream completes normally", async () => {
  const text = Array.from({ length: 40 }, (_, i) => `t${i} `).join("");
  w.anthropic.enqueue({ text, textChunks: 40, chunkDelayMs: 50 });
  const inFlight = await post(w.url, "/v1/messages", messagesBody("claude-haiku-4-5", "stream", { stream: true }), { "x-api-key": "k" });
  expect(inFlight.status).toBe(200);
  let streamEnded = false;
  const reading = readStream(inFlight).finally(() => (streamEnded = true));

  expect((await post(w.url, "/v1/chat/completions", chatBody("svc:pinned"))).status).toBe(400);
  writeFileSync(
    join(w.relay.home, "plugins", "pinned.ts"),
    `import { definePlugin } from "relay/plugin";
export default definePlugin({
  kind: "strategy",
  name: "pinned",
  models: ["svc:pinned"],
  plan: () => ({ candidates: ["gpt-4o-mini"], mode: "fallback", reasons: ["pinned by plugin"] }),
});
`,
  );
  const routed = await eventually(
    async () => {
      const res = await post(w.url, "/v1/chat/completions", chatBody("svc:pinned"));
      return res.status === 200 ? res : undefined;
    },
    "svc:pinned to be routable",
    RELOAD_WITHIN_MS,
  );
  // The reload happened while the earlier stream was still running.
  expect(streamEnded).toBe(false);
  expect(routed.headers.get("x-svc-strategy")).toBe("pinned");
  expect(routed.headers.get("x-svc-routed-model")).toBe("gpt-4o-mini");
  expect(routed.headers.get("x-svc-routing-reasons")).toBe("pinned by plugin");

  const { text: sse, stalled } = await reading;
  expect(stalled).toBe(false);
  expect(anthropicStreamText(sse)).toEqual({ text, complete: true });
  const status = (await getJson(w.url, "/control/status", w.relay.admin)).plugins;
  expect(status.loaded).toEqual([{ file: expect.stringContaining("pinned.ts"), kind: "strategy", name: "pinned" }]);
});
