// The worker thread that owns the run log's writes for a file-backed SQLite
// store: each message goes to one JournalWriter (journal-writer.ts says what it
// does with it), and each reply goes back to the store (sqlite.ts).
import { JournalWriter, type WriterRequest } from "./journal-writer.ts";
import { answerRequests } from "./worker-requests.ts";

declare const self: Worker;

const writer = new JournalWriter();
answerRequests<WriterRequest>(self, (msg) => writer.handle(msg));
