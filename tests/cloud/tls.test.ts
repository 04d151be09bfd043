// `relay cloud` and transport security (issue 37 item 6), through the real CLI: HTTPS with
// cloud.tls.cert/key (a certificate made here with openssl, trusted by the client as its CA), the
// refusal to serve plain HTTP off loopback unless cloud.behindProxy says a TLS-terminating proxy is
// in front, and one clear line for a certificate or key that cannot be used.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FROM_SOURCE, childEnv, freePort, parseLogLines, run, tempDir } from "../cli/relay-process.ts";

/** Each test starts `relay cloud` processes (up to seven in a row): room for a loaded machine. */
const SLOW = 60_000;
const ADMIN = { RELAY_ADMIN_TOKEN: "an-admin-token-of-16-plus" };
const dir = tempDir("tls");
const cert = join(dir, "cert.pem");
const key = join(dir, "key.pem");
const otherKey = join(dir, "other-key.pem");

/** A self-signed certificate for 127.0.0.1 and localhost, valid one day: test-only, made per run. */
function makeCertificate(certPath: string, keyPath: string) {
  const made = Bun.spawnSync([
    "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", keyPath, "-out", certPath,
  ], { stderr: "pipe" });
  if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
}

beforeAll(() => {
  makeCertificate(cert, key);
  makeCertificate(join(dir, "other-cert.pem"), otherKey);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let homes = 0;
/** A home (under `dir`, removed with it) with this config file. */
function home(config: object = {}): string {
  const h = join(dir, `home-${++homes}`);
  mkdirSync(h);
  writeFileSync(join(h, "config.json"), JSON.stringify(config));
  return h;
}

/** `relay cloud` as a child process, once `url`/health answers; stopped by the caller. */
async function startCloud(env: Record<string, string>, args: string[], url: (port: number) => string, init: RequestInit = {}) {
  const port = await freePort();
  const proc = Bun.spawn([...FROM_SOURCE, "cloud", "--port", String(port), ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const base = url(port);
  for (let tries = 0; ; tries++) {
    if (proc.exitCode !== null) throw new Error(`relay cloud exited ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
    if (await fetch(`${base}/health`, init).then((r) => r.ok, () => false)) break;
    if (tries > 1200) throw new Error("relay cloud did not answer /health within 30 s");
    await Bun.sleep(25);
  }
  return {
    base,
    async stop() {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      return parseLogLines(await new Response(proc.stdout).text());
    },
  };
}

/** A usage error: exit 2 and one line on stderr holding every fragment. */
function expectRefusal(r: { code: number | null; stdout: string; stderr: string }, ...fragments: string[]) {
  expect(r.code).toBe(2);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  for (const f of fragments) expect(r.stderr).toContain(f);
}

describe("relay cloud over HTTPS", () => {
  test("serves HTTPS with cloud.tls (env), also off loopback; plain HTTP gets no answer", async () => {
    const env = childEnv(home(), { ...ADMIN, RELAY_CLOUD_TLS_CERT: cert, RELAY_CLOUD_TLS_KEY: key });
    const ca = readFileSync(cert, "utf8");
    const cloud = await startCloud(env, ["--host", "0.0.0.0"], (port) => `https://127.0.0.1:${port}`, { tls: { ca } } as RequestInit);
    try {
      const res = await fetch(`${cloud.base}/api/health`, { tls: { ca } } as RequestInit);
      expect([200, 503]).toContain(res.status);
      expect(((await res.json()) as any).services.database).toBe("healthy");
      // Verified against the certificate by name too, not only by address.
      const byName = cloud.base.replace("127.0.0.1", "localhost");
      expect((await fetch(`${byName}/health`, { tls: { ca } } as RequestInit)).status).toBe(200);
      // Without trusting the certificate the client refuses; plain HTTP on the port gets no HTTP answer.
      expect(await fetch(`${cloud.base}/health`).then(() => "answered", () => "refused")).toBe("refused");
      expect(await fetch(`${cloud.base.replace("https:", "http:")}/health`).then((r) => r.status, () => "no answer")).toBe("no answer");
    } finally {
      const logs = await cloud.stop();
      expect(logs.find((l) => l.msg === "relay listening")?.url).toMatch(/^https:\/\//);
    }
  }, SLOW);

  test("cloud.tls from the config file, with the certificate checked by curl as well", async () => {
    const cloud = await startCloud(childEnv(home({ cloud: { tls: { cert, key } } })), [], (port) => `https://localhost:${port}`, { tls: { ca: readFileSync(cert, "utf8") } } as RequestInit);
    try {
      const curl = await run(["curl", "-s", "--cacert", cert, `${cloud.base}/api/health`], { env: childEnv(dir) });
      expect(curl.code).toBe(0);
      expect(JSON.parse(curl.stdout).services.database).toBe("healthy");
    } finally {
      await cloud.stop();
    }
  }, SLOW);
});

describe("plain HTTP off loopback", () => {
  test("is refused, naming cloud.tls and cloud.behindProxy", async () => {
    const r = await run([...FROM_SOURCE, "cloud", "--host", "0.0.0.0", "--port", String(await freePort())], { env: childEnv(home(), ADMIN) });
    expectRefusal(r, "refusing to serve the hosted API on 0.0.0.0 over plain HTTP", "cloud.tls.cert", "cloud.tls.key", "cloud.behindProxy");
  }, SLOW);

  test("the admin-token refusal still comes first", async () => {
    const r = await run([...FROM_SOURCE, "cloud", "--host", "0.0.0.0", "--port", String(await freePort())], { env: childEnv(home({ cloud: { behindProxy: true } })) });
    expectRefusal(r, "refusing to listen on 0.0.0.0", "RELAY_ADMIN_TOKEN");
  }, SLOW);

  test("is served with cloud.behindProxy: true", async () => {
    const cloud = await startCloud(childEnv(home({ cloud: { behindProxy: true } }), ADMIN), ["--host", "0.0.0.0"], (port) => `http://127.0.0.1:${port}`);
    try {
      expect((await fetch(`${cloud.base}/api/health`)).headers.get("content-type")).toContain("application/json");
    } finally {
      await cloud.stop();
    }
  }, SLOW);
});

describe("a certificate or key that cannot be used", () => {
  const cloudWith = async (tls: object) => run([...FROM_SOURCE, "cloud", "--port", String(await freePort())], { env: childEnv(home({ cloud: { tls } })) });

  test("is one clear line naming the setting, never a stack trace", async () => {
    const notPem = join(dir, "not.pem");
    writeFileSync(notPem, "hello");
    const folder = join(dir, "folder");
    mkdirSync(folder, { recursive: true });
    expectRefusal(await cloudWith({ cert: join(dir, "missing.pem"), key }), "cannot read cloud.tls.cert", "no such file");
    expectRefusal(await cloudWith({ cert, key: folder }), "cannot read cloud.tls.key", "EISDIR");
    expectRefusal(await cloudWith({ cert: notPem, key }), "cloud.tls.cert", "holds no PEM certificate");
    expectRefusal(await cloudWith({ cert, key: cert }), "cloud.tls.key", "holds no PEM private key");
    expectRefusal(await cloudWith({ cert, key: otherKey }), "cannot listen", "cloud.tls.cert and cloud.tls.key", "KEY_VALUES_MISMATCH");
    expectRefusal(await cloudWith({ cert }), "/cloud/tls/key");
  }, SLOW);
});
