// Issue 6.3: hostile input on every route. Property-based (fast-check) bodies,
// queries and headers: malformed JSON, wrong types, huge strings, deep nesting,
// unicode edge cases and prototype-pollution keys; since issue 34 also model
// names, top-level keys, x-svc-* header values (sent as raw bytes) and asset
// paths with control and non-Latin characters. Every answer must be a
// well-formed error (or a real answer), never an unexpected 5xx or a crash;
// Object.prototype stays clean; a rejected request changes neither the config
// nor the run log. Prints `bad inputs tried: N, unexpected 5xx: N`.
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { rawRequest } from "./attacks/lib-badnames.ts";

const RUNS = 120; // per property
let relay: TestRelay;
let fakes: FakeVendor[];
/** Chat calls the fake vendors received (token-count passthroughs excluded). */
const modelCalls = () => fakes.reduce((n, f) => n + f.requests.filter((r) => !r.path.endsWith("/count_tokens")).length, 0);
let tried = 0;
/** 5xx answers other than a vendor's own error relayed (or the spec's other 500s, ALLOWED_5XX): each is a bug. */
let unexpected5xx = 0;

beforeAll(async () => {
  fakes = await Promise.all([startFakeVendor("openai"), startFakeVendor("anthropic")]);
  relay = await startRelay({ env: { OPENAI_BASE_URL: `${fakes[0]!.url}/v1`, OPENAI_API_KEY: "k", ANTHROPIC_BASE_URL: fakes[1]!.url, ANTHROPIC_API_KEY: "k" } });
});
afterAll(async () => {
  await relay?.stop();
  await Promise.all(fakes.map((f) => f.close()));
  console.log(`bad inputs tried: ${tried}, unexpected 5xx: ${unexpected5xx}`);
});

const POLLUTERS = ["__proto__", "constructor", "prototype"];
const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

const weirdString = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.constantFrom("\uD800", "\uDFFF", "a\u0000b", "\u202Eevil\u202C", "\uFEFF", "💥".repeat(1000), "x".repeat(200_000)),
);
const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), weirdString, fc.constant(null), fc.integer(), fc.double());
const pollutingObject = fc
  .tuple(fc.constantFrom(...POLLUTERS), anyValue)
  .map(([k, v]) => JSON.parse(`{${JSON.stringify(k)}:${JSON.stringify({ polluted: v ?? 1, adminToken: "x".repeat(20) })}}`));

/** Raw request bodies: broken JSON, deep nesting, wrong types, polluting keys, half-valid chat bodies. */
const body = fc.oneof(
  fc.string().map((s) => `{${s}`),
  fc.constantFrom("", "null", "[]", "42", '"str"', deep(10_000), deepObject(10_000), '{"model":' + deep(5000) + "}"),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  pollutingObject.map((o) => JSON.stringify(o)),
  fc
    .record({
      model: fc.oneof(fc.constantFrom("gpt-4o-mini", "claude-haiku-4-5", "svc:auto", "__proto__", "constructor"), anyValue),
      messages: fc.oneof(anyValue, fc.array(fc.record({ role: fc.oneof(fc.constantFrom("user", "assistant", "system", "tool"), anyValue), content: anyValue }), { maxLength: 3 })),
      max_tokens: fc.oneof(fc.constant(undefined), anyValue),
      stream: fc.oneof(fc.constant(undefined), anyValue),
      tools: fc.oneof(fc.constant(undefined), anyValue),
    }, { requiredKeys: [] })
    .map((o) => JSON.stringify(o)),
);

/** JSON with every non-ASCII character escaped, so it can travel in a header. */
const asciiJson = (v: unknown) => JSON.stringify(v).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 300 });
const headers = fc.record(
  {
    "x-svc-metadata": fc.oneof(headerText, pollutingObject.map(asciiJson), fc.constant('{"__proto__":{"polluted":1}}')),
    "x-svc-session": headerText,
    authorization: headerText,
    "x-api-key": headerText,
    "anthropic-version": headerText,
    "content-type": fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"),
  },
  { requiredKeys: [] },
);

const POST_ROUTES = ["/v1/messages", "/v1/messages/count_tokens", "/v1/chat/completions", "/openai/v1/chat/completions", "/control/config", "/control/kill", "/control/enable", "/v1/mesh/sync", "/nope"];
const GET_ROUTES = ["/v1/models", "/v1/telemetry/runs", "/v1/telemetry/stats", "/v1/telemetry/savings", "/dashboard/api/runs", "/dashboard/api/series", "/dashboard/api/summary", "/health", "/control/status"];
const QUERY_KEYS = ["limit", "offset", "days", "range", "q", "model", "status", "__proto__", "constructor"];
const query = fc.array(fc.tuple(fc.constantFrom(...QUERY_KEYS), fc.oneof(headerText, fc.constantFrom("-1", "1e309", "99999999999999999999", "NaN", "0x10", "", "\u0000"))), { maxLength: 4 });

