/**
 * The Anthropic SDK's messages as Claude Code sends them today: a system entry in the middle of
 * the conversation, adaptive thinking with an effort, tools. /v1/messages serves Anthropic models
 * by name; other vendors are reached through a virtual model (svc:fast, pinned per vendor), so
 * the same request is translated there and back.
 */
import { expect } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { KEYS, tappedFetch, type Target } from "../harness.ts";
import { TOOL_RESULTS, TOOL_SCHEMAS } from "../scripts.ts";
import { PROMPT, SYSTEM_PROMPT, TOOL_QUESTION, type ClientDriver, type Turn } from "./driver.ts";

export const MID_SYSTEM = "From now on, answer in French.";

type Params = Omit<Anthropic.MessageCreateParamsNonStreaming, "stream">;

const TOOLS: Anthropic.Tool[] = Object.entries(TOOL_SCHEMAS).map(([name, s]) => ({ name, description: s.description, input_schema: s.parameters }));

/** Adaptive thinking, its effort in output_config, as current Claude Code sends them. */
const THINKING = { thinking: { type: "adaptive" }, output_config: { effort: "medium" } } as Pick<Params, "thinking" | "output_config">;

/** The SDK's MessageParam has no system role yet; the SDK sends the entry as given. */
const systemEntry = (text: string) => ({ role: "system", content: text }) as unknown as Anthropic.MessageParam;

/** Adaptive thinking at medium effort in each other format: an effort where it has one, Gemini's budget for it. */
const EFFORT_AS_SENT: Record<string, (body: any) => unknown> = {
  openai: (b) => b.reasoning_effort,
  gemini: (b) => b.generationConfig.thinkingConfig,
  ollama: (b) => b.think,
};
const EFFORT_EXPECTED: Record<string, unknown> = { openai: "medium", gemini: { thinkingBudget: 8192, includeThoughts: true }, ollama: "medium" };

/** The turns this test places, in the order a vendor got them, whatever its format. */
const turnTexts = (body: any): string[] => JSON.stringify(body.messages ?? body.contents).match(/Hello\.|From now on[^"]*|Say hello/g) ?? [];

function turnOf(m: Anthropic.Message, headers: Headers): Turn {
  const thinking = m.content.flatMap((b) => (b.type === "thinking" ? [b.thinking] : [])).join("");
  return {
    text: m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(""),
    calls: m.content.flatMap((b) => (b.type === "tool_use" ? [{ id: b.id, name: b.name, args: b.input }] : [])),
    finish: m.stop_reason,
    usage: { input: m.usage.input_tokens, output: m.usage.output_tokens },
    provider: headers.get("x-svc-provider"),
    thinking: thinking || undefined,
  };
}

export function anthropicDriver(relayUrl: string): ClientDriver {
  const sent: string[] = [];
  const client = new Anthropic({ baseURL: relayUrl, apiKey: KEYS.clientAnthropic, maxRetries: 0, fetch: tappedFetch(sent) });

  async function turn(params: Params, stream: boolean): Promise<[Anthropic.Message, Turn]> {
    if (stream) {
      const s = client.messages.stream(params);
      const m = await s.finalMessage();
      return [m, turnOf(m, (await s.withResponse()).response.headers)];
    }
    const { data, response } = await client.messages.create({ ...params, stream: false }).withResponse();
    return [data, turnOf(data, response.headers)];
  }

  const base = (model: string) => ({ model, max_tokens: 1024, system: SYSTEM_PROMPT, ...THINKING });

  return {
    carriesIds: true,
    finish: { stop: "end_turn", tools: "tool_use" },
    system: [SYSTEM_PROMPT, MID_SYSTEM],
    sent,
    model: (t: Target) => (t.provider === "anthropic" ? t.model : "svc:fast"),
    passthrough: (t: Target) => t.provider === "anthropic",
    async text(model, stream) {
      const messages = [{ role: "user", content: "Hi" }, { role: "assistant", content: "Hello." }, systemEntry(MID_SYSTEM), { role: "user", content: PROMPT }] as Anthropic.MessageParam[];
      return (await turn({ ...base(model), messages }, stream))[1];
    },
    expectTranslated(target, body) {
      // A model known not to reason gets no reasoning settings (a real vendor refuses them).
      expect(EFFORT_AS_SENT[target.fake]!(body)).toEqual(target.reasons ? EFFORT_EXPECTED[target.fake] : undefined);
      // The mid-conversation entry stays where it was: after the assistant's turn, before the last prompt.
      expect(turnTexts(body)).toEqual(["Hello.", MID_SYSTEM, PROMPT]);
    },
    async roundTrip(model, stream) {
      const user: Anthropic.MessageParam = { role: "user", content: TOOL_QUESTION };
      const [m, first] = await turn({ ...base(model), tools: TOOLS, messages: [user] }, stream);
      const results: Anthropic.ToolResultBlockParam[] = first.calls.map((c) => ({
        type: "tool_result",
        tool_use_id: c.id!,
        content: JSON.stringify(TOOL_RESULTS[c.name as keyof typeof TOOL_RESULTS]),
      }));
      const messages: Anthropic.MessageParam[] = [user, { role: "assistant", content: m.content }, { role: "user", content: results }];
      const [, second] = await turn({ ...base(model), tools: TOOLS, messages }, stream);
      return { first, second };
    },
  };
}
