// Run by Node (tests/portable/node.test.ts): the bundled router (argv[2]) routes calls to a fake
// OpenAI-compatible vendor on node:http, and what it answered is printed as one JSON object.
import { createServer } from "node:http";

const { createRouter, readableOf, ConfigError, definePlugin } = await import(process.argv[2]);

/** What the vendor was sent: model, key and loop mark of each call. */
const calls = [];
const completion = { id: "chatcmpl-1", created: 1, model: "gpt-4o-mini" };
const usage = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };
const chunk = (delta, finish = null) => ({ ...completion, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
const events = [chunk({ role: "assistant", content: "" }), chunk({ content: "Hello" }), chunk({ content: " from Node" }), chunk({}, "stop"), { ...chunk({}), choices: [], usage }];

const server = createServer(async (req, res) => {
  let text = "";
  for await (const part of req) text += part;
  const body = JSON.parse(text);
  calls.push({ path: req.url, model: body.model, stream: body.stream === true, authorization: req.headers.authorization ?? null, via: req.headers["x-relay-via"] ?? null });
  if (body.model === "gpt-4o") {
    res.writeHead(500, { "content-type": "application/json" });
    return res.end(JSON.stringify({ error: { message: "the fake vendor is down", type: "server_error" } }));
  }
  const model = body.model;
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    const message = { role: "assistant", content: "Hello from Node" };
    return res.end(JSON.stringify({ ...completion, model, object: "chat.completion", choices: [{ index: 0, message, finish_reason: "stop" }], usage }));
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  // Spaced out, so that the router relays a live stream rather than one already over.
  for (const event of events) {
    res.write(`data: ${JSON.stringify({ ...event, model })}\n\n`);
    await new Promise((r) => setTimeout(r, 15));
  }
  res.end("data: [DONE]\n\n");
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

// A provider handed in as an object: the fallback's second candidate.
const acme = definePlugin({
  kind: "provider",
  name: "acme",
  format: "openai",
  baseUrl: `${base}/acme/v1`,
  request: (ctx) => ({ url: `${ctx.baseUrl}/chat/completions`, headers: { "content-type": "application/json" } }),
  models: [
    {
      id: "acme-small",
      provider: "acme",
      aliases: [],
      price: { input: 1, output: 2 },
      capabilities: { tools: true, vision: false, json: true, reasoning: false, streaming: true },
      routable: true,
    },
  ],
});

const records = [];
const lines = [];
const router = createRouter({
  config: { routing: { strategies: { fallback: { chains: { "gpt-4o": ["acme-small"] } } } } },
  env: { OPENAI_API_KEY: "sk-test", RELAY_OPENAI_BASE_URL: `${base}/v1` },
  plugins: [acme],
  onRecord: (record) => void records.push(record),
  log: (line) => lines.push(line),
});
const caller = { surface: "node-test" };
const messages = [{ role: "user", content: "Say hello" }];
const facts = (f) => ({ routedModel: f.routedModel, provider: f.provider, strategy: f.strategy, fallbackUsed: f.fallbackUsed, attempts: f.attempts });

const whole = await router.route({ format: "openai", caller, body: { model: "gpt-4o-mini", messages } });
const streamed = await router.route({ format: "openai", caller, body: { model: "gpt-4o-mini", messages, stream: true } });
const streamBodyKind = streamed.body instanceof ReadableStream ? "stream" : typeof streamed.body;
const sse = await new Response(readableOf(streamed.body)).text();
const streamRecord = await streamed.ended;
const fallback = await router.route({ format: "openai", caller, body: { model: "gpt-4o", messages } });
const unknown = await router.route({ format: "openai", caller, body: { model: "no-such-model-anywhere", messages } });
await router.close();

let configError;
try {
  createRouter({ config: { routing: { enabled: "yes" } } });
} catch (e) {
  configError = { isConfigError: e instanceof ConfigError, message: e.message };
}
server.close();

console.log(
  JSON.stringify({
    node: process.version,
    bunGlobal: typeof globalThis.Bun,
    calls,
    whole: { kind: whole.kind, body: whole.kind === "answer" ? JSON.parse(whole.body) : null, usage: whole.usage, facts: whole.facts && facts(whole.facts), recordId: whole.record?.id },
    streamed: { kind: streamed.kind, contentType: streamed.contentType, bodyKind: streamBodyKind, sse, facts: streamed.facts && facts(streamed.facts), record: streamRecord },
    fallback: { kind: fallback.kind, content: fallback.kind === "answer" ? fallback.response : null, facts: fallback.facts && facts(fallback.facts), record: fallback.record },
    unknown: { kind: unknown.kind, status: unknown.error?.status, code: unknown.error?.code, message: unknown.error?.message },
    records,
    configError,
    logLevels: lines.map((l) => JSON.parse(l).level),
  }),
);
