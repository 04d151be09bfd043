/**
 * The Vercel AI SDK (`ai`) with its default OpenAI provider (`@ai-sdk/openai`), which speaks the
 * Responses API: generateText and streamText, the tools run by the SDK itself over two steps.
 */
import { generateText, jsonSchema, stepCountIs, streamText, tool, type StepResult, type ToolSet } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { KEYS, tappedFetch, type Target } from "../harness.ts";
import { TOOL_RESULTS, TOOL_SCHEMAS } from "../scripts.ts";
import { PROMPT, SYSTEM_PROMPT, TOOL_QUESTION, type ClientDriver, type Turn } from "./driver.ts";

const TOOLS: ToolSet = Object.fromEntries(
  Object.entries(TOOL_SCHEMAS).map(([name, s]) => [
    name,
    tool({ description: s.description, inputSchema: jsonSchema(s.parameters), execute: async () => TOOL_RESULTS[name as keyof typeof TOOL_RESULTS] }),
  ]),
);

function turnOf(step: StepResult<ToolSet>): Turn {
  return {
    text: step.text,
    calls: step.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, args: c.input })),
    finish: step.finishReason,
    usage: { input: step.usage.inputTokens, output: step.usage.outputTokens },
    provider: step.response.headers?.["x-svc-provider"],
    thinking: step.reasoningText,
  };
}

export function vercelDriver(relayUrl: string): ClientDriver {
  const sent: string[] = [];
  // The provider as its documentation sets it up, pointed at Relay.
  const openai = createOpenAI({ baseURL: `${relayUrl}/v1`, apiKey: KEYS.clientOpenAI, fetch: tappedFetch(sent) });

  async function steps(params: { model: string; prompt: string; system?: string; tools?: ToolSet }, stream: boolean): Promise<StepResult<ToolSet>[]> {
    const call = { ...params, model: openai(params.model), maxRetries: 0, ...(params.tools && { stopWhen: stepCountIs(2) }) };
    if (!stream) return (await generateText(call)).steps;
    let failure: unknown;
    const result = streamText({ ...call, onError: ({ error }) => void (failure = error) });
    const all = await result.steps;
    if (failure) throw failure;
    return all;
  }

  return {
    carriesIds: true,
    finish: { stop: "stop", tools: "tool-calls" },
    system: [SYSTEM_PROMPT],
    sent,
    model: (t: Target) => t.model,
    passthrough: (t: Target) => t.provider === "openai",
    text: async (model, stream) => turnOf((await steps({ model, system: SYSTEM_PROMPT, prompt: PROMPT }, stream))[0]!),
    async roundTrip(model, stream) {
      const [first, second, ...more] = await steps({ model, prompt: TOOL_QUESTION, tools: TOOLS }, stream);
      if (!second || more.length) throw new Error(`expected two steps, got ${more.length + (second ? 2 : 1)}`);
      return { first: turnOf(first!), second: turnOf(second) };
    },
  };
}
