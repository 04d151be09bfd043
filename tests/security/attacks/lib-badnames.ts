// Helpers of the bad-names attacks: a Relay with fake OpenAI, Anthropic and
// Gemini vendors, a raw HTTP/1.1 client (fetch refuses to send control or
// non-Latin bytes in header values, a hostile client does not), and the run-log
// check that a refused request left no run logged as served.
import { connect } from "node:net";
import { startFakeVendor, type FakeVendor } from "../../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../../helpers/relay.ts";

export interface BadNamesRig {
  relay: TestRelay;
  vendors: FakeVendor[];
  /** Chat calls the vendors received so far (token counting excluded). */
  vendorCalls(): number;
  /** Every run the log holds, newest first. */
  runs(): Promise<{ status: number; requestedModel: string }[]>;
  stop(): Promise<void>;
}

export async function startBadNamesRig(): Promise<BadNamesRig> {
  const vendors = await Promise.all([startFakeVendor("openai"), startFakeVendor("anthropic"), startFakeVendor("gemini")]);
  const [openai, anthropic, gemini] = vendors as [FakeVendor, FakeVendor, FakeVendor];
  const relay = await startRelay({
    env: {
      OPENAI_BASE_URL: `${openai.url}/v1`,
      OPENAI_API_KEY: "k-openai",
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_API_KEY: "k-anthropic",
      GEMINI_BASE_URL: gemini.url,
      GEMINI_API_KEY: "k-gemini",
    },
  });
  return {
    relay,
    vendors,
    vendorCalls: () => vendors.reduce((n, v) => n + v.requests.filter((r) => !r.path.endsWith("/count_tokens")).length, 0),
    async runs() {
      await relay.relay.writer.flush();
      return (await relay.relay.store.runs.listRuns({ limit: 1000, offset: 0 })).runs;
    },
    async stop() {
      await relay.stop();
      await Promise.all(vendors.map((v) => v.close()));
    },
  };
}

export interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/**
 * One HTTP/1.1 request written byte for byte: header names and values go out
 * as given (UTF-8), which no fetch implementation allows.
 */
export function rawRequest(url: string, method: string, path: string, headers: [string, string][], body = ""): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const payload = Buffer.from(body, "utf8");
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${hostname}:${port}`, "connection: close", `content-length: ${payload.length}`];
  for (const [k, v] of headers) lines.push(`${k}: ${v}`);
  const request = Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "utf8"), payload]);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written, not ended: a half-closed connection makes the server drop the request.
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.setTimeout(10_000, () => socket.destroy(new Error("raw request timed out")));
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const head = split < 0 ? text : text.slice(0, split);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, head, body: split < 0 ? "" : text.slice(split + 4) });
    });
  });
}

export const chatBody = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 16,
  messages: [{ role: "user", content: "hi" }],
  ...extra,
});

/** A tool whose schema nests `depth` objects, built as text: no recursion in the test. */
export function deepToolBody(model: string, depth: number): string {
  const schema = '{"type":"object","properties":{"a":'.repeat(depth) + '{"type":"string"}' + "}}".repeat(depth);
  return `{"model":${JSON.stringify(model)},"max_tokens":16,"messages":[{"role":"user","content":"hi"}],` +
    `"tools":[{"type":"function","function":{"name":"deep","description":"d","parameters":${schema}}}]}`;
}
