// The run log's journal for a file-backed SQLite store. A batch of run rows is
// made durable by one append to a plain file (a single write, no fsync: it is
// in the page cache, so it survives kill -9, as a WAL commit with
// synchronous=NORMAL does), and the rows reach SQLite later in large
// transactions. A SQLite commit costs ~30 page writes and 10 lock calls
// whatever its size, so committing per request batch (~20 rows under load)
// cost 7-8 µs per row on the writer thread; the journal append costs one call.
//
// One journal per writer, named after the process that owns it. Journals left
// by a process that died (or by an earlier incarnation of this process's pid)
// are replayed into the table when a store opens; re-inserting a run that was
// committed before the crash changes nothing (INSERT ... ON CONFLICT DO NOTHING).
import { closeSync, existsSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync, ftruncateSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { PRIVATE_FILE_MODE } from "./sqlite-files.ts";
import type { RunRowTuple } from "./row.ts";

/** Journals this process is writing now: a replay must leave them alone. */
const liveJournals = new Set<string>();
let journalCount = 0;

const journalPattern = (db: string) => new RegExp(`^${escapeRegExp(basename(db))}-runs-(\\d+)-\\d+\\.jsonl$`);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A fresh journal path for a writer of `dbPath`, reserved until released. */
export function reserveJournal(dbPath: string): string {
  const path = `${dbPath}-runs-${process.pid}-${++journalCount}.jsonl`;
  liveJournals.add(path);
  return path;
}

export function releaseJournal(path: string): void {
  liveJournals.delete(path);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to another user.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Replays every journal of `dbPath` that no living writer owns, then deletes it.
 * Returns the number of rows read back (some may have been committed already).
 */
export function recoverJournals(dbPath: string, insert: (rows: RunRowTuple[]) => void): number {
  const dir = dirname(dbPath);
  const pattern = journalPattern(dbPath);
  let rows = 0;
  for (const name of readdirSync(dir)) {
    const m = pattern.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    const pid = Number(m[1]);
    // Our own pid but not one of our writers: a previous process with this pid (pid 1 in a container).
    if (liveJournals.has(path) || (pid !== process.pid && processAlive(pid))) continue;
    rows += replayJournal(path, insert);
    unlinkSync(path);
  }
  return rows;
}

/** Inserts a journal's rows in one transaction (see runInserter); a torn last line (power loss mid-write) is skipped. */
export function replayJournal(path: string, insert: (rows: RunRowTuple[]) => void): number {
  if (!existsSync(path)) return 0;
  const rows: RunRowTuple[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line === "") continue;
    let batch: RunRowTuple[];
    try {
      batch = JSON.parse(line) as RunRowTuple[];
    } catch {
      continue;
    }
    for (const row of batch) rows.push(row);
  }
  if (rows.length) insert(rows);
  return rows.length;
}

/** The writer's side: append batches, forget them once committed. */
export class Journal {
  private fd: number;

  constructor(readonly path: string) {
    // O_APPEND: after a truncate the next write lands at the new end. Private, as the database is.
    this.fd = openSync(path, "a", PRIVATE_FILE_MODE);
  }

  /** One write of the batch's JSON text and a newline. */
  append(json: string): void {
    writeSync(this.fd, `${json}\n`);
  }

  /** Everything appended so far is committed to the table. */
  clear(): void {
    ftruncateSync(this.fd, 0);
  }

  close(): void {
    closeSync(this.fd);
    unlinkSync(this.path);
  }
}
