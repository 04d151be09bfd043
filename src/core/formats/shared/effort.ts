// The reasoning effort of OpenAI's formats (chat completions' reasoning_effort, Responses'
// reasoning.effort) for the IR's reasoning settings, whichever format they came from.
import type { ReasoningConfig } from "../../ir.ts";

/**
 * Token budgets (Anthropic, Gemini) map onto efforts: ≤1024 → low, ≤8192 → medium, larger → high.
 * Disabled reasoning sends nothing: "none" is not accepted by every reasoning model, and
 * non-reasoning models reject the field.
 */
export function reasoningEffort(r: ReasoningConfig | undefined): string | undefined {
  if (!r || r.disabled) return undefined;
  if (r.effort) return r.effort;
  if (r.budgetTokens === undefined) return undefined;
  if (r.budgetTokens <= 1024) return "low";
  return r.budgetTokens <= 8192 ? "medium" : "high";
}
