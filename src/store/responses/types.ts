// Stored Responses API answers (POST /v1/responses with `store`): what GET and DELETE
// /v1/responses/{id} serve, and what a later turn's `previous_response_id` rebuilds its
// conversation from. Kept as long as the run log (telemetry.retentionDays).

export interface StoredResponse {
  /** The response's id (`resp_…`): the vendor's when it answered in the Responses format, else Relay's own. */
  id: string;
  /** When it was stored, ms since the epoch: what retention prunes by. */
  ts: number;
  /** The provider that answered: a vendor speaking the Responses API keeps the conversation itself. */
  provider: string;
  /**
   * The conversation this response answered, as Responses input items: the earlier turns' input
   * and output items, then this turn's input. A later turn continues with these and `response.output`.
   */
  input: unknown[];
  /** The response object as the client received it (model, created_at, output, usage, …). */
  response: Record<string, unknown>;
}

export interface ResponseStore {
  /** Keeps a response; one stored under the same id is replaced. */
  put(r: StoredResponse): Promise<void>;
  get(id: string): Promise<StoredResponse | undefined>;
  /** Whether there was one to delete. */
  delete(id: string): Promise<boolean>;
  /** Deletes responses stored before `before`; returns how many. */
  prune(before: number): Promise<number>;
}
