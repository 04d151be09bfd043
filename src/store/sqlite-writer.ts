// The worker thread that owns the run log's writes for a file-backed SQLite
// store: each message goes to one JournalWriter (journal-writer.ts says what it
// does with it), and each reply goes back to the store (sqlite.ts).
import { JournalWriter, type WriterReply, type WriterRequest } from "./journal-writer.ts";

declare const self: Worker;

const writer = new JournalWriter();

self.onmessage = (event: MessageEvent<WriterRequest>) => {
  const msg = event.data;
  const fail = (e: unknown) => self.postMessage({ seq: msg.op === "open" ? 0 : msg.seq, error: (e as Error)?.message ?? String(e) } satisfies WriterReply);
  try {
    const reply = writer.handle(msg);
    if (reply instanceof Promise) reply.then((r) => self.postMessage(r), fail);
    else if (reply) self.postMessage(reply);
  } catch (e) {
    fail(e);
  }
};
