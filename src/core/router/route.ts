// route(call) → result: the one way every surface routes a chat call. Admit (admission.ts) → plan
// (the strategy, plan.ts) → reserve (here) → the attempts over the candidates (fallback / cascade,
// attempts.ts; each vendor call, vendor-call.ts) → the answer or stream in the call's format
// (answer.ts, stream-start.ts) → the run record (run.ts). Nothing here is HTTP's: a call is data
// (call.ts) and so is its result (result.ts), which the surface renders.
import { RunBudget } from "../limits/budget-run.ts";
import { admit } from "./admission.ts";
import { attemptAll } from "./attempts.ts";
import type { RouteCall } from "./call.ts";
import type { RouterDeps } from "./deps.ts";
import { budgetExceeded, failureOf } from "./failures.ts";
import { planRoute, type Routing } from "./plan.ts";
import type { RouteResult } from "./result.ts";
import type { Run } from "./run.ts";

/**
 * Routes a call; never rejects: a refusal is a result too. Neither this nor the steps before the
 * attempts is an async function: a call in flight holds attemptAll's async frame alone, not one
 * per layer (each frame, its scope and its promise are live cells that every young collection visits).
 */
export function route(deps: RouterDeps, call: RouteCall): Promise<RouteResult> {
  let run: Run | undefined;
  try {
    run = admit(deps, call);
    const planned = planRoute(deps, {
      request: run.ir,
      requestedModel: run.requestedModel,
      clientFormat: call.format,
      headers: run.call.headers,
      nativeOnly: call.nativeOnly,
      clientCredentialFor: run.client?.owner.name,
      credentials: call.caller.credentials,
    });
    if (!(planned instanceof Promise)) return reserve(deps, run, planned);
    const admitted = run;
    return planned.then((routing) => reserve(deps, admitted, routing)).catch((e) => failureOf(deps, admitted.call.id, call.caller, e));
  } catch (e) {
    return Promise.resolve(failureOf(deps, run?.call.id ?? call.id, call.caller, e));
  }
}

/** When budgets are set, reserves for the first candidate (see budget-run.ts), then runs the attempts. */
function reserve(deps: RouterDeps, run: Run, routing: Routing): Promise<RouteResult> {
  const limits = deps.config().limits;
  if (limits.hourlyUsd <= 0 && limits.dailyUsd <= 0) return attemptAll(deps, run.begin(routing, undefined));
  const budget = new RunBudget(deps.budget, run.ir, run.events);
  const refused = budget.reserveFor(routing.candidates[0]!);
  if (!(refused instanceof Promise)) {
    if (refused) throw budgetExceeded(refused);
    return attemptAll(deps, run.begin(routing, budget));
  }
  return refused
    .then((r) => {
      if (r) throw budgetExceeded(r);
      return attemptAll(deps, run.begin(routing, budget));
    })
    .catch((e) => failureOf(deps, run.call.id, run.call.caller, e));
}
