// Issue 34, "secrets never leave": a vendor error that echoes the operator's key
// (whole or partly masked) or the client's own credential, a `?key=` query string
// in vendor text, a base URL's password in `relay doctor`, and the store's files
// readable by every local user. Each attack checks every place the secret could
// surface: the client's body, the run log (HTTP and the store's files), Relay's
// log lines and `relay logs`.
import { expect } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeVendor } from "../../fakes/vendor.ts";
import { startRelay } from "../../helpers/relay.ts";
import { BUN, SERVER, childEnv, freePort, run } from "../../cli/relay-process.ts";
import { attack } from "./tally.ts";
import { ADMIN_TOKEN, chat, leaks, startSecretsRig } from "./lib-secrets.ts";

const OPENAI_KEY_CORE = "R7tQ2mX9vL4nK8pW3zY6hJ1cF5dG0sB";
const OPENAI_KEY = `sk-proj-ab${OPENAI_KEY_CORE}wxyz`;
/** How vendors echo a key they refuse: whole, or partly masked (OpenAI's own shape is the last). */
const ECHOES = [OPENAI_KEY, "sk-proj-ab***yz", "sk-...wxyz", `sk-proj-ab${"*".repeat(40)}wxyz`];

attack("secrets: a vendor error echoing the operator's key (whole or masked) reaches no body, run log, log line or `relay logs`", async () => {
  const rig = await startSecretsRig("openai", { env: { OPENAI_API_KEY: OPENAI_KEY } });
  try {
    const statuses: number[] = [];
    for (const echo of ECHOES) {
      for (const stream of [false, true]) {
        rig.vendor.enqueue({ status: 401, errorType: "invalid_request_error", errorMessage: `Incorrect API key provided: ${echo}. You can find your API key at https://platform.openai.com/account/api-keys.` });
        const r = await rig.post("/v1/chat/completions", chat("gpt-4o-mini", { stream }));
        statuses.push(r.status);
        // The vendor's explanation still reaches the client: only the key is gone.
        expect(r.text).toContain("Incorrect API key provided");
      }
    }
    // A vendor-side failure: it cools the provider down, and the warning quotes the vendor.
    rig.vendor.enqueue({ status: 503, errorMessage: `upstream auth service failed for key ${OPENAI_KEY}` });
    statuses.push((await rig.post("/v1/chat/completions", chat("gpt-4o-mini"))).status);
    expect(statuses).toEqual([...ECHOES.flatMap(() => [401, 401]), 503]);
    expect(rig.vendor.requests[0]?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(rig.relay.logs.some((l) => l.includes("cooled down"))).toBe(true);

    await rig.sweep();
    expect(leaks([...rig.seen, ...rig.relay.logs], [...ECHOES, OPENAI_KEY_CORE, ADMIN_TOKEN])).toEqual([]);
  } finally {
    await rig.stop();
  }
});

const CLIENT_KEY = "clientkey-7Hq2Lx9Vw3Rt5Ys8Mb4";
const CLIENT_BEARER = "clientbearer-4Nd8Kp2Ws6Fj1QzT0";

attack("secrets: the client's own credential (x-api-key, Authorization) echoed by the vendor reaches no body, run log, log line or `relay logs`", async () => {
  const rig = await startSecretsRig("anthropic");
  try {
    const body = chat("claude-haiku-4-5");
    const statuses: number[] = [];
    rig.vendor.enqueue({ status: 401, errorType: "authentication_error", errorMessage: `invalid x-api-key: ${CLIENT_KEY}` });
    statuses.push((await rig.post("/v1/messages", body, { "x-api-key": CLIENT_KEY })).status);
    rig.vendor.enqueue({ status: 401, errorType: "authentication_error", errorMessage: `invalid x-api-key: ${CLIENT_BEARER}` });
    statuses.push((await rig.post("/v1/messages", body, { authorization: `Bearer ${CLIENT_BEARER}` })).status);
    rig.vendor.enqueue({ status: 401, errorType: "authentication_error", errorMessage: `invalid x-api-key: ${CLIENT_KEY}` });
    statuses.push((await rig.post("/v1/messages", { ...body, stream: true }, { "x-api-key": CLIENT_KEY })).status);
    rig.vendor.enqueue({ status: 529, errorType: "overloaded_error", errorMessage: `overloaded while serving key ${CLIENT_KEY}` });
    statuses.push((await rig.post("/v1/messages", body, { "x-api-key": CLIENT_KEY })).status);
    expect(statuses).toEqual([401, 401, 401, 529]);
    expect(rig.vendor.requests.map((r) => r.headers["x-api-key"])).toEqual([CLIENT_KEY, CLIENT_BEARER, CLIENT_KEY, CLIENT_KEY]);
    expect(rig.relay.logs.some((l) => l.includes("cooled down"))).toBe(true);

    await rig.sweep();
    expect(leaks([...rig.seen, ...rig.relay.logs], [CLIENT_KEY, CLIENT_BEARER])).toEqual([]);
  } finally {
    await rig.stop();
  }
});

const GEMINI_KEY = "AIzaSyR3layT3stGem1niK3y0123456789abcd";
/** A key in a query string the vendor echoes: neither configured nor shaped like a vendor key. */
const QUERY_KEY = "qskey-Lw73Hx20Nc91Vb";

attack("secrets: a Gemini-style `?key=` query string echoed by a vendor reaches no log line, run log or body", async () => {
  const rig = await startSecretsRig("gemini", { env: { GEMINI_API_KEY: GEMINI_KEY } });
  try {
    rig.vendor.enqueue({ status: 503, errorMessage: `backend rejected POST /v1beta/models/gemini-2.5-flash:generateContent?key=${QUERY_KEY}&alt=sse` });
    const r = await rig.post("/v1/chat/completions", chat("gemini-2.5-flash"));
    expect(r.status).toBe(503);
    expect(r.text).toContain("backend rejected POST");
    // Relay's own call carries Gemini's key in a header, never in its URL.
    const sent = rig.vendor.requests[0]!;
    expect(`${sent.path}${sent.search}`).not.toContain(GEMINI_KEY);
    expect(sent.search).not.toContain("key=");
    expect(rig.relay.logs.some((l) => l.includes("cooled down"))).toBe(true);

    await rig.sweep();
    expect(leaks([...rig.seen, ...rig.relay.logs], [QUERY_KEY, GEMINI_KEY])).toEqual([]);
  } finally {
    await rig.stop();
  }
});

attack("secrets: `relay doctor` prints no base URL's password (reachable or not)", async () => {
  const vendor = await startFakeVendor("openai");
  const home = mkdtempSync(join(tmpdir(), "relay-doctor-"));
  try {
    const closed = await freePort();
    const env = childEnv(home, {
      OPENAI_API_KEY: "sk-doctor-test-key-0000000000000000",
      OPENAI_BASE_URL: `http://relayuser:s3cretPW-Tz81@127.0.0.1:${vendor.port}/v1`,
      ANTHROPIC_API_KEY: "sk-ant-doctor-test-key-00000000000",
      ANTHROPIC_BASE_URL: `http://relayuser:an7hPW-Qx42@127.0.0.1:${closed}`,
    });
    const out = await run([BUN, SERVER, "doctor", "--port", String(await freePort())], { env });
    const text = `${out.stdout}\n${out.stderr}`;
    // The reach checks ran against both URLs (so the scan looked at real output).
    expect(text).toContain(`127.0.0.1:${vendor.port}`);
    expect(text).toContain(`127.0.0.1:${closed}`);
    expect(leaks([text], ["s3cretPW-Tz81", "an7hPW-Qx42"])).toEqual([]);
  } finally {
    await vendor.close();
    rmSync(home, { recursive: true, force: true });
  }
});

/** Mode bits a file or folder gives to its group and to other users. */
const othersBits = (path: string) => statSync(path).mode & 0o077;

attack("secrets: relay.db, its WAL and journals, and the data folder are not readable by other users", async () => {
  // The usual umask: without a mode of its own, every file Relay makes would be world-readable.
  const umask = process.umask(0o022);
  const home = mkdtempSync(join(tmpdir(), "relay-modes-"));
  const dataDir = join(home, "state", "data");
  const vendor = await startFakeVendor("openai");
  const relay = await startRelay({
    home,
    env: { OPENAI_API_KEY: "sk-modes-test-key-0000000000000000" },
    config: { dataDir, pluginsDirs: [join(home, "plugins")], providers: { openai: { baseUrl: `${vendor.url}/v1` } } },
  });
  try {
    const res = await fetch(`${relay.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(chat("gpt-4o-mini")) });
    expect(res.status).toBe(200);
    await res.text();
    const files = readdirSync(dataDir);
    // The database, its WAL and the run log's journal exist now: the check below is not vacuous.
    expect(files).toEqual(expect.arrayContaining(["relay.db", "relay.db-wal"]));
    expect(files.some((f) => f.endsWith(".jsonl"))).toBe(true);
    const modes = Object.fromEntries([join(home, "state"), dataDir, ...files.map((f) => join(dataDir, f))].map((p) => [p.slice(home.length), othersBits(p).toString(8)]));
    expect(modes).toEqual(Object.fromEntries(Object.keys(modes).map((p) => [p, "0"])));
  } finally {
    process.umask(umask);
    await relay.stop();
    await vendor.close();
    rmSync(home, { recursive: true, force: true });
  }
});
