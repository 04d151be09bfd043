// `relay hooks dev` (issue 39 item 8) as a real process: it reads the workflows and their triggers
// from a JSON file, answers their paths on a local port, and a POST to one runs the workflow in local
// mode against the fake vendor (the body reaching {{input.…}}), the run printed as it starts and
// ends; the trigger's checks are the cloud's (a wrong method 405, an unsigned call 401, an unknown
// path 404, a web page's call 403); a file with an invalid trigger is refused at start with the field named (exit 2).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { startFakeVendor } from "../fakes/vendor.ts";
import type { FakeVendor } from "../fakes/types.ts";
import { eventually } from "../proxy/world.ts";
import { lastUserText } from "../workflows/world.ts";
import { BUN, childEnv, freePort, REPO, run, tempDir } from "./relay-process.ts";

const MAIN = join(REPO, "src/server.ts");
const SECRET = "a-dev-secret-of-the-sender";

const FILE = {
  workflows: [
    {
      name: "welcome",
      steps: [
        { name: "draft", model: "openai:gpt-4o-mini", userPrompt: "Welcome {{input.user.name}}" },
        { name: "polish", model: "openai:gpt-4o-mini", dependsOn: ["draft"], userPrompt: "Polish: {{steps.draft.output}}" },
      ],
      trigger: { endpoint: "signups/new" },
    },
    { name: "signed", steps: [{ name: "only", model: "openai:gpt-4o-mini" }], trigger: { endpoint: "signed", method: "PUT", secret: SECRET, signatureHeader: "x-signature" } },
  ],
};

describe("relay hooks dev", () => {
  let vendor: FakeVendor;
  let proc: Subprocess<"ignore", "pipe", "pipe">;
  let out = "";
  let url: string;
  let home: string;

  beforeAll(async () => {
    vendor = await startFakeVendor("openai");
    vendor.setDefault((req) => ({ text: lastUserText(req).startsWith("Welcome") ? "hi Ada" : "Hi, Ada!", usage: { input: 10, output: 5 } }));
    home = tempDir("hooks-dev");
    const file = join(home, "workflows.json");
    writeFileSync(file, JSON.stringify(FILE));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    proc = Bun.spawn([BUN, MAIN, "hooks", "dev", "--file", file, "--port", String(port)], {
      env: childEnv(home, { OPENAI_API_KEY: "sk-dev", RELAY_OPENAI_BASE_URL: `${vendor.url}/v1` }),
      cwd: REPO,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    void (async () => {
      for await (const chunk of proc.stdout) out += new TextDecoder().decode(chunk);
    })();
    await eventually(async () => out.includes("POST") || undefined, "the dev server to list its triggers", 15_000);
  });
  afterAll(async () => {
    proc?.kill("SIGTERM");
    expect(await proc?.exited).toBe(0);
    await vendor?.close();
  });

  test("it lists each trigger's method and address", () => {
    expect(out).toContain(`relay hooks dev: 2 trigger(s) from`);
    expect(out).toContain(`POST ${url}/hooks/local/signups/new → welcome`);
    expect(out).toContain(`PUT ${url}/hooks/local/signed → signed`);
  });

  test("a POST to a trigger path runs the workflow in local mode against the vendor, and the run is printed", async () => {
    const res = await fetch(`${url}/hooks/any-team/signups/new`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user: { name: "Ada" } }) });
    expect(res.status).toBe(202);
    const { run } = (await res.json()) as { run: { id: string; workflow: string } };
    expect(run.id).toMatch(/^wfr_/);
    expect(run.workflow).toBe("welcome");
    await eventually(async () => out.includes(`✓ ${run.id} welcome succeeded`) || undefined, "the run's end to be printed", 15_000);
    expect(vendor.requests.map(lastUserText)).toEqual(["Welcome Ada", "Polish: hi Ada"]);
    expect(vendor.requests.map((r) => r.headers.authorization)).toEqual(["Bearer sk-dev", "Bearer sk-dev"]);
    expect(out).toContain(`→ ${run.id} welcome started by /signups/new: input {"user":{"name":"Ada"}}`);
    expect(out).toContain('  draft: completed (openai:gpt-4o-mini');
    expect(out).toContain('  output: "Hi, Ada!"');
  });

  test("the trigger's checks are the cloud's: method 405, unsigned 401, unknown path 404, another origin 403; a signed PUT runs", async () => {
    const post = await fetch(`${url}/hooks/local/signed`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("PUT");
    const unsigned = await fetch(`${url}/hooks/local/signed`, { method: "PUT", headers: { "content-type": "application/json" }, body: "{}" });
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as any).error.code).toBe("invalid_signature");
    const missing = await fetch(`${url}/hooks/local/nothing-here`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(missing.status).toBe(404);
    await missing.body?.cancel();
    // A web page of another origin cannot start runs on the developer's keys.
    const fromPage = await fetch(`${url}/hooks/local/signups/new`, { method: "POST", headers: { "content-type": "text/plain", origin: "https://evil.example" }, body: "{}" });
    expect(fromPage.status).toBe(403);
    await fromPage.body?.cancel();

    const t = Math.floor(Date.now() / 1000);
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const mac = Buffer.from(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${t}.{"x":1}`))).toString("hex");
    const headers = { "content-type": "application/json", "x-signature": `t=${t},v1=${mac}` };
    const signed = await fetch(`${url}/hooks/local/signed`, { method: "PUT", headers, body: '{"x":1}' });
    expect(signed.status).toBe(202);
    await signed.body?.cancel();
    const replay = await fetch(`${url}/hooks/local/signed`, { method: "PUT", headers, body: '{"x":1}' });
    expect(replay.status).toBe(401);
    await replay.body?.cancel();
    await eventually(async () => out.includes(" signed succeeded") || undefined, "the signed run's end to be printed", 15_000);
  });

  test("a file with an invalid trigger is refused at start, the field named", async () => {
    const bad = join(home, "bad.json");
    writeFileSync(bad, JSON.stringify({ workflows: [{ ...FILE.workflows[0], trigger: { endpoint: "x", rateLimit: { requests: 1, window: "soon" } } }] }));
    const done = await run([BUN, MAIN, "hooks", "dev", "--file", bad, "--port", "0"], { env: childEnv(home) });
    expect(done.code).toBe(2);
    expect(done.stderr).toContain("trigger.rateLimit.window");
  });
});
