// What the full bench and the CI bench share: the instant-vendor stack (one
// fake and one floor per vendor, plus Relay), the once-per-case correctness
// check, and the throughput cases measured against the floor.
import { checkOnce, type RatioCase, type Vendor } from "./cases.ts";
import { ratioCase, type Outcome, type Timing } from "./measure.ts";
import { startFake, startFloor, startRelay, type Target } from "./stack.ts";

import { STREAM_CHUNKS } from "./vendor-frames.ts";

export { STREAM_CHUNKS };

export interface InstantStack {
  vendors: Record<Vendor, Target>;
  floors: Record<Vendor, Target>;
  relay: Target;
  stop(): Promise<void>;
}

export async function startInstantStack(opts: { cpuProfDir?: string } = {}): Promise<InstantStack> {
  const [openai, anthropic] = await Promise.all([startFake("openai", { chunks: STREAM_CHUNKS }), startFake("anthropic", { chunks: STREAM_CHUNKS })]);
  const [floorOpenai, floorAnthropic, relay] = await Promise.all([
    startFloor(openai.url),
    startFloor(anthropic.url),
    startRelay({ openai: openai.url, anthropic: anthropic.url, cpuProfDir: opts.cpuProfDir }),
  ]);
  const all = [openai, anthropic, floorOpenai, floorAnthropic, relay];
  return {
    vendors: { openai, anthropic },
    floors: { openai: floorOpenai, anthropic: floorAnthropic },
    relay,
    stop: async () => void (await Promise.all(all.map((t) => t.stop()))),
  };
}

/** One request per case through Relay and through the floor must succeed before any load is applied. */
export async function checkCases(cases: RatioCase[], stack: InstantStack): Promise<void> {
  for (const c of cases) {
    await checkOnce(stack.relay.url, c.relay, `case ${c.id} via relay`);
    await checkOnce(stack.floors[c.vendor].url, c.floor, `case ${c.id} via floor`);
  }
}

export const progress = (msg: string): void => void process.stderr.write(`· ${msg}\n`);

/** Each case against its vendor's floor, in alternating slices (see ratioCase). */
export async function runRatioCases(cases: RatioCase[], stack: InstantStack, timing: Timing, barOf: (c: RatioCase) => number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const c of cases) {
    progress(`case ${c.id}: floor and relay, ${timing.rounds} rounds`);
    outcomes.push(await ratioCase(c, stack.floors[c.vendor].url, stack.relay, timing, barOf(c)));
  }
  return outcomes;
}
