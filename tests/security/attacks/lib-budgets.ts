// Helpers of the budget attacks (budgets.ts): a fake vendor that writes to the limit it is
// given, and the catalog figures Relay itself publishes for a model.
import type { ReceivedRequest, Reply } from "../../fakes/types.ts";

export interface PublishedModel {
  id: string;
  maxOutput: number;
  /** USD per million tokens. */
  price: { input: number; output: number };
}

/** What Relay's own /v1/models says about a model: its real maximum output and its catalog price. */
export async function publishedModel(relayUrl: string, id: string): Promise<PublishedModel> {
  const list = (await (await fetch(`${relayUrl}/v1/models`)).json()) as { data: Array<Record<string, any>> };
  const m = list.data.find((x) => x.id === id);
  if (!m?.max_output_tokens || !m.pricing) throw new Error(`${id} has no max output or price in /v1/models`);
  return { id, maxOutput: m.max_output_tokens, price: { input: m.pricing.input, output: m.pricing.output } };
}

/** The max output a chat-completions body grants (either field name), or undefined. */
export function grantedOutput(json: any): number | undefined {
  for (const v of [json?.max_completion_tokens, json?.max_tokens, json?.max_output_tokens]) if (typeof v === "number" && v > 0) return v;
  return undefined;
}

/**
 * A vendor asked for an endless essay: it writes until it hits the request's max_tokens, or the
 * model's real maximum output when the request sets none, and bills every token. Input is billed
 * at 4 characters a token plus the chat framing, as a real tokenizer roughly would.
 */
export function writesToItsLimit(modelMax: number, latencyMs: number): (req: ReceivedRequest) => Reply {
  return (req) => {
    const promptChars = (req.json?.messages ?? []).reduce((n: number, m: any) => n + (typeof m.content === "string" ? m.content.length : 0), 0);
    const output = Math.min(grantedOutput(req.json) ?? modelMax, modelMax);
    return {
      text: "All work and no play makes Jack a dull boy. ",
      usage: { input: Math.ceil(promptChars / 4) + 6, output },
      stopReason: "length",
      latencyMs,
      textChunks: 4,
    };
  };
}

/** USD for a run's tokens at the published price. */
export const priced = (m: PublishedModel, input: number, output: number): number => (input * m.price.input + output * m.price.output) / 1e6;
