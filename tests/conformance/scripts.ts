/**
 * The conversations every client of the conformance suite plays against every vendor fake: the
 * vendor's scripted replies and what the client must see of them.
 */
import type { Reply, VendorKind } from "../fakes/types.ts";

export const WEATHER = { city: "Paris" };
export const CLOCK = { tz: "Europe/Paris" };
export const WEATHER_RESULT = { temp_c: 21, sky: "clear" };
export const CLOCK_RESULT = { time: "14:05" };
export const FINAL_ANSWER = "It is 21°C and clear in Paris; the time is 14:05.";

/** Vendors whose tool calls carry ids get scripted ones (in their own id style); the others get ids invented by Relay. */
export const SCRIPTED_IDS: Partial<Record<VendorKind, [string, string]>> = {
  openai: ["call_weather_1", "call_clock_2"],
  anthropic: ["toolu_weather_1", "toolu_clock_2"],
};

export function twoToolReply(kind: VendorKind): Reply {
  const ids = SCRIPTED_IDS[kind];
  return {
    toolCalls: [
      { id: ids?.[0], name: "get_weather", args: WEATHER },
      { id: ids?.[1], name: "get_time", args: CLOCK },
    ],
  };
}

interface ToolSchema {
  description: string;
  parameters: { type: "object"; properties: Record<string, { type: string }>; required: string[] };
}

/** The two tools' JSON schemas, in whichever envelope a client wants them. */
export const TOOL_SCHEMAS: Record<"get_weather" | "get_time", ToolSchema> = {
  get_weather: { description: "Weather now", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  get_time: { description: "Local time", parameters: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] } },
};

/** What each tool returns when a client runs it (the Vercel AI SDK runs tools itself). */
export const TOOL_RESULTS: Record<keyof typeof TOOL_SCHEMAS, unknown> = { get_weather: WEATHER_RESULT, get_time: CLOCK_RESULT };

/** Cache-heavy usage: 10 fresh input tokens, 100 read from cache, 20 written to it. */
export const CACHED_USAGE = { input: 10, output: 5, cacheRead: 100, cacheWrite: 20 };
/** Ollama reports no cache counters: all 130 prompt tokens arrive as plain input. */
export const EXPECTED_CACHED: Record<VendorKind, number> = { openai: 100, anthropic: 100, gemini: 100, ollama: 0 };
