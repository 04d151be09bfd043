// The floor, the skeleton (bench/skeleton.ts), optionally the skeleton with
// the features every case switches on (--features), and Relay behind one fake
// OpenAI vendor, each checked once with its request of a case before any load:
// the stack that bench/ceiling.ts, bench/gc.ts and bench/vendor-conns.ts compare.
import { checkOnce, type Call, type RatioCase } from "./cases.ts";
import { startFake, startFloor, startRelay, startSkeleton, type Target } from "./stack.ts";
import { STREAM_CHUNKS } from "./vendor-frames.ts";

export type ContenderName = "floor" | "skeleton" | "features" | "relay";

export interface Contender {
  name: ContenderName;
  target: Target;
  /** What it is sent: the case's floor request, or its Relay request for Relay. */
  call: Call;
}

export interface ThreeWay {
  vendor: Target;
  /** Floor, skeleton, features (when asked for), Relay, in that order. */
  contenders: Contender[];
  stop(): Promise<void>;
}

export interface ThreeWayOptions {
  /** The fake vendor's answer latency (default 0). */
  latencyMs?: number;
  /** Per contender, a file for its garbage-collection log (see GcLogOption). */
  gcLogs?: Partial<Record<ContenderName, string>>;
  /** Start the skeleton with features too (bench/skeleton.ts --features). */
  features?: boolean;
}

export async function startThreeWay(c: RatioCase, opts: ThreeWayOptions = {}): Promise<ThreeWay> {
  if (c.vendor !== "openai") throw new Error(`case ${c.id}: the skeleton forwards OpenAI requests only`);
  const vendor = await startFake("openai", { chunks: STREAM_CHUNKS, latencyMs: opts.latencyMs });
  const logs = opts.gcLogs ?? {};
  const [floor, skeleton, features, relay] = await Promise.all([
    startFloor(vendor.url, { gcLog: logs.floor }),
    startSkeleton(vendor.url, { gcLog: logs.skeleton }),
    opts.features ? startSkeleton(vendor.url, { features: true, gcLog: logs.features }) : undefined,
    startRelay({ openai: vendor.url, anthropic: vendor.url, gcLog: logs.relay }),
  ]);
  const stop = async (): Promise<void> => void (await Promise.all([floor.stop(), skeleton.stop(), features?.stop(), relay.stop(), vendor.stop()]));
  const contenders: Contender[] = [
    { name: "floor", target: floor, call: c.floor },
    { name: "skeleton", target: skeleton, call: c.floor },
    ...(features ? [{ name: "features" as const, target: features, call: c.floor }] : []),
    { name: "relay", target: relay, call: c.relay },
  ];
  try {
    for (const one of contenders) await checkOnce(one.target.url, one.call, `case ${c.id} via the ${one.name}`);
  } catch (e) {
    await stop();
    throw e;
  }
  return { vendor, contenders, stop };
}
