/** The `openai` SDK's responses.create, whole and streamed, with instructions and function tools. */
import { expect } from "bun:test";
import OpenAI from "openai";
import { KEYS, tappedFetch, type Target } from "../harness.ts";
import { TOOL_RESULTS, TOOL_SCHEMAS } from "../scripts.ts";
import { PROMPT, SYSTEM_PROMPT, TOOL_QUESTION, type ClientDriver, type Turn } from "./driver.ts";

type Params = Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, "stream">;

const TOOLS: OpenAI.Responses.FunctionTool[] = Object.entries(TOOL_SCHEMAS).map(([name, s]) => ({
  type: "function",
  name,
  description: s.description,
  parameters: s.parameters,
  strict: false,
}));

/** The answer's text from its message items (a streamed response has no SDK-added output_text). */
const textOf = (r: OpenAI.Responses.Response): string =>
  r.output.flatMap((i) => (i.type === "message" ? i.content.map((c) => (c.type === "output_text" ? c.text : "")) : [])).join("");

function turnOf(r: OpenAI.Responses.Response, headers: Headers): Turn {
  const calls = r.output.filter((i): i is OpenAI.Responses.ResponseFunctionToolCall => i.type === "function_call");
  const reasoning = r.output.filter((i): i is OpenAI.Responses.ResponseReasoningItem => i.type === "reasoning");
  return {
    text: textOf(r),
    calls: calls.map((c) => ({ id: c.call_id, name: c.name, args: JSON.parse(c.arguments) })),
    finish: r.status,
    usage: { input: r.usage?.input_tokens, output: r.usage?.output_tokens },
    provider: headers.get("x-svc-provider"),
    thinking: reasoning.flatMap((i) => i.summary.map((s) => s.text)).join("") || undefined,
  };
}

/** A stream's events in the documented order, its deltas adding up to the final response. */
async function streamed(client: OpenAI, params: Params): Promise<[OpenAI.Responses.Response, Headers]> {
  const { data: events, response } = await client.responses.create({ ...params, stream: true }).withResponse();
  const types: string[] = [];
  let text = "";
  const args = new Map<string, string>();
  let completed: OpenAI.Responses.Response | undefined;
  for await (const e of events) {
    types.push(e.type);
    if (e.type === "response.output_text.delta") text += e.delta;
    if (e.type === "response.function_call_arguments.delta") args.set(e.item_id, (args.get(e.item_id) ?? "") + e.delta);
    if (e.type === "response.completed") completed = e.response;
  }
  expect(types[0]).toBe("response.created");
  expect(types.at(-1)).toBe("response.completed");
  expect(text).toBe(textOf(completed!));
  const finalArgs = completed!.output.flatMap((i) => (i.type === "function_call" ? [[i.id ?? "", i.arguments] as [string, string]] : []));
  expect([...args]).toEqual(finalArgs);
  return [completed!, response.headers];
}

export function responsesDriver(relayUrl: string): ClientDriver {
  const sent: string[] = [];
  const client = new OpenAI({ baseURL: `${relayUrl}/v1`, apiKey: KEYS.clientOpenAI, maxRetries: 0, fetch: tappedFetch(sent) });

  async function turn(params: Params, stream: boolean): Promise<[OpenAI.Responses.Response, Turn]> {
    if (stream) {
      const [r, headers] = await streamed(client, params);
      return [r, turnOf(r, headers)];
    }
    const { data, response } = await client.responses.create({ ...params, stream: false }).withResponse();
    expect(data.output_text).toBe(textOf(data));
    return [data, turnOf(data, response.headers)];
  }

  return {
    carriesIds: true,
    finish: { stop: "completed", tools: "completed" },
    system: [SYSTEM_PROMPT],
    sent,
    model: (t: Target) => t.model,
    passthrough: (t: Target) => t.provider === "openai",
    text: async (model, stream) => (await turn({ model, instructions: SYSTEM_PROMPT, input: PROMPT }, stream))[1],
    async roundTrip(model, stream) {
      const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: TOOL_QUESTION }];
      const [r, first] = await turn({ model, input, tools: TOOLS }, stream);
      // The SDK's output items go back as input, each call followed by its output.
      const followUp: OpenAI.Responses.ResponseInputItem[] = [...input, ...(r.output as OpenAI.Responses.ResponseInputItem[])];
      for (const c of first.calls) followUp.push({ type: "function_call_output", call_id: c.id!, output: JSON.stringify(TOOL_RESULTS[c.name as keyof typeof TOOL_RESULTS]) });
      const [, second] = await turn({ model, input: followUp, tools: TOOLS }, stream);
      return { first, second };
    },
  };
}
