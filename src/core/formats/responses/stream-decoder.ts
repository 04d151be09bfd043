// Responses stream events → block-structured IR stream events.
//
// Output items map to IR blocks: a `message` to a text block, a `reasoning` item to a thinking
// block (its encrypted content as the signature), a `function_call` to a tool_use block, and a
// `custom_tool_call` to one whose arguments are `{"input": <its text>}` (custom-tools.ts). Text and
// thinking blocks open at their first content, so an item with none makes no block. The `.done`
// events hold the whole text: what it has beyond the deltas (a vendor that sends an item whole,
// or fewer deltas than its text) is sent as one more delta.
import type { StreamEvent, ThinkingBlock } from "../../ir.ts";
import type { RawStreamEvent, StreamDecoder } from "../types.ts";
import { isObject, numberOr, stringOr, type Json } from "../openai/shape.ts";
import { decodeStreamError } from "./error.ts";
import { decodeReasoning, SUMMARY_SEPARATOR } from "./items-decode.ts";
import { decodeStatus } from "./response.ts";
import { decodeUsage } from "./usage.ts";

interface OpenItem {
  kind: "text" | "thinking" | "tool";
  /** IR block index, once the block is open. */
  index?: number;
  /** The item's content sent so far, and where its current text part began in it. */
  sent: string;
  partStart: number;
  /** A custom tool call: its text goes out as the `input` member of JSON arguments. */
  custom?: boolean;
}

const CUSTOM_OPEN = '{"input":"';
const CUSTOM_CLOSE = '"}';

export class ResponsesStreamDecoder implements StreamDecoder {
  private started = false;
  private done = false;
  private nextIndex = 0;
  /** Output index → its open item. */
  private readonly items = new Map<number, OpenItem>();
  private toolCalls = false;
  private refused = false;

  push(raw: RawStreamEvent): StreamEvent[] {
    if (this.done) return [];
    let ev: unknown;
    try {
      ev = JSON.parse(raw.data);
    } catch {
      return this.fail(`vendor stream sent an event that is not JSON: ${raw.data.slice(0, 200)}`);
    }
    if (!isObject(ev)) return this.fail("vendor stream sent an event that is not a JSON object");
    const out: StreamEvent[] = [];
    const type = stringOr(ev.type, raw.event ?? "");
    if (!this.started && type !== "error") {
      this.started = true;
      const response = isObject(ev.response) ? ev.response : {};
      out.push({ type: "start", id: stringOr(response.id, ""), model: stringOr(response.model, "") });
    }
    this.read(type, ev, out);
    return out;
  }

  end(): StreamEvent[] {
    if (this.done) return [];
    const out: StreamEvent[] = [];
    this.closeAll(out);
    return [...out, ...this.fail("vendor stream ended before response.completed")];
  }

  private read(type: string, ev: Json, out: StreamEvent[]): void {
    const at = numberOr(ev.output_index, -1);
    switch (type) {
      case "response.output_item.added":
        return this.added(at, isObject(ev.item) ? ev.item : {}, out);
      case "response.output_text.delta":
        return this.delta(at, "text", stringOr(ev.delta, ""), out);
      case "response.refusal.delta":
        this.refused = true;
        return this.delta(at, "text", stringOr(ev.delta, ""), out);
      case "response.output_text.done":
        return this.partDone(at, stringOr(ev.text, ""), out);
      case "response.refusal.done":
        this.refused = true;
        return this.partDone(at, stringOr(ev.refusal, ""), out);
      case "response.reasoning_summary_part.added":
        if (numberOr(ev.summary_index, 0) > 0) this.delta(at, "thinking", SUMMARY_SEPARATOR, out);
        return;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        return this.delta(at, "thinking", stringOr(ev.delta, ""), out);
      case "response.function_call_arguments.delta":
        return this.delta(at, "tool", stringOr(ev.delta, ""), out);
      case "response.function_call_arguments.done":
        return this.rest(at, "tool", stringOr(ev.arguments, ""), out);
      case "response.custom_tool_call_input.delta":
        return this.delta(at, "tool", stringOr(ev.delta, ""), out);
      case "response.custom_tool_call_input.done":
        return this.rest(at, "tool", stringOr(ev.input, ""), out);
      case "response.output_item.done":
        return this.itemDone(at, isObject(ev.item) ? ev.item : {}, out);
      case "response.completed":
      case "response.incomplete":
        return this.finish(isObject(ev.response) ? ev.response : {}, out);
      case "response.failed": {
        const response = isObject(ev.response) ? ev.response : {};
        return this.error(isObject(response.error) ? response.error : {}, out);
      }
      case "error":
        return this.error(ev, out);
      default: // lifecycle, annotations, hosted tool progress: nothing the IR carries
    }
  }

