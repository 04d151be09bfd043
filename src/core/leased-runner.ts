// Runs jobs kept in the store under a lease (benchmark runs, workflow runs), so a job outlives the
// request that queued it and the process that started it. Every poll takes due jobs — queued ones,
// and running ones whose lease ran out — by a compare-and-set (the store's claim), so instances
// sharing a database never run one twice at once; a heartbeat extends the lease while the job goes
// on, and a job whose lease another instance took over is aborted and marked lost (it must then
// neither release nor finish it). stop() aborts the running jobs and waits for them: each puts its
// job back in the queue. The poll runs on a real timer; lease times are the Relay's clock.
import type { Clock } from "./limits/clock.ts";
import type { Logger } from "./log.ts";
import { Poller } from "./poller.ts";

const POLL_MS = 1_000;

export interface LeasedJobs<J extends { id: string }> {
  /** What the jobs are, for the log ("benchmark run"). */
  readonly kind: string;
  due(now: number, limit: number): Promise<J[]>;
  claim(id: string, now: number, until: number): Promise<boolean>;
  renew(id: string, until: number): Promise<boolean>;
  /** Runs the claimed job; `lost()` tells whether another instance took it over. */
  execute(job: J, signal: AbortSignal, lost: () => boolean): Promise<void>;
}

interface Active {
  abort: AbortController;
  lost: boolean;
  done: Promise<void>;
}

export class LeasedRunner<J extends { id: string }> {
  private readonly poller = new Poller(() => this.poll(), POLL_MS);
  private readonly active = new Map<string, Active>();

  /** `leaseMs`: a claim outlives several heartbeats (a third of it); a job whose instance died is taken over after it. Read at each claim (configuration may change it). */
  constructor(
    private readonly deps: { readonly clock: Clock; readonly log: Logger },
    private readonly jobs: LeasedJobs<J>,
    private readonly leaseMs: () => number,
    private readonly maxActive: number,
  ) {}

  get stopped(): boolean {
    return this.poller.stopped;
  }

  /** Polls from now on; the first poll resumes what a previous process left. */
  start(): void {
    this.poller.start();
  }

  /** Polls now (a job was queued), or right after the poll that runs. */
  kick(): void {
    this.poller.kick();
  }

  /** No new job from now on; the running ones are interrupted and waited for. */
  async stop(): Promise<void> {
    await this.poller.stop();
    for (const a of this.active.values()) a.abort.abort();
    await Promise.all([...this.active.values()].map((a) => a.done));
  }

  private async poll(): Promise<void> {
    try {
      const room = this.maxActive - this.active.size;
      if (room <= 0) return;
      const now = this.deps.clock.now();
      for (const job of await this.jobs.due(now, room)) {
        if (this.stopped) return;
        if (this.active.has(job.id) || !(await this.jobs.claim(job.id, now, now + this.leaseMs()))) continue;
        this.launch(job);
      }
    } catch (e) {
      if (!this.stopped) this.deps.log.error(`polling ${this.jobs.kind}s failed`, { error: e });
    }
  }

  private launch(job: J): void {
    const active: Active = { abort: new AbortController(), lost: false, done: Promise.resolve() };
    const heartbeat = setInterval(() => void this.renew(job.id, active), this.leaseMs() / 3);
    heartbeat.unref?.();
    active.done = this.jobs.execute(job, active.abort.signal, () => active.lost).finally(() => {
      clearInterval(heartbeat);
      this.active.delete(job.id);
      this.kick();
    });
    this.active.set(job.id, active);
  }

  private async renew(id: string, active: Active): Promise<void> {
    try {
      if (await this.jobs.renew(id, this.deps.clock.now() + this.leaseMs())) return;
      active.lost = true;
      active.abort.abort();
    } catch (e) {
      this.deps.log.warn(`extending a ${this.jobs.kind}'s lease failed`, { id, error: e });
    }
  }
}
