// Requests to a store's worker thread, each answered by the reply that carries
// its sequence number: the main thread's side (WorkerRequests) and the
// worker's (answerRequests). An unanswered request keeps the process alive (a
// shutdown waits for it); an idle worker does not.

export interface WorkerReply {
  seq: number;
  error?: string;
}

/**
 * A worker's entry (a file in this folder): beside this file when run from
 * source; in the compiled binary (built with each worker as an entry point of
 * its own, see package.json) Bun embeds it under its path relative to src/,
 * and this module's URL is the binary's (`/$bunfs/root/…`, or `B:/~BUN/root/…`
 * on Windows).
 */
export const workerEntry = (file: string): string =>
  /\/\$bunfs\/|\/~BUN\//.test(import.meta.url) ? `./store/${file}` : new URL(`./${file}`, import.meta.url).href;

export interface WorkerEvents<Reply> {
  /** The worker failed or exited before close(): every unanswered request has been rejected with `error`. */
  exit?(error: Error): void;
  /** A reply with seq 0, which answers no request (a background failure, say). */
  notice?(reply: Reply): void;
}

export class WorkerRequests<Reply extends WorkerReply> {
  private seq = 0;
  private readonly pending = new Map<number, { resolve(reply: Reply): void; reject(e: Error): void }>();
  /** Failed, exited or closed: its end is reported once. */
  private ended = false;

  /** `name` names the thread in the errors of its end. */
  constructor(
    readonly worker: Worker,
    private readonly name: string,
    events: WorkerEvents<Reply> = {},
  ) {
    worker.unref();
    worker.onmessage = (event: MessageEvent<Reply>) => {
      const reply = event.data;
      const p = this.pending.get(reply.seq);
      if (!p) return reply.seq === 0 ? events.notice?.(reply) : undefined;
      this.pending.delete(reply.seq);
      if (this.pending.size === 0) worker.unref();
      if (reply.error === undefined) p.resolve(reply);
      else p.reject(new Error(reply.error));
    };
    const end = (error: Error) => {
      if (this.ended) return;
      this.ended = true;
      this.failAll(error);
      events.exit?.(error);
    };
    worker.onerror = (event) => end(new Error(`${name} failed: ${event.message}`));
    worker.addEventListener("close", () => end(new Error(`${name} exited`)));
  }

  /** Posts the message `build` makes with the next sequence number; resolves with its reply. */
  request(build: (seq: number) => { seq: number }): Promise<Reply> {
    if (this.pending.size === 0) this.worker.ref();
    const msg = build(++this.seq);
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(msg.seq, { resolve, reject });
      this.worker.postMessage(msg);
    });
  }

  /**
   * Sends the close message `build` makes and waits for its answer (a failure to close is the
   * worker's to leave on disk), then ends the worker; requests it never answered are rejected.
   */
  async close(build: (seq: number) => { seq: number }): Promise<void> {
    await this.request(build).catch(() => {});
    this.ended = true;
    this.worker.terminate();
    this.failAll(new Error(`${this.name} was closed`));
  }

  private failAll(error: Error): void {
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}

/**
 * The worker's side: answers each message with what `handle` returns (nothing, a reply, or a
 * promise of one) and reports what it throws or rejects with as the message's error. A failed
 * "open" has no sequence number: its error goes out with seq 0.
 */
export function answerRequests<Msg extends { op: string; seq?: number }>(
  scope: Worker,
  handle: (msg: Msg) => WorkerReply | Promise<WorkerReply> | undefined,
): void {
  const fail = (msg: Msg, e: unknown) => scope.postMessage({ seq: msg.seq ?? 0, error: (e as Error)?.message ?? String(e) } satisfies WorkerReply);
  scope.onmessage = (event: MessageEvent<Msg>) => {
    const msg = event.data;
    try {
      const reply = handle(msg);
      if (reply instanceof Promise) reply.then((r) => scope.postMessage(r), (e) => fail(msg, e));
      else if (reply) scope.postMessage(reply);
    } catch (e) {
      fail(msg, e);
    }
  };
}
