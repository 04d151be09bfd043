// A benchmark run's spend cap (README "Model benchmarks"). Before each call, its estimate is held against
// the cap beside the estimates of the calls in flight: the catalog's price for the prompt's input
// (3.5 characters a token, as budgets count it) and for the whole max_tokens of output (a model with
// no listed price at its provider's highest, as budgets do). A call that does not fit waits for the
// calls in flight to settle; when none is in flight and it still does not fit, the run stops. After
// each call its real cost replaces its estimate. So the spend passes the cap only when a vendor
// bills past the estimate (more output than max_tokens, more input than counted), by no more than
// the overshoot of the calls in flight: at most one call's cost at a time per concurrent call.
import type { Catalog } from "../catalog/catalog.ts";
import { standInFor } from "../catalog/unpriced.ts";
import type { ChatRequest } from "../ir.ts";
import { fullCost, outputPlan } from "../limits/budget-output.ts";
import { approxTextTokens, estimateTokens } from "../tokens.ts";

/** USD a call may cost at most, by the catalog's prices; 0 for a model it does not know (the call will fail unpriced). */
export function estimateUsd(catalog: Catalog, ir: ChatRequest): number {
  const model = catalog.resolve(ir.model);
  if (!model) return 0;
  return fullCost(outputPlan(standInFor(model) ?? model, ir, estimateTokens(ir, approxTextTokens)));
}

export class SpendGate {
  private reserved = 0;
  /** Counted apart from `reserved`, whose float sum need not come back to exactly 0. */
  private inFlight = 0;
  private waiting: (() => void)[] = [];

  constructor(
    private readonly capUsd: number,
    /** What the run's recorded calls cost (a resumed run's included). */
    public spentUsd: number,
  ) {}

  /** Holds `estimate` for a call, once it fits; false when it cannot fit with no call in flight. */
  async admit(estimate: number): Promise<boolean> {
    for (;;) {
      if (this.spentUsd + this.reserved + estimate <= this.capUsd) {
        this.reserved += estimate;
        this.inFlight++;
        return true;
      }
      if (this.inFlight === 0) return false;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** A call ended: its real cost replaces its estimate, and waiting calls look again. */
  settle(estimate: number, costUsd: number): void {
    this.reserved = --this.inFlight === 0 ? 0 : this.reserved - estimate;
    this.spentUsd += costUsd;
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }

  /** Why the run stops before a call of `estimate`. */
  refusal(estimate: number): string {
    const usd = (v: number) => `$${v.toFixed(6)}`;
    return `spend cap reached: the next call's estimate (${usd(estimate)}) would take the run's spend (${usd(this.spentUsd)}) past its cap (${usd(this.capUsd)})`;
  }
}