  private added(at: number, item: Json, out: StreamEvent[]): void {
    if (item.type === "function_call" || item.type === "custom_tool_call") {
      this.toolCalls = true;
      const index = this.nextIndex++;
      this.items.set(at, { kind: "tool", index, sent: "", partStart: 0, custom: item.type === "custom_tool_call" || undefined });
      out.push({ type: "block_start", index, block: { type: "tool_use", id: stringOr(item.call_id, "") || `call_${index}`, name: stringOr(item.name, "") } });
    } else if (item.type === "message") this.items.set(at, { kind: "text", sent: "", partStart: 0 });
    else if (item.type === "reasoning") this.items.set(at, { kind: "thinking", sent: "", partStart: 0 });
  }

  private delta(at: number, kind: OpenItem["kind"], text: string, out: StreamEvent[]): void {
    const item = this.items.get(at);
    if (!item || item.kind !== kind || text === "") return;
    item.sent += text;
    const index = this.open(item, out);
    if (kind === "tool") out.push({ type: "tool_args_delta", index, json: item.custom ? customPiece(item, text) : text });
    else out.push(kind === "text" ? { type: "text_delta", index, text } : { type: "thinking_delta", index, text });
  }

  /** A text part's whole text: what the deltas did not send yet. */
  private partDone(at: number, text: string, out: StreamEvent[]): void {
    const item = this.items.get(at);
    if (item?.kind !== "text") return;
    this.complete(at, "text", item.sent.slice(item.partStart), text, out);
    item.partStart = item.sent.length;
  }

  /** An item's whole content (all its parts): what was not sent yet. */
  private rest(at: number, kind: OpenItem["kind"], whole: string, out: StreamEvent[]): void {
    const item = this.items.get(at);
    if (item?.kind === kind) this.complete(at, kind, item.sent, whole, out);
  }

  /** Deltas that disagree with the whole (not its beginning) stand: they are what was streamed. */
  private complete(at: number, kind: OpenItem["kind"], sent: string, whole: string, out: StreamEvent[]): void {
    if (whole.length > sent.length && whole.startsWith(sent)) this.delta(at, kind, whole.slice(sent.length), out);
  }

  private open(item: OpenItem, out: StreamEvent[]): number {
    if (item.index !== undefined) return item.index;
    item.index = this.nextIndex++;
    out.push({ type: "block_start", index: item.index, block: { type: item.kind === "text" ? "text" : "thinking" } });
    return item.index;
  }

  private itemDone(at: number, item: Json, out: StreamEvent[]): void {
    const open = this.items.get(at);
    if (!open) return;
    if (open.kind === "tool") this.toolDone(at, open, item, out);
    else if (open.kind === "thinking") this.reasoningDone(at, open, item, out);
    else if (Array.isArray(item.content)) {
      this.rest(at, "text", item.content.map((p) => (isObject(p) ? stringOr(p.text ?? p.refusal, "") : "")).join(""), out);
    }
    if (open.index !== undefined) out.push({ type: "block_stop", index: open.index });
    this.items.delete(at);
  }

  /** A tool call ends with its whole arguments (a custom call's text, whose JSON this closes). */
  private toolDone(at: number, open: OpenItem, item: Json, out: StreamEvent[]): void {
    this.rest(at, "tool", stringOr(open.custom ? item.input : item.arguments, ""), out);
    if (open.custom) out.push({ type: "tool_args_delta", index: open.index!, json: open.sent === "" ? CUSTOM_OPEN + CUSTOM_CLOSE : CUSTOM_CLOSE });
  }

  /** A reasoning item ends with its encrypted content (the signature), and any summary text not streamed. */
  private reasoningDone(at: number, open: OpenItem, item: Json, out: StreamEvent[]): void {
    let whole: ThinkingBlock;
    try {
      whole = decodeReasoning(item, "item");
    } catch {
      return; // a malformed item adds nothing to what streamed
    }
    this.rest(at, "thinking", whole.text, out);
    if (whole.signature) {
      const index = this.open(open, out);
      out.push({ type: "signature_delta", index, signature: whole.signature });
    }
  }

  private closeAll(out: StreamEvent[]): void {
    for (const item of this.items.values()) if (item.index !== undefined) out.push({ type: "block_stop", index: item.index });
    this.items.clear();
  }

  private finish(response: Json, out: StreamEvent[]): void {
    this.closeAll(out);
    this.done = true;
    const toolCalls = this.toolCalls || (Array.isArray(response.output) && response.output.some((o) => isObject(o) && (o.type === "function_call" || o.type === "custom_tool_call")));
    const stopReason = decodeStatus(response.status, response.incomplete_details, toolCalls, this.refused);
    out.push({ type: "finish", stopReason, usage: decodeUsage(response.usage) });
  }

  private error(fields: Json, out: StreamEvent[]): void {
    this.closeAll(out);
    this.done = true;
    out.push({ type: "error", error: decodeStreamError(fields) });
  }

  private fail(message: string): StreamEvent[] {
    this.done = true;
    return [{ type: "error", error: { kind: "api_error", status: 502, message } }];
  }
}

/** A custom call's text as a piece of JSON arguments; the first piece opens them (itemDone closes them). */
function customPiece(item: OpenItem, text: string): string {
  const escaped = JSON.stringify(text).slice(1, -1);
  return item.sent.length === text.length ? CUSTOM_OPEN + escaped : escaped;
}
