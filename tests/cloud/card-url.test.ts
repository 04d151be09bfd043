// POST /api/register with an A2A Agent Card by URL (card_url; issue 37 item 3) over real HTTP on the
// `relay cloud` listener, on SQLite and on Postgres: the card is fetched from a real local server and
// checked like an inline one; every refusal (unsafe URL, unreachable, not JSON, not a card, too large,
// a redirect) is a 400 naming card_url; with cloud.allowPrivateNetworks false (the default) a card on
// this machine is refused without being fetched.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { postgresDatabase } from "./pg-database.ts";

const CARD = {
  name: "Translator",
  description: "translates text",
  url: "https://agents.example/a2a",
  version: "1.0.0",
  protocolVersion: "0.3.0",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "translate", name: "Translate", description: "any language pair", tags: ["language", "i18n"] }],
};
// A2A 1.0: no top-level url; the first supported interface says where the agent answers.
const { url: _url, protocolVersion: _pv, ...rest } = CARD;
const CARD_V1 = { ...rest, name: "Summarizer", supportedInterfaces: [{ url: "https://agents.example/v1", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }] };

/** The card server: one path per kind of answer, and a count of the requests it got. */
function cardServer() {
  let hits = 0;
  const json = (body: string, type = "application/json") => new Response(body, { headers: { "content-type": type } });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      hits++;
      switch (new URL(req.url).pathname) {
        case "/.well-known/agent-card.json": return json(JSON.stringify(CARD));
        case "/v1/agent-card.json": return json(JSON.stringify(CARD_V1), "application/json; charset=utf-8");
        case "/html": return json("<html>hello</html>", "text/html");
        case "/broken": return json("{\"name\": ");
        case "/no-skills": return json(JSON.stringify({ ...CARD, skills: "many" }));
        case "/redirect": return new Response(null, { status: 302, headers: { location: "http://10.0.0.1/.well-known/agent-card.json" } });
        case "/big": return json(JSON.stringify({ ...CARD, padding: "x".repeat(300 * 1024) }));
        default: return new Response("not here", { status: 404 });
      }
    },
  });
  return { base: `http://127.0.0.1:${server.port}`, port: server.port, hits: () => hits, stop: () => server.stop(true) };
}

