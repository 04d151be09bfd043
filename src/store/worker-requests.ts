// Requests to a store's worker thread, each answered by the reply that carries
// its sequence number. An unanswered request keeps the process alive (a
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

export class WorkerRequests<Reply extends WorkerReply> {
  private seq = 0;
  private readonly pending = new Map<number, { resolve(reply: Reply): void; reject(e: Error): void }>();

  /** `onNotice`: replies with seq 0, which answer no request (a background failure, say). */
  constructor(
    readonly worker: Worker,
    onNotice: (reply: Reply) => void = () => {},
  ) {
    worker.unref();
    worker.onmessage = (event: MessageEvent<Reply>) => {
      const reply = event.data;
      const p = this.pending.get(reply.seq);
      if (!p) return reply.seq === 0 ? onNotice(reply) : undefined;
      this.pending.delete(reply.seq);
      if (this.pending.size === 0) worker.unref();
      if (reply.error === undefined) p.resolve(reply);
      else p.reject(new Error(reply.error));
    };
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

  /** Rejects every unanswered request: the worker died, or was closed before it answered. */
  failAll(error: Error): void {
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}
