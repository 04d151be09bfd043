// The request path shared by /v1/messages and /v1/chat/completions:
// admit (admission.ts) → plan (strategy, plan.ts) → reserve (here) → attempts over the candidates
// (fallback / cascade, attempts.ts; each vendor call, vendor-call.ts) → the answer in the client's
// format (answer.ts, stream-start.ts) → the run record (run.ts).
import type { BudgetRefusal } from "../limits/budget.ts";
import { RunBudget } from "../limits/budget-run.ts";
import { admit } from "./admission.ts";
import { attemptAll } from "./attempts.ts";
import type { RouterDeps } from "./deps.ts";
import { budgetExceeded } from "./failures.ts";
import { planRoute, type Routing } from "./plan.ts";
import type { ChatCall, Run } from "./run.ts";

/**
 * validate → plan → reserve → attempts. Neither this nor the steps before the attempts is an async
 * function: a request in flight holds attemptAll's async frame alone here, not one per layer (each
 * frame, its scope and its promise are live cells that every young collection visits). A refusal
 * before any vendor call rejects the promise.
 */
export function handleChat(deps: RouterDeps, call: ChatCall): Promise<Response> {
  try {
    const run = admit(deps, call);
    const planned = planRoute(deps, {
      request: run.ir,
      requestedModel: run.requestedModel,
      clientFormat: call.clientFormat,
      headers: call.request.headers,
      anthropicOnly: call.clientFormat === "anthropic",
      clientCredentialFor: run.client?.owner.name,
    });
    return planned instanceof Promise ? planned.then((routing) => reserve(deps, run, routing)) : reserve(deps, run, planned);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** When budgets are set, reserves for the first candidate (see budget-run.ts), then runs the attempts. */
function reserve(deps: RouterDeps, run: Run, routing: Routing): Promise<Response> {
  const limits = deps.config().limits;
  if (limits.hourlyUsd <= 0 && limits.dailyUsd <= 0) return attemptAll(deps, run.begin(routing, undefined));
  const budget = new RunBudget(deps.budget, run.ir, run.events);
  const refused = budget.reserveFor(routing.candidates[0]!);
  return refused instanceof Promise ? refused.then((r) => attemptReserved(deps, run, routing, budget, r)) : attemptReserved(deps, run, routing, budget, refused);
}

function attemptReserved(deps: RouterDeps, run: Run, routing: Routing, budget: RunBudget, refused: BudgetRefusal | undefined): Promise<Response> {
  if (refused) throw budgetExceeded(refused);
  return attemptAll(deps, run.begin(routing, budget));
}
