// Anthropic SSE events → IR stream events.
//
// IR block indices are dense: vendor blocks the IR stream cannot express
// (server_tool_use, *_tool_result, compaction, fallback, …) are skipped with
// all their deltas, and the following blocks are renumbered. A client of the
// same format therefore loses server-tool blocks when streaming (the
// non-streaming path keeps them as opaque blocks).
//
// Recorded oddities: a repeated message_start for the same message id is
// ignored; a message_start with a different id while a message is open means
// two responses were spliced into one stream, which no client can read
// correctly, so it yields an error and everything after it is ignored.
import { type BlockStart, type IRError, type StopReason, type StreamEvent, type Usage, emptyUsage } from "../../ir.ts";
import type { RawStreamEvent, StreamDecoder } from "../types.ts";
import { decodeStreamError } from "./error.ts";
import { type Json, isRecord } from "./read.ts";
import { decodeStopReason, decodeUsagePatch } from "./usage.ts";

const str = (v: unknown): string => (typeof v === "string" ? v : "");

function blockStart(b: Json): BlockStart | undefined {
  switch (b.type) {
    case "text":
      return { type: "text" };
    case "tool_use":
      return { type: "tool_use", id: str(b.id), name: str(b.name) };
    case "thinking":
      return { type: "thinking" };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: str(b.data) };
    default:
      return undefined;
  }
}

/** Content a content_block_start may already carry (normally empty). */
function initialDeltas(b: Json, index: number): StreamEvent[] {
  const out: StreamEvent[] = [];
  if (b.type === "text" && str(b.text)) out.push({ type: "text_delta", index, text: str(b.text) });
  if (b.type === "thinking" && str(b.thinking)) out.push({ type: "thinking_delta", index, text: str(b.thinking) });
  if (b.type === "thinking" && str(b.signature)) out.push({ type: "signature_delta", index, signature: str(b.signature) });
  if (b.type === "tool_use" && isRecord(b.input) && Object.keys(b.input).length) {
    out.push({ type: "tool_args_delta", index, json: JSON.stringify(b.input) });
  }
  return out;
}

function delta(d: Json, index: number): StreamEvent | undefined {
  switch (d.type) {
    case "text_delta":
      return { type: "text_delta", index, text: str(d.text) };
    case "input_json_delta":
      return { type: "tool_args_delta", index, json: str(d.partial_json) };
    case "thinking_delta":
      return { type: "thinking_delta", index, text: str(d.thinking) };
    case "signature_delta":
      return { type: "signature_delta", index, signature: str(d.signature) };
    default:
      // citations_delta and future delta types have no IR event.
      return undefined;
  }
}

const streamFault = (message: string): IRError => ({ kind: "api_error", status: 502, message });

export class AnthropicStreamDecoder implements StreamDecoder {
  private messageId: string | undefined;
  /** Vendor block index → IR block index, for the blocks the IR can express. */
  private readonly irIndex = new Map<number, number>();
  private readonly open = new Set<number>();
  private nextIndex = 0;
  private usage: Usage = emptyUsage();
  private stopReason: StopReason = "end_turn";
  private stopSequence: string | undefined;
  private sawMessageDelta = false;
  /** message_stop, an error event or a spliced stream: nothing more is read. */
  private done = false;

  push(raw: RawStreamEvent): StreamEvent[] {
    if (this.done) return [];
    let ev: unknown;
    try {
      ev = JSON.parse(raw.data);
    } catch {
      return this.fail(streamFault(`unreadable Anthropic stream event: ${raw.data.slice(0, 200)}`));
    }
    if (!isRecord(ev)) return this.fail(streamFault("Anthropic stream event is not an object"));
    switch (typeof ev.type === "string" ? ev.type : raw.event) {
      case "message_start":
        return this.messageStart(isRecord(ev.message) ? ev.message : {});
      case "content_block_start":
        return this.blockStart(ev.index, isRecord(ev.content_block) ? ev.content_block : {});
      case "content_block_delta": {
        const index = this.mapped(ev.index);
        const out = index === undefined || !isRecord(ev.delta) ? undefined : delta(ev.delta, index);
        return out ? [out] : [];
      }
      case "content_block_stop": {
        const index = this.mapped(ev.index);
        if (index === undefined || !this.open.delete(index)) return [];
        return [{ type: "block_stop", index }];
      }
      case "message_delta":
        this.messageDelta(ev);
        return [];
      case "message_stop":
        return this.finish();
      case "ping":
        return [{ type: "ping" }];
      case "error":
        return this.fail(decodeStreamError(ev));
      default:
        return [];
    }
  }

  end(): StreamEvent[] {
    if (this.done) return [];
    // Stop reason and usage arrive in message_delta; only message_stop itself was lost.
    if (this.sawMessageDelta) return this.finish();
    return [...this.closeOpenBlocks(), ...this.fail(streamFault("Anthropic stream ended before message_stop"))];
  }

  private messageStart(m: Json): StreamEvent[] {
    const id = str(m.id);
    if (this.messageId !== undefined) {
      if (id === this.messageId) return [];
      return this.fail(
        streamFault(`Anthropic stream spliced: message ${id} started while ${this.messageId} was open`),
      );
    }
    this.messageId = id;
    const usage = decodeUsagePatch(m.usage);
    this.usage = { ...this.usage, ...usage };
    return [{ type: "start", id, model: str(m.model), usage }];
  }

  private blockStart(vendorIndex: unknown, b: Json): StreamEvent[] {
    const start = blockStart(b);
    if (typeof vendorIndex !== "number" || !start) return [];
    const index = this.nextIndex++;
    this.irIndex.set(vendorIndex, index);
    this.open.add(index);
    return [{ type: "block_start", index, block: start }, ...initialDeltas(b, index)];
  }

  private mapped(vendorIndex: unknown): number | undefined {
    return typeof vendorIndex === "number" ? this.irIndex.get(vendorIndex) : undefined;
  }

  private messageDelta(ev: Json): void {
    this.sawMessageDelta = true;
    const d = isRecord(ev.delta) ? ev.delta : {};
    if (d.stop_reason !== undefined && d.stop_reason !== null) this.stopReason = decodeStopReason(d.stop_reason);
    if (typeof d.stop_sequence === "string") this.stopSequence = d.stop_sequence;
    // Counters here are cumulative totals: overwrite, never add.
    this.usage = { ...this.usage, ...decodeUsagePatch(ev.usage) };
  }

  private closeOpenBlocks(): StreamEvent[] {
    const out: StreamEvent[] = [...this.open].map((index) => ({ type: "block_stop", index }));
    this.open.clear();
    return out;
  }

  private finish(): StreamEvent[] {
    this.done = true;
    return [
      ...this.closeOpenBlocks(),
      {
        type: "finish",
        stopReason: this.stopReason,
        ...(this.stopSequence === undefined ? {} : { stopSequence: this.stopSequence }),
        usage: this.usage,
      },
    ];
  }

  private fail(error: IRError): StreamEvent[] {
    this.done = true;
    return [{ type: "error", error }];
  }
}
