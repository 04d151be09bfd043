// `chat.completion.chunk` events → block-structured IR stream events.
//
// OpenAI deltas are flat (content, reasoning, tool call fragments keyed by a
// tool index); the IR opens, fills and closes one block per piece of content.
// Text and thinking blocks close when another kind of content starts. Tool call
// blocks stay open until finish_reason, because vendors may interleave the
// argument fragments of parallel calls.
import type { StopReason, StreamEvent, Usage } from "../../ir.ts";
import { emptyUsage } from "../../ir.ts";
import type { RawStreamEvent, StreamDecoder } from "../types.ts";
import { decodeStreamError } from "./error.ts";
import { decodeFinishReason } from "./finish-reason.ts";
import { isObject, stringOr, type Json } from "./shape.ts";
import { decodeUsage } from "./usage.ts";

export class OpenAIStreamDecoder implements StreamDecoder {
  private started = false;
  private done = false;
  private nextIndex = 0;
  /** The open text or thinking block, if any. */
  private flowing: { kind: "text" | "thinking"; index: number } | undefined;
  /** OpenAI tool index → IR block index, for the open tool call blocks. */
  private readonly tools = new Map<number, number>();
  private refused = false;
  private stopReason: StopReason | undefined;
  private usage: Usage | undefined;

  push(raw: RawStreamEvent): StreamEvent[] {
    if (this.done) return [];
    const data = raw.data.trim();
    if (data === "[DONE]") return this.end();
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return this.fail(`vendor stream sent a chunk that is not JSON: ${data.slice(0, 200)}`);
    }
    if (!isObject(chunk)) return this.fail("vendor stream sent a chunk that is not a JSON object");
    if (chunk.error != null) {
      this.done = true;
      return [{ type: "error", error: decodeStreamError(chunk) }];
    }
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const hasUsage = isObject(chunk.usage);
    // Azure opens with a prompt-filter chunk: no choices, no usage, empty id.
    if (choices.length === 0 && !hasUsage) return [];
    const out: StreamEvent[] = [];
    if (!this.started) {
      this.started = true;
      out.push({ type: "start", id: stringOr(chunk.id, ""), model: stringOr(chunk.model, "") });
    }
    const choice = choices.find((c): c is Json => isObject(c) && (c.index ?? 0) === 0);
    if (choice && this.stopReason === undefined) this.readChoice(choice, out);
    if (hasUsage) this.usage = decodeUsage(chunk.usage);
    // With include_usage the usage comes in a chunk after finish_reason; wait for it.
    if (this.stopReason !== undefined && this.usage !== undefined) this.finish(out);
    return out;
  }

  end(): StreamEvent[] {
    if (this.done) return [];
    const out: StreamEvent[] = [];
    this.closeAll(out);
    if (this.stopReason === undefined) return [...out, ...this.fail("vendor stream ended before a finish_reason")];
    this.finish(out);
    return out;
  }

  private readChoice(choice: Json, out: StreamEvent[]): void {
    const delta = isObject(choice.delta) ? choice.delta : {};
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string") this.flow("thinking", reasoning, out);
    if (typeof delta.content === "string") this.flow("text", delta.content, out);
    else if (Array.isArray(delta.content)) this.readContentParts(delta.content, out);
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      this.refused = true;
      this.flow("text", delta.refusal, out);
    }
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((call, position) => {
        if (isObject(call)) this.readToolCall(call, position, out);
      });
    }
    if (choice.finish_reason != null) {
      this.closeAll(out);
      this.stopReason = this.refused ? "refusal" : decodeFinishReason(choice.finish_reason);
    }
  }

  /** Mistral streams content as parts: `{type:"text"}` and `{type:"thinking", thinking:[text parts]}`. */
  private readContentParts(parts: unknown[], out: StreamEvent[]): void {
    for (const part of parts) {
      if (!isObject(part)) continue;
      if (part.type === "text") this.flow("text", stringOr(part.text, ""), out);
      else if (part.type === "thinking" && Array.isArray(part.thinking)) {
        for (const t of part.thinking) if (isObject(t)) this.flow("thinking", stringOr(t.text, ""), out);
      }
    }
  }

  private flow(kind: "text" | "thinking", text: string, out: StreamEvent[]): void {
    if (text === "") return; // vendors pad deltas with "" and null; no block for them
    if (this.flowing?.kind !== kind) {
      this.closeFlowing(out);
      this.flowing = { kind, index: this.nextIndex++ };
      out.push({ type: "block_start", index: this.flowing.index, block: { type: kind } });
    }
    const index = this.flowing.index;
    out.push(kind === "text" ? { type: "text_delta", index, text } : { type: "thinking_delta", index, text });
  }

  private readToolCall(call: Json, position: number, out: StreamEvent[]): void {
    // Mistral sends complete calls without `index`; their position in the array identifies them.
    const key = typeof call.index === "number" ? call.index : position;
    const fn = isObject(call.function) ? call.function : {};
    let index = this.tools.get(key);
    if (index === undefined) {
      this.closeFlowing(out);
      index = this.nextIndex++;
      this.tools.set(key, index);
      const id = stringOr(call.id, "") || `call_${index}`;
      out.push({ type: "block_start", index, block: { type: "tool_use", id, name: stringOr(fn.name, "") } });
    }
    if (typeof fn.arguments === "string" && fn.arguments !== "") {
      out.push({ type: "tool_args_delta", index, json: fn.arguments });
    }
  }

  private closeFlowing(out: StreamEvent[]): void {
    if (!this.flowing) return;
    out.push({ type: "block_stop", index: this.flowing.index });
    this.flowing = undefined;
  }

  private closeAll(out: StreamEvent[]): void {
    const open = [...this.tools.values()];
    if (this.flowing) open.push(this.flowing.index);
    for (const index of open.sort((a, b) => a - b)) out.push({ type: "block_stop", index });
    this.flowing = undefined;
    this.tools.clear();
  }

  private finish(out: StreamEvent[]): void {
    this.done = true;
    out.push({ type: "finish", stopReason: this.stopReason ?? "end_turn", usage: this.usage ?? emptyUsage() });
  }

  private fail(message: string): StreamEvent[] {
    this.done = true;
    return [{ type: "error", error: { kind: "api_error", status: 502, message } }];
  }
}
