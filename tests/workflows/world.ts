// A fake OpenAI vendor and a portable router (src/portable.ts createRouter) routing to it in
// process: what the SDK's local mode runs a workflow on.
import { createRouter, type Router } from "../../src/portable.ts";
import { routeCaller } from "../../src/core/workflows/index.ts";
import type { StepCaller } from "../../src/core/workflows/types.ts";
import type { FakeVendor, ReceivedRequest } from "../fakes/vendor.ts";

export interface World {
  router: Router;
  call: StepCaller;
}

export function worldOn(vendor: FakeVendor): World {
  const router = createRouter({ env: { OPENAI_API_KEY: "sk-test", RELAY_OPENAI_BASE_URL: `${vendor.url}/v1` } });
  return { router, call: routeCaller(router.route) };
}

/** The text of a chat call's last user message. */
export const lastUserText = (req: ReceivedRequest): string => {
  const users = (req.json?.messages ?? []).filter((m: { role: string }) => m.role === "user");
  return String(users.at(-1)?.content ?? "");
};

/** Resolves once `check` holds, polling; rejects after `ms` (generous: only a broken engine waits that long). */
export async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}
