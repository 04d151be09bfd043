// Ends a stream that outruns what its run reserved once the budget can give no more (issue 34,
// item 6). A reservation covers the request's whole possible output, so only a vendor that
// streams past max_tokens gets here: the guard first asks the budget for more room, and ends
// the stream when the windows have none left.
//
// Output is counted as it streams, from the vendor's own usage figures when it sends them and
// otherwise from the characters of text, thinking and tool arguments. The guard counts
// CHECK_CHARS_PER_TOKEN characters a token, more than prose (about 4.5) or code (about 3) take, so
// that an honest stream near its max_tokens is never ended for a counting error; the price is that
// a runaway stream is caught late by that factor. What a cut stream cost is guessed at the usual
// BILL_CHARS_PER_TOKEN, until the vendor's own figure says otherwise.
import type { StreamEvent } from "../ir.ts";
import { outputCostOf, paidOutput, type OutputPlan } from "./budget-output.ts";

const CHECK_CHARS_PER_TOKEN = 6;
const BILL_CHARS_PER_TOKEN = 4;
/** More room is asked for in steps of a quarter of what was reserved (at least this many tokens), not per event. */
const MIN_STEP_TOKENS = 256;

/** What the guard needs of its run's budget. */
export interface StreamRoom {
  reservedUsd(): number;
  /** Reserve `usd` more: whether it was granted (a promise of it with a shared store). */
  extend(usd: number): boolean | Promise<boolean>;
}

export class StreamBudget {
  private chars = 0;
  /** Output tokens the vendor reported so far. */
  private reported = 0;
  /** Output tokens the current reservations pay for. */
  private allowed: number;
  private asking = false;
  private refusal: string | undefined;

  constructor(
    private readonly plan: OutputPlan,
    private readonly room: StreamRoom,
  ) {
    this.allowed = paidOutput(plan, room.reservedUsd());
  }

  /** The stream relay's guard: a message ends the stream. */
  readonly check = (ev: StreamEvent): string | undefined => {
    switch (ev.type) {
      case "text_delta":
      case "thinking_delta":
        this.chars += ev.text.length;
        break;
      case "tool_args_delta":
        this.chars += ev.json.length;
        break;
      case "start":
      case "finish":
        if (ev.usage?.outputTokens !== undefined && ev.usage.outputTokens > this.reported) this.reported = ev.usage.outputTokens;
        break;
      default:
        return this.refusal;
    }
    if (this.refusal !== undefined || this.asking || this.counted() <= this.allowed) return this.refusal;
    return this.askForMore();
  };

  /** Output so far as the guard counts it: never more than the vendor will bill. */
  private counted(): number {
    return Math.max(this.reported, Math.ceil(this.chars / CHECK_CHARS_PER_TOKEN));
  }

  /** Why the guard ended the stream; undefined while it has not. */
  get refused(): string | undefined {
    return this.refusal;
  }

  /** Output streamed so far, in tokens: the best guess. */
  tokens(): number {
    return Math.max(this.reported, Math.ceil(this.chars / BILL_CHARS_PER_TOKEN));
  }

  /** What the stream has cost so far, for a stream cut before the vendor reported its usage. */
  spentUsd(): number {
    return outputCostOf(this.plan, this.tokens());
  }

  private askForMore(): string | undefined {
    const tokens = this.counted();
    const more = tokens - this.allowed + Math.max(MIN_STEP_TOKENS, Math.ceil(this.allowed / 4));
    const granted = this.room.extend(more * this.plan.outputUsd);
    if (granted instanceof Promise) {
      this.asking = true;
      granted.then(
        (ok) => this.answered(ok, tokens),
        () => this.answered(false, tokens),
      );
      return undefined;
    }
    this.answered(granted, tokens);
    return this.refusal;
  }

  private answered(granted: boolean, tokens: number): void {
    this.asking = false;
    if (granted) {
      this.allowed = paidOutput(this.plan, this.room.reservedUsd());
      return;
    }
    this.refusal = `budget_exceeded: the stream ran past its reservation (about ${tokens} output tokens against ${this.allowed} reserved) and the budget has nothing left`;
  }
}
