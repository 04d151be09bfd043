// What this proxy received from the mesh: the cloud's aggregates across every proxy (GET /v1/status'
// `global.models`), as a health source of the strategy context (StrategyContext.health.shared).
import type { ModelInfo, SharedFacts } from "../../plugin/api.ts";
import type { HealthFeed } from "../limits/health.ts";

/** One row of the cloud's aggregates (src/core/mesh/aggregate.ts, ModelRow). */
export interface ReceivedRow {
  model: string;
  provider: string;
  bucket: string;
  requests: number;
  errors: number;
}

/** Outcomes a model needs before the mesh's word on it counts (the cloud's MIN_REQUESTS). */
const MIN_REQUESTS = 5;

interface Counts {
  requests: number;
  errors: number;
}

export class MeshBoard implements HealthFeed {
  /** Per `provider:model`, over every bucket; and per `provider:model|bucket`. */
  private byModel = new Map<string, Counts>();
  private byBucket = new Map<string, Counts>();

  constructor(private readonly bar: () => number) {}

  /** Replaces what was received before: the cloud's rows cover its whole window. */
  replace(rows: ReceivedRow[]): void {
    const byModel = new Map<string, Counts>();
    const byBucket = new Map<string, Counts>();
    for (const r of rows) {
      const key = `${r.provider}:${r.model}`;
      add(byModel, key, r);
      add(byBucket, `${key}|${r.bucket}`, r);
    }
    this.byModel = byModel;
    this.byBucket = byBucket;
  }

  get models(): number {
    return this.byModel.size;
  }

  sharedFacts(model: ModelInfo, bucket?: string): SharedFacts | undefined {
    // Every plan asks of each candidate: with nothing received (the mesh off), no key is built.
    if (this.byModel.size === 0) return undefined;
    const key = `${model.provider}:${model.id}`;
    const c = bucket === undefined ? this.byModel.get(key) : this.byBucket.get(`${key}|${bucket}`);
    if (!c || c.requests < MIN_REQUESTS) return undefined;
    const successRate = (c.requests - c.errors) / c.requests;
    return { requests: c.requests, errors: c.errors, successRate, meetsBar: successRate >= this.bar() };
  }
}

function add(map: Map<string, Counts>, key: string, r: Counts): void {
  const c = map.get(key) ?? { requests: 0, errors: 0 };
  c.requests += r.requests;
  c.errors += r.errors;
  map.set(key, c);
}
