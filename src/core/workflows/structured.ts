// A step's structured output: the answer's text as JSON checked against the step's schema, and the
// message that asks the model to repair an answer that failed, naming what was wrong.
import type { Validator } from "@cfworker/json-schema";
import { firstProblem } from "../../plugin/options-schema.ts";
import type { ChatRequest, ResponseFormat } from "../ir.ts";

export type Parsed = { ok: true; value: unknown } | { ok: false; problem: string };

// Models often fence JSON in Markdown even when asked for JSON alone.
const FENCED = /^```[\w-]*\s*\n([\s\S]*?)\n?```$/;

export function parseStructured(text: string, validator: Validator): Parsed {
  const trimmed = text.trim();
  let value: unknown;
  try {
    value = JSON.parse(FENCED.exec(trimmed)?.[1] ?? trimmed);
  } catch (e) {
    return { ok: false, problem: `the answer is not JSON (${(e as Error).message})` };
  }
  const problem = firstProblem(validator, value);
  if (!problem) return { ok: true, value };
  return { ok: false, problem: `at /${problem.at.join("/")}: ${problem.message}` };
}

/** How a step asks route() for JSON of its schema (a name vendors accept: letters, digits, _ and -). */
export function responseFormatOf(stepName: string, schema: Record<string, unknown> | boolean): ResponseFormat {
  const name = stepName.replace(/[^\w-]/g, "_").slice(0, 64) || "output";
  return { type: "json_schema", name, schema: typeof schema === "boolean" ? {} : schema };
}

/** The request again, with the failed answer and what was wrong with it: the one repair call. */
export function repairRequest(request: ChatRequest, answer: string, problem: string): ChatRequest {
  const text = `Your answer does not validate against the required JSON schema: ${problem}. Reply again with only the corrected JSON.`;
  return {
    ...request,
    messages: [...request.messages, { role: "assistant", content: [{ type: "text", text: answer || "(empty answer)" }] }, { role: "user", content: [{ type: "text", text }] }],
  };
}
