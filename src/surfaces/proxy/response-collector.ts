// Reads a Responses API event stream as it passes and gives the finished response object once its
// final event (response.completed or response.incomplete) is read. Some vendors' final event lists
// no output (it came item by item); the items' own done events fill it in then.
import { SseParser } from "../../core/formats/sse.ts";
import type { RawStreamEvent } from "../../core/formats/types.ts";

type Json = Record<string, unknown>;

const FINAL = new Set(["response.completed", "response.incomplete"]);
const ITEM_DONE = "response.output_item.done";

export class ResponseCollector {
  private readonly parser = new SseParser();
  private readonly items: unknown[] = [];

  /** Set once an event could not be read: the stream goes on untouched, and nothing is kept. */
  private failed = false;

  /** Feed the stream's bytes; returns the finished response with the chunk that completes it. */
  push(chunk: Uint8Array | string): Json | undefined {
    if (this.failed) return undefined;
    try {
      return this.read(chunk);
    } catch {
      this.failed = true;
      return undefined;
    }
  }

  private read(chunk: Uint8Array | string): Json | undefined {
    for (const raw of this.parser.push(chunk)) {
      const type = raw.event ?? typeOf(raw);
      if (type === ITEM_DONE) {
        const e = JSON.parse(raw.data) as { output_index?: number; item?: unknown };
        this.items[typeof e.output_index === "number" ? e.output_index : this.items.length] = e.item;
      } else if (type !== undefined && FINAL.has(type)) {
        const response = (JSON.parse(raw.data) as { response?: Json }).response;
        if (!response) return undefined;
        const output = response.output;
        if ((!Array.isArray(output) || output.length === 0) && this.items.length > 0) response.output = this.items.filter((i) => i !== undefined);
        return response;
      }
    }
    return undefined;
  }
}

/** An event without an `event:` line names its type in its data. */
function typeOf(raw: RawStreamEvent): string | undefined {
  if (!raw.data.startsWith("{")) return undefined;
  const t = (JSON.parse(raw.data) as { type?: unknown }).type;
  return typeof t === "string" ? t : undefined;
}