describe.each(["sqlite", "postgres"] as const)("an Agent Card by URL on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  // `open` may reach this machine's card server (cloud.allowPrivateNetworks); `strict` is the default.
  let open: TestRelay;
  let strict: TestRelay;
  let openCloud: Listener;
  let strictCloud: Listener;
  let cards: ReturnType<typeof cardServer>;

  const cloudOf = (r: TestRelay) => listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(r.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
  const register = (cloud: Listener, key: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${cloud.url}/api/register`, { method: "POST", body: JSON.stringify(body), headers: { "x-api-key": key, "content-type": "application/json", ...headers } });
  async function expectRefused(res: Response, code: string, message?: string) {
    const body = (await res.json()) as any;
    expect({ status: res.status, code: body.error?.code, parameter: body.error?.details?.parameter }).toEqual({ status: 400, code, parameter: "card_url" });
    expect(body.request_id).toMatch(/^req_/);
    if (message) expect(body.error.message).toContain(message);
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_card_url");
    const store = db ? { store: { driver: "postgres", postgresUrl: db.url } } : {};
    open = await startRelay({ config: { ...store, cloud: { allowPrivateNetworks: true } } });
    strict = await startRelay({ config: store });
    openCloud = cloudOf(open);
    strictCloud = cloudOf(strict);
    cards = cardServer();
  });
  afterAll(async () => {
    await openCloud?.stop(100);
    await strictCloud?.stop(100);
    await open?.stop();
    await strict?.stop();
    await cards?.stop();
    await db?.drop();
  });

  test("the card is fetched and registered like an inline one, and discover finds it by a skill tag", async () => {
    const { secret } = await createTeam(open.relay.store, "Card fetchers", "pro");
    const res = await register(openCloud, secret, { card_url: `${cards.base}/.well-known/agent-card.json` });
    expect(res.status).toBe(201);
    const agent = (await res.json()) as any;
    expect(agent).toEqual({
      id: expect.stringMatching(/^agent_/),
      name: "Translator",
      capability: "translate",
      description: "translates text",
      endpoint: "https://agents.example/a2a",
      protocol: "JSONRPC",
      created_at: expect.any(String),
      public: false,
    });
    const found = await fetch(`${openCloud.url}/api/discover?capability=i18n`, { headers: { "x-api-key": secret } });
    expect(((await found.json()) as any).agents).toEqual([agent]);
  });

  test("an A2A 1.0 card (supportedInterfaces) by URL, with a field beside it that wins", async () => {
    const { secret } = await createTeam(open.relay.store, "Card v1", "pro");
    const res = await register(openCloud, secret, { card_url: `${cards.base}/v1/agent-card.json`, capability: "summaries", public: true });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ name: "Summarizer", capability: "summaries", endpoint: "https://agents.example/v1", protocol: "HTTP+JSON", public: true });
  });

  test("every way a card URL can fail is a 400 naming card_url", async () => {
    const { secret } = await createTeam(open.relay.store, "Card failures", "pro");
    const refused = async (cardUrl: unknown, code: string, message?: string, extra: object = {}) =>
      expectRefused(await register(openCloud, secret, { card_url: cardUrl, ...extra }), code, message);
    await refused(`${cards.base}/html`, "invalid_request", "text/html, not JSON");
    await refused(`${cards.base}/broken`, "invalid_request", "not valid JSON");
    await refused(`${cards.base}/no-skills`, "invalid_request", "card.skills must be an array");
    await refused(`${cards.base}/missing.json`, "url_unreachable", "answered 404");
    await refused(`${cards.base}/big`, "response_too_large");
    // Redirects are never followed, so one to a private address (or anywhere) is refused as such.
    await refused(`${cards.base}/redirect`, "unsafe_url", "redirect (302)");
    await refused(`ftp://127.0.0.1:${cards.port}/card.json`, "unsafe_url", "http or https");
    await refused(`http://user:pw@127.0.0.1:${cards.port}/.well-known/agent-card.json`, "unsafe_url", "credentials");
    await refused("https://relay-card-test.invalid/.well-known/agent-card.json", "url_unreachable", "could not be reached");
    await refused(42, "invalid_request");
    await refused(`${cards.base}/.well-known/agent-card.json`, "invalid_request", "cannot be sent with card", { card: CARD });
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const gone = `http://127.0.0.1:${closed.port}/.well-known/agent-card.json`;
    await closed.stop(true);
    await refused(gone, "url_unreachable", "could not be reached");
  });

  test("by default a card on this machine is refused in every spelling, and never fetched", async () => {
    const { secret } = await createTeam(strict.relay.store, "Strict cards", "pro");
    const before = cards.hits();
    const path = "/.well-known/agent-card.json";
    for (const host of ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "2130706433", "0177.0.0.1", "127.1"]) {
      await expectRefused(await register(strictCloud, secret, { card_url: `http://${host}:${cards.port}${path}` }), "unsafe_url", "non-public address");
    }
    for (const url of ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/card.json", "http://[fd00::1]/card.json", "http://100.64.0.1/card.json"]) {
      await expectRefused(await register(strictCloud, secret, { card_url: url }), "unsafe_url");
    }
    expect(cards.hits()).toBe(before);
    await expectRefused(await register(strictCloud, secret, { card_url: "https://relay-card-test.invalid/x.json" }), "url_unreachable", "does not resolve");
  });

  test("an Idempotency-Key replay answers the first agent without fetching the card again", async () => {
    const { secret } = await createTeam(open.relay.store, "Card replays", "pro");
    const body = { card_url: `${cards.base}/.well-known/agent-card.json` };
    const first = await register(openCloud, secret, body, { "idempotency-key": "card-once" });
    expect(first.status).toBe(201);
    const hits = cards.hits();
    const again = await register(openCloud, secret, body, { "idempotency-key": "card-once" });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    expect(cards.hits()).toBe(hits);
  });
});
