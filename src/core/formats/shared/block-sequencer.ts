// Turns vendor chunks that carry whole parts (Gemini, Ollama) into IR block
// events: consecutive text (or thinking) deltas share one open block, any other
// block closes it, and indices stay dense.
import type { BlockStart, StreamEvent } from "../../ir.ts";

export class BlockSequencer {
  private nextIndex = 0;
  private open: { index: number; kind: "text" | "thinking" } | undefined;

  /** Index of the open block of that kind, opening one (and closing another) if needed. */
  ensure(kind: "text" | "thinking", out: StreamEvent[]): number {
    if (this.open?.kind === kind) return this.open.index;
    this.close(out);
    const index = this.nextIndex++;
    out.push({ type: "block_start", index, block: { type: kind } });
    this.open = { index, kind };
    return index;
  }

  /** Emit a complete block (start, its content events, stop) after closing the open one. */
  whole(block: BlockStart, content: (index: number) => StreamEvent[], out: StreamEvent[]): void {
    this.close(out);
    const index = this.nextIndex++;
    out.push({ type: "block_start", index, block }, ...content(index), { type: "block_stop", index });
  }

  close(out: StreamEvent[]): void {
    if (!this.open) return;
    out.push({ type: "block_stop", index: this.open.index });
    this.open = undefined;
  }
}
