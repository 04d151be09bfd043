// One run's hold on the budget, when a budget is set (issue 34, item 6). The pipeline makes one
// per request; without a budget it makes none, and the request path does nothing of this.
//
// The reservation follows the candidate actually attempted: a fallback or a cascade's escalation
// to another model settles what the earlier attempts cost, frees their reservation and reserves
// for the next model (refused: that candidate is skipped). A stream may extend its reservation
// while the budget has room (budget-stream.ts). At the end the run settles its cost, and a vendor
// that billed past the request's own max_tokens, or past what was reserved, is flagged in the run
// log as a `budget_overshoot` event; a cap Relay set is logged as a `budget_cap` event. A model with
// no listed price is reserved and settled at its provider's highest listed price (catalog/unpriced.ts).
import type { ModelInfo } from "../../plugin/api.ts";
import { costOf } from "../catalog/cost.ts";
import { standInFor } from "../catalog/unpriced.ts";
import type { RunEvent } from "../run-record.ts";
import type { ChatRequest, Usage } from "../ir.ts";
import { approxTextTokens, estimateTokens } from "../tokens.ts";
import type { BudgetGuard, BudgetRefusal, BudgetReservation } from "./budget.ts";
import { affordableOutput, floorCost, fullCost, outputPlan, type OutputPlan } from "./budget-output.ts";
import { StreamBudget, type StreamRoom } from "./budget-stream.ts";

type Admission = BudgetRefusal | undefined;

/** Vendors' hidden tool-use prompts (Anthropic documents ~350 tokens) are billed as input. */
const TOOLS_PROMPT_TOKENS = 400;

/**
 * Input tokens to reserve: the 3.5-characters-a-token approximation (no BPE tables on the request
 * path), plus 10 % for code and JSON, which run nearer 3 characters a token, and 16 tokens of chat
 * framing. Text in scripts with more tokens than that per character can still bill above it: the
 * run is then flagged as an overshoot.
 */
function reservedInput(ir: ChatRequest): number {
  const approx = estimateTokens(ir, approxTextTokens);
  return Math.ceil(approx * 1.1) + 16 + (ir.tools?.length ? TOOLS_PROMPT_TOKENS : 0);
}

const RESOLVED = Promise.resolve();
const usd = (v: number) => `$${v.toFixed(6)}`;
const nanos = (v: number) => Math.round(v * 1e9);

export class RunBudget implements StreamRoom {
  /** The candidate the current reservation is for. */
  model: ModelInfo | undefined;
  /** That candidate priced at its provider's highest listed price, when it has no price of its own. */
  private standIn: ModelInfo | undefined;
  /** The max_tokens Relay sets for that candidate; undefined when the request goes as the client sent it. */
  cap: number | undefined;
  private plan: OutputPlan | undefined;
  /** The candidate's reservation, and any its stream's extensions added (an array only then: this is per request). */
  private held: BudgetReservation | undefined;
  private extensions: BudgetReservation[] | undefined;
  private reserved = 0;
  /** Cost already settled against earlier candidates' reservations (a cascade's rejected answers). */
  private settled = 0;
  private stream: StreamBudget | undefined;
  private closed = false;
  private readonly inputTokens: number;

  constructor(
    private readonly guard: BudgetGuard,
    private readonly ir: ChatRequest,
    /** The run's event log. */
    private readonly events: RunEvent[],
  ) {
    this.inputTokens = reservedInput(ir);
  }

  /** Reserve for a candidate: its whole possible output, or a cap on it; a refusal when not even the smallest cap fits. */
  reserveFor(model: ModelInfo): Admission | Promise<Admission> {
    this.model = model;
    this.cap = undefined;
    this.stream = undefined;
    this.standIn = standInFor(model);
    const plan = (this.plan = outputPlan(this.standIn ?? model, this.ir, this.inputTokens));
    const r = this.guard.reserve(fullCost(plan), floorCost(plan));
    return r instanceof Promise ? this.admitLater(r) : this.admitted(r);
  }

  /** Apart from reserveFor, so that only a reservation that waits pays for a closure. */
  private admitLater(r: Promise<BudgetReservation | BudgetRefusal>): Promise<Admission> {
    return r.then((x) => this.admitted(x));
  }