// Names with control and non-Latin characters (issue 34): model names, top-level keys, header values, asset paths.
const controlChar = fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0x9f })).map((c) => String.fromCharCode(c));
const NON_LATIN = ["модель", "模型", "💥", "עברית", "ｇｐｔ-４ｏ", "\u202Egpt\u202C", "e\u0301", "\uD800", "caf\u00e9", "\uFEFFgpt-4o-mini"];
const nonLatin = fc.oneof(fc.constantFrom(...NON_LATIN), fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }));
const withControl = fc
  .tuple(fc.constantFrom("", "gpt-4o-mini", "claude-haiku-4-5", "svc:auto", "openai:gpt-4o", "x"), controlChar, fc.constantFrom("", "x", "\r\nx-evil: 1"))
  .map(([a, c, b]) => a + c + b);
/** Model names: with control characters, non-Latin, and non-Latin behind a provider prefix (forwarded as is). */
const badName = fc.oneof(
  withControl,
  nonLatin,
  fc.tuple(fc.constantFrom("openai:", "anthropic:"), fc.oneof(nonLatin, fc.constantFrom(...POLLUTERS, "hasOwnProperty", "toString"))).map(([p, n]) => p + n),
);
const CHAT_ROUTES = ["/v1/chat/completions", "/v1/messages", "/v1/messages/count_tokens"];
const chatBody = (model: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model, max_tokens: 16, messages: [{ role: "user", content: "hi" }], ...extra });
/** Header values as raw bytes: control characters (not CR or LF, which end the line: another request, not a bad value) and non-Latin text. */
const rawHeaderValue = fc.oneof(
  nonLatin,
  withControl.map((v) => v.replace(/[\r\n]/g, "")),
  nonLatin.map((v) => JSON.stringify({ team: v })),
);
const ASSET_ROUTES = ["/dashboard/assets/", "/docs/assets/"];
const assetName = fc.oneof(
  fc.constantFrom(...POLLUTERS, "hasOwnProperty", "toString", "valueOf", "__defineGetter__", "app.js\u0000", "../config.json"),
  withControl,
  nonLatin,
);
const withoutControl = (s: string): string => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, "");

/** The spec's 500s that real conditions can produce; every other 5xx is a bug. */
const ALLOWED_5XX = /^(Request body too large|Missing \w+_API_KEY environment variable|Provider error: )/;

function expectWellFormed(status: number, text: string, path: string): void {
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${path} answered ${status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  const error = parsed?.error;
  expect({ path, status, message: typeof error?.message }).toEqual({ path, status, message: "string" });
  // Anthropic style: {type:"error", error:{type,message}}; the others: {error:{code,message}, request_id}.
  if (path.startsWith("/v1/messages")) expect(parsed.type).toBe("error");
  else {
    expect(typeof error.code).toBe("string");
    expect(parsed.request_id).toMatch(/^req_/);
  }
  if (status >= 500) expect({ path, status, message: error.message }).toEqual({ path, status, message: expect.stringMatching(ALLOWED_5XX) });
}

const prototypeKeys = () => Object.getOwnPropertyNames(Object.prototype).sort();
let cleanPrototype: string[];

type Sender = (method: string, path: string, h: Record<string, string>, bodyText?: string) => Promise<{ status: number; text: string }>;

const viaFetch: Sender = async (method, path, h, bodyText) => {
  const res = await fetch(`${relay.url}${path}`, { method, headers: h, body: bodyText });
  return { status: res.status, text: await res.text() };
};

/** Header names and values written as raw UTF-8 bytes, which fetch refuses to send. */
const viaSocket: Sender = async (method, path, h, bodyText) => {
  const res = await rawRequest(relay.url, method, path, Object.entries(h), bodyText);
  return { status: res.status, text: res.body };
};

const errorMessage = (text: string): string => {
  try {
    return String(JSON.parse(text)?.error?.message ?? "");
  } catch {
    return "";
  }
};
const vendorRelayed = (text: string): boolean => /^Provider error: /.test(errorMessage(text));

async function check(method: "GET" | "POST", path: string, h: Record<string, string>, bodyText?: string, send: Sender = viaFetch): Promise<number> {
  tried++;
  const configFile = join(relay.home, "config.json");
  const fileBefore = readFileSync(configFile, "utf8");
  const configBefore = JSON.stringify(relay.relay.config());
  const vendorCallsBefore = modelCalls();
  await relay.relay.writer.flush();
  const runsBefore = (await relay.relay.store.runs.totals(0)).requests;

  const res = await send(method, path, h, bodyText);
  const text = res.text;
  if (res.status >= 500 && !ALLOWED_5XX.test(errorMessage(text))) unexpected5xx++;
  // Bun's HTTP parser refuses oversized headers (431) and control bytes in a header (a bare 400)
  // before Relay sees the request: there is no body to shape.
  const parserRefused = res.status === 431 || (res.status === 400 && text === "");
  const rejected = res.status >= 400;
  if (rejected && !parserRefused) expectWellFormed(res.status, text, path);
  if (rejected) {
    // A rejected request changes nothing it must not.
    expect(readFileSync(configFile, "utf8")).toBe(fileBefore);
    expect(JSON.stringify(relay.relay.config())).toBe(configBefore);
  } else {
    expect(res.status).toBeLessThan(300);
  }
  // Model calls that reached a vendor are logged; nothing else is. Token counting
  // (/v1/messages/count_tokens, passed through to Anthropic) is not a model run.
  await relay.relay.writer.flush();
  const vendorCalls = modelCalls() - vendorCallsBefore;
  const logged = (await relay.relay.store.runs.totals(0)).requests - runsBefore;
  if (parserRefused || (res.status >= 400 && !vendorRelayed(text))) expect({ path, logged }).toEqual({ path, logged: 0 });
  expect({ path, logged }).toEqual({ path, logged: vendorCalls });

  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).adminToken).toBeUndefined();
  expect(prototypeKeys()).toEqual(cleanPrototype);
  if (relay.relay.control.routingEnabled === false || relay.relay.control.snapshot().killedAll) relay.relay.control.enable();
  return res.status;
}

