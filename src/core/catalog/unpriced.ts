// A model nobody prices (claude-opus-9, reached through the claude-* pattern before any price list
// knows it) is served all the same. Its cost is logged as unknown: a `cost_unknown` run event, and
// $0 in the record, which the dashboard shows as "unknown". Budgets count it at its provider's most
// expensive listed price, reserved and settled, so an unpriced model never spends a budget unseen.
// A provider the price data does not list (a local Ollama) costs nothing: its models are not unknown.
import type { ModelInfo } from "../../plugin/api.ts";
import type { RunEvent } from "../run-record.ts";
import { topListedPrice } from "./price-list.ts";

/** Keyed by the catalog's own objects (resolve() answers the same one for a name): one copy per model. */
const standIns = new WeakMap<ModelInfo, ModelInfo | null>();

/**
 * The model priced at its provider's highest listed price, for a budget; undefined when the model
 * has a price of its own or its provider has none listed.
 */
export function standInFor(model: ModelInfo): ModelInfo | undefined {
  if (model.price) return undefined;
  let standIn = standIns.get(model);
  if (standIn === undefined) {
    const top = topListedPrice(model.provider);
    standIns.set(model, (standIn = top ? { ...model, price: top } : null));
  }
  return standIn ?? undefined;
}

/** The run event saying that `model` has no known price (undefined when it has one, or is free), and how a budget counts it. */
export function costUnknownEvent(model: ModelInfo, budgeted: boolean): RunEvent | undefined {
  const standIn = standInFor(model);
  if (!standIn) return undefined;
  const top = standIn.price!;
  const reason = budgeted
    ? `no listed price: cost logged as unknown ($0); the budget counts it at ${model.provider}'s highest listed price ($${top.input}/M input, $${top.output}/M output tokens)`
    : "no listed price: cost logged as unknown ($0)";
  return { type: "cost_unknown", model: model.id, provider: model.provider, reason };
}