  /** The next candidate: settle what the attempts so far cost (`spentUsd` in all), then reserve for it. */
  async switchTo(model: ModelInfo, spentUsd: number): Promise<Admission> {
    await this.free(spentUsd - this.settled);
    this.settled = spentUsd;
    return this.reserveFor(model);
  }

  /** The stream relay's guard for the current candidate's stream. */
  streamGuard(): StreamBudget["check"] {
    this.stream = new StreamBudget(this.plan!, this);
    return this.stream.check;
  }

  /** Why the current candidate's stream was ended by its guard; undefined when it was not. */
  streamRefusal(): string | undefined {
    return this.stream?.refused;
  }

  reservedUsd(): number {
    return this.reserved;
  }

  extend(more: number): boolean | Promise<boolean> {
    const r = this.guard.reserve(more);
    return r instanceof Promise ? r.then((x) => this.extended(x)) : this.extended(r);
  }

  /**
   * The run ended having cost `costUsd` in all: settle it, flag an overshoot. A stream cut short was
   * billed at least for what it streamed, which its usage may not show yet: the larger figure is the
   * cost, returned for the run record. An unpriced model is settled at its stand-in price, but its
   * record keeps the known cost (its own is unknown: `cost_unknown`).
   */
  close(costUsd: number, usage: Usage, complete: boolean, onError: (e: unknown) => void): number {
    this.closed = true;
    let own = costUsd - this.settled;
    if (!complete && this.stream) own = Math.max(own, this.stream.spentUsd());
    const charged = this.standIn ? Math.max(own, costOf(this.standIn, usage)) : own;
    this.flagOvershoot(usage, charged);
    this.free(charged).catch(onError);
    return this.standIn ? costUsd : own + this.settled;
  }

  private admitted(r: BudgetReservation | BudgetRefusal): Admission {
    if (r.refused) return r;
    this.held = r;
    this.reserved = r.estimateUsd;
    const model = this.model!;
    const plan = this.plan!;
    const full = fullCost(plan);
    // The guard hands back the very estimate it was given unless it shrank it.
    const shrunk = r.estimateUsd !== full;
    if (!shrunk && !plan.unbounded) return undefined;
    this.cap = affordableOutput(plan, r.estimateUsd);
    const why = shrunk ? `the budget had ${usd(r.estimateUsd)} left of the ${usd(full)} this request could cost` : "the model's maximum output is not listed";
    this.events.push({ type: "budget_cap", model: model.id, provider: model.provider, reason: `max_tokens capped to ${this.cap}: ${why}` });
    return undefined;
  }

  private extended(r: BudgetReservation | BudgetRefusal): boolean {
    if (r.refused) return false;
    // Granted after the run closed (a shared store answering late): give it straight back.
    if (this.closed) {
      this.guard.release(r).catch(() => {});
      return false;
    }
    (this.extensions ??= []).push(r);
    this.reserved += r.estimateUsd;
    return true;
  }

  /** Settle `spentUsd` against the candidate's reservation and free its extensions. */
  private free(spentUsd: number): Promise<unknown> {
    const { held, extensions } = this;
    this.held = this.extensions = undefined;
    this.reserved = 0;
    if (held === undefined) return RESOLVED;
    const own = spentUsd > 0 ? this.guard.settle(held, spentUsd) : this.guard.release(held);
    return extensions === undefined ? own : this.freeExtensions(own, extensions);
  }

  /** Apart from free, so that a run without extensions pays for no closure. */
  private freeExtensions(own: Promise<void>, extensions: BudgetReservation[]): Promise<unknown> {
    return Promise.all([own, ...extensions.map((r) => this.guard.release(r))]);
  }

  private flagOvershoot(usage: Usage, spentUsd: number): void {
    // No reservation held: this candidate was refused, and never called.
    if (this.held === undefined) return;
    const model = this.model!;
    const limit = this.cap ?? this.plan!.ceiling;
    const pastLimit = usage.outputTokens > limit;
    const pastReservation = nanos(spentUsd) > nanos(this.reserved);
    if (!pastLimit && !pastReservation) return;
    const reason = pastLimit
      ? `the vendor billed ${usage.outputTokens} output tokens past max_tokens ${limit} (${usd(spentUsd)} against ${usd(this.reserved)} reserved)`
      : `the run cost ${usd(spentUsd)} against ${usd(this.reserved)} reserved`;
    this.events.push({ type: "budget_overshoot", model: model.id, provider: model.provider, reason });
  }
}