test("every POST route answers hostile bodies and headers with a well-formed error or a real answer", async () => {
  cleanPrototype = prototypeKeys();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...POST_ROUTES), body, headers, async (path, b, h) => void (await check("POST", path, h, b))),
    { numRuns: RUNS * 3 },
  );
  expect((await fetch(`${relay.url}/health`)).status).toBe(200);
}, 90_000);

test("every GET route answers hostile queries and headers", async () => {
  cleanPrototype = prototypeKeys();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...GET_ROUTES), query, headers, async (path, q, h) => {
      const qs = new URLSearchParams(q).toString();
      await check("GET", qs ? `${path}?${qs}` : path, h);
    }),
    { numRuns: RUNS },
  );
  expect((await fetch(`${relay.url}/health`)).status).toBe(200);
}, 60_000);

test("config patches with polluting keys are refused and change nothing", async () => {
  cleanPrototype = prototypeKeys();
  for (const key of POLLUTERS) {
    for (const at of ["", "server", "providers", "routing.strategies"]) {
      const patch = at.split(".").filter(Boolean).reduceRight<Record<string, unknown>>((inner, k) => ({ [k]: inner }), JSON.parse(`{${JSON.stringify(key)}:{"adminToken":"pwned-pwned-pwned-pwned","polluted":1}}`));
      const status = await check("POST", "/control/config", relay.adminJson, JSON.stringify(patch));
      expect({ key, at, status }).toEqual({ key, at, status: 400 });
    }
  }
  expect(relay.relay.config().adminToken).toBeUndefined();
});

test("model names and top-level keys with control or non-Latin characters: a 400 naming them, or a real answer", async () => {
  cleanPrototype = prototypeKeys();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...CHAT_ROUTES), badName, async (path, model) => {
      const status = await check("POST", path, { "content-type": "application/json" }, chatBody(model));
      if (withoutControl(model) !== model) expect({ model, status }).toEqual({ model, status: 400 });
    }),
    { numRuns: RUNS },
  );
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...CHAT_ROUTES), fc.oneof(withControl, nonLatin), async (path, key) => {
      const status = await check("POST", path, { "content-type": "application/json" }, chatBody("gpt-4o-mini", { [key]: 1 }));
      if (withoutControl(key) !== key) expect({ key, status }).toEqual({ key, status: 400 });
    }),
    { numRuns: RUNS / 2 },
  );
}, 90_000);

test("x-svc-* header values with control or non-Latin bytes, sent raw", async () => {
  cleanPrototype = prototypeKeys();
  const routes = fc.constantFrom("/v1/chat/completions", "/v1/messages");
  const names = fc.constantFrom("x-svc-session", "x-svc-metadata", "x-claude-code-session-id");
  await fc.assert(
    fc.asyncProperty(routes, names, rawHeaderValue, async (path, name, value) => {
      const model = path === "/v1/messages" ? "claude-haiku-4-5" : "gpt-4o-mini";
      await check("POST", path, { "content-type": "application/json", [name]: value }, chatBody(model), viaSocket);
    }),
    { numRuns: RUNS },
  );
}, 90_000);

test("asset paths with prototype names, control or non-Latin characters answer 404", async () => {
  cleanPrototype = prototypeKeys();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...ASSET_ROUTES), assetName, async (route, name) => {
      const status = await check("GET", `${route}${encodeURIComponent(name.toWellFormed())}`, {});
      expect({ route, name, status }).toEqual({ route, name, status: 404 });
    }),
    { numRuns: RUNS },
  );
}, 60_000);

// Last: the tally of every input above.
test("no input of the sweep got an unexpected 5xx", () => {
  expect({ tried: tried > 0, unexpected5xx }).toEqual({ tried: true, unexpected5xx: 0 });
});
