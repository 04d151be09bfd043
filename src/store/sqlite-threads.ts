// The main-thread side of a file-backed SQLite store's two worker threads: the writer
// (sqlite-writer.ts: run-log inserts, pruning, budget counters) and the reader (sqlite-reader.ts:
// reads and WAL checkpoints). Each starts on first use and again after it died.
import type { RunRecord } from "../core/run-record.ts";
import type { WriterReply, WriterRequest } from "./journal-writer.ts";
import { runRowTuple } from "./row.ts";
import type { Row } from "./sql.ts";
import { CHECKPOINT_BACKSTOP_PAGES } from "./sqlite-connection.ts";
import { releaseJournal, reserveJournal } from "./sqlite-journal.ts";
import type { ReaderReply, ReaderRequest } from "./sqlite-reader.ts";
import { WorkerRequests, workerEntry } from "./worker-requests.ts";

const WRITER_ENTRY = workerEntry("sqlite-writer.ts");
const READER_ENTRY = workerEntry("sqlite-reader.ts");

/**
 * The main-thread side of the writer worker: one pending promise per request,
 * settled by the worker's reply (an insert's once its batch is journaled). The
 * worker starts on the first write (start-up and CLI commands that never
 * write pay nothing) and again after it died, on the same journal: the new
 * worker commits what the dead one journaled. A death fails the batches it
 * held, which the run writer retries (re-inserting an id is a no-op, so a
 * batch journaled just before the death is not doubled).
 */
export class WriterThread {
  private requests: WorkerRequests<WriterReply> | undefined;
  private readonly journal: string;
  /** A worker died after journaling: its rows wait in the journal for the next worker. */
  private diedWithRows = false;

  /** `started`: called as each worker starts. */
  constructor(
    private readonly path: string,
    private readonly started: () => void,
  ) {
    this.journal = reserveJournal(path);
  }

  async insert(records: RunRecord[]): Promise<void> {
    const json = JSON.stringify(records.map(runRowTuple));
    await this.request((seq) => ({ op: "insert", seq, json }));
  }

  /** Adds to a kv counter on the writer's connection; resolves to the new value. */
  async incr(key: string, delta: number): Promise<number> {
    return Number((await this.request((seq) => ({ op: "incr", seq, key, delta }))).value);
  }

  /** Deletes runs older than `before` (of `team`, or of no team: RunLog.prune) on the writer's thread, in chunks; resolves to the count. */
  async prune(before: number, team?: string): Promise<number> {
    return Number((await this.request((seq) => ({ op: "prune", seq, before, team }))).value);
  }

  /** Starts the worker unless it runs. */
  ready(): void {
    this.requests ?? this.start();
  }

  /** Every acknowledged batch is committed to the table. */
  async sync(): Promise<void> {
    // No worker: nothing was journaled, unless one died holding rows (a new one replays them on open).
    if (this.requests || this.diedWithRows) await this.request((seq) => ({ op: "sync", seq }));
  }

  async close(): Promise<void> {
    // A failed final commit leaves the journal on disk for the next open to replay; a prune the
    // close cut short is rejected.
    await this.requests?.close((seq) => ({ op: "close", seq }));
    this.requests = undefined;
    releaseJournal(this.journal);
  }

  private request(build: (seq: number) => Extract<WriterRequest, { seq: number }>): Promise<WriterReply> {
    return (this.requests ?? this.start()).request(build);
  }

  private start(): WorkerRequests<WriterReply> {
    const worker = new Worker(WRITER_ENTRY);
    const requests = new WorkerRequests<WriterReply>(worker, "run log writer thread", {
      exit: () => {
        this.requests = undefined;
        this.diedWithRows = true;
      },
    });
    this.diedWithRows = false;
    worker.postMessage({ op: "open", path: this.path, journal: this.journal } satisfies WriterRequest);
    this.requests = requests;
    this.started();
    return requests;
  }
}

/**
 * The main-thread side of the reader worker (sqlite-reader.ts): reads, and the
 * WAL's checkpoints. It starts on the first read or with the writer, and again
 * on the next read or writer start after it died.
 */
export class ReaderThread {
  private requests: WorkerRequests<ReaderReply> | undefined;

  constructor(
    private readonly path: string,
    private readonly onError: (message: string) => void,
  ) {}

  async all(text: string, params: unknown[]): Promise<Row[]> {
    return (await this.ensure().request((seq) => ({ op: "all", seq, text, params }) satisfies ReaderRequest)).rows as Row[];
  }

  ensure(): WorkerRequests<ReaderReply> {
    return this.requests ?? this.start();
  }

  /** Waits for a read or checkpoint in progress to end, so the store's final checkpoint is not refused as busy. */
  async close(): Promise<void> {
    await this.requests?.close((seq) => ({ op: "close", seq }));
    this.requests = undefined;
  }

  private start(): WorkerRequests<ReaderReply> {
    const worker = new Worker(READER_ENTRY);
    const requests = new WorkerRequests<ReaderReply>(worker, "SQLite reader thread", {
      exit: (error) => {
        this.requests = undefined;
        this.onError(`${error.message}: reads start a new one; meanwhile the WAL is folded into the database only past ${CHECKPOINT_BACKSTOP_PAGES} pages`);
      },
      notice: (notice) => this.onError(notice.error ?? ""),
    });
    worker.postMessage({ op: "open", path: this.path } satisfies ReaderRequest);
    this.requests = requests;
    return requests;
  }
}
