// The load cases measured against the floor: what each sends to Relay and to
// the floor, which fake vendor answers, the Relay/floor ratio it must reach,
// and the answer shape that proves a request really succeeded (a benchmark
// of error responses is worthless).

export type Vendor = "openai" | "anthropic";
export type Shape = "openai-json" | "openai-sse" | "anthropic-sse";

export interface Call {
  path: string;
  body: string;
  /** Besides content-type: what a client of that API sends (the floor passes them to the vendor untouched). */
  headers?: Record<string, string>;
  shape: Shape;
}

export interface RatioCase {
  id: string;
  title: string;
  vendor: Vendor;
  relay: Call;
  floor: Call;
  /** Minimum requests/s ratio Relay/floor (issue 5). */
  target: number;
  note?: string;
}

const MESSAGES = [
  { role: "system", content: "You are a concise assistant." },
  { role: "user", content: "Summarise the benefits of HTTP connection pooling in two sentences." },
];

const openaiBody = (model: string, stream: boolean): string =>
  JSON.stringify({ model, messages: MESSAGES, max_tokens: 256, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) });

const CHAT = "/v1/chat/completions";
const nonStreaming: Call = { path: CHAT, body: openaiBody("gpt-4o-mini", false), shape: "openai-json" };
const streaming: Call = { path: CHAT, body: openaiBody("gpt-4o-mini", true), shape: "openai-sse" };

export const CASES: Record<"a" | "b" | "c" | "d", RatioCase> = {
  a: { id: "a", title: "non-streaming passthrough", vendor: "openai", relay: nonStreaming, floor: nonStreaming, target: 0.8 },
  b: { id: "b", title: "streaming passthrough (20 chunks)", vendor: "openai", relay: streaming, floor: streaming, target: 0.8 },
  c: {
    id: "c",
    title: "translated streaming OpenAI→Anthropic",
    vendor: "anthropic",
    relay: { path: CHAT, body: openaiBody("claude-haiku-4-5", true), shape: "openai-sse" },
    floor: {
      path: "/v1/messages",
      body: JSON.stringify({ model: "claude-haiku-4-5", system: MESSAGES[0].content, messages: MESSAGES.slice(1), max_tokens: 256, stream: true }),
      headers: { "x-api-key": "x", "anthropic-version": "2023-06-01" },
      shape: "anthropic-sse",
    },
    target: 0.6,
    note: "floor for c: the floor proxy in front of the Anthropic fake with an Anthropic-format request, i.e. pure passthrough",
  },
  d: {
    id: "d",
    title: "svc:auto complexity routing",
    vendor: "openai",
    relay: { ...nonStreaming, body: openaiBody("svc:auto", false) },
    floor: nonStreaming,
    target: 0.8,
    note: "floor for d: the same bare passthrough as a (the floor cannot route)",
  },
};

/** The cases a comma-separated `--cases` value names, in its order; an unknown name throws. */
export function casesNamed(list: string): RatioCase[] {
  return list.split(",").map((name) => {
    const c = CASES[name.trim() as keyof typeof CASES];
    if (!c) throw new Error(`unknown case ${name.trim()}`);
    return c;
  });
}

/** Sends one request and throws, with the answer, unless it is a 200 of the expected shape. */
export async function checkOnce(base: string, call: Call, label: string): Promise<void> {
  const res = await fetch(base + call.path, { method: "POST", headers: { "content-type": "application/json", ...call.headers }, body: call.body });
  const text = await res.text();
  const problem = res.status !== 200 ? `status ${res.status}` : shapeProblem(call.shape, text);
  if (problem) throw new Error(`correctness check failed for ${label} (${problem}):\n${text.slice(0, 2_000)}`);
}

function shapeProblem(shape: Shape, text: string): string | undefined {
  switch (shape) {
    case "openai-json": {
      const body = JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }>; usage?: unknown };
      const content = body.choices?.[0]?.message?.content;
      if (typeof content !== "string" || !content) return "no choices[0].message.content";
      return body.usage ? undefined : "no usage";
    }
    case "openai-sse": {
      const events = sseData(text);
      if (events.at(-1) !== "[DONE]") return "stream does not end with data: [DONE]";
      const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { choices: Array<{ delta?: { content?: string } }>; usage?: unknown });
      const content = chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");
      if (!content) return "no delta content";
      return chunks.some((c) => c.usage) ? undefined : "no usage chunk (include_usage)";
    }
    case "anthropic-sse": {
      const events = sseData(text).map((e) => JSON.parse(e) as { type: string });
      if (!events.some((e) => e.type === "content_block_delta")) return "no content_block_delta";
      return events.at(-1)?.type === "message_stop" ? undefined : "stream does not end with message_stop";
    }
  }
}

const sseData = (text: string): string[] =>
  text
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).trim());
