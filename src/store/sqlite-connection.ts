// The settings every connection to a file-backed SQLite store shares: the main
// thread's, the run-log writer's and the reader's.
import { Database } from "bun:sqlite";

/**
 * wal_autocheckpoint of the connections that write: the reader thread
 * (sqlite-reader.ts) folds the WAL into the file, so they checkpoint
 * only if it has fallen this many pages (40 MB) behind, e.g. while its
 * checkpoints keep failing. SQLite's default of 1,000 pages put each
 * checkpoint, fsyncs included, in the writer's commits.
 */
export const CHECKPOINT_BACKSTOP_PAGES = 10_000;

export function openConnection(path: string): Database {
  const db = new Database(path, { create: true, strict: true });
  // First, so that switching to WAL waits for other processes' locks.
  db.run("PRAGMA busy_timeout = 5000");
  // Commits append to the WAL without fsync; a process kill loses nothing committed.
  db.run("PRAGMA synchronous = NORMAL");
  db.run(`PRAGMA wal_autocheckpoint = ${CHECKPOINT_BACKSTOP_PAGES}`);
  return db;
}
