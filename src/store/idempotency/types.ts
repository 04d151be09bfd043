// The first answers to POSTs sent with an Idempotency-Key, per team and key (issue 37 item 2).

export interface IdempotentAnswer {
  status: number;
  /** The answer's JSON body. */
  body: string;
}

export type IdempotencyClaim =
  /** The key is new: this request runs, then `complete` or `release`. */
  | { kind: "claimed" }
  /** A request with this key: its fingerprint and, once it finished, its answer. */
  | { kind: "seen"; fingerprint: string; answer?: IdempotentAnswer };

export interface IdempotencyStore {
  /** Claim `key` for a request with `fingerprint` (what its method, path and body were), or see who has it. */
  claim(team: string, key: string, fingerprint: string, now: string): Promise<IdempotencyClaim>;
  /** Store the answer of the request that claimed `key`. */
  complete(team: string, key: string, answer: IdempotentAnswer): Promise<void>;
  /** Free `key` after its request failed, so a retry runs again. */
  release(team: string, key: string): Promise<void>;
}
