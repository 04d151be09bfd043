// streamGenerateContent?alt=sse -> IR stream events. Every SSE `data:` is a
// whole GenerateContentResponse holding the next parts; consecutive text parts
// extend one text block, thought parts one thinking block, and each function
// call becomes one complete tool_use block (arguments streamed by Vertex as
// partialArgs are assembled first, so the JSON delta is always whole).
import { emptyUsage, type StreamEvent, type Usage } from "../../ir.ts";
import type { RawStreamEvent, StreamDecoder } from "../types.ts";
import { prefixedId } from "../../ids.ts";
import { CallIds } from "../shared/call-ids.ts";
import { decodeError } from "./errors.ts";
import { decodeFinishReason } from "./finish.ts";
import { isRecord, optNumber, optString, parseJson, records, type JsonObject } from "../shared/guards.ts";
import { BlockSequencer } from "../shared/block-sequencer.ts";
import { PartialArgs } from "./partial-args.ts";
import { decodeUsage, hasCounts } from "./usage.ts";

interface PendingCall {
  id: string;
  name: string;
  args: PartialArgs;
}

export class GeminiStreamDecoder implements StreamDecoder {
  private started = false;
  private closed = false;
  private readonly blocks = new BlockSequencer();
  private pending: PendingCall | undefined;
  private readonly ids = new CallIds(() => prefixedId("call"));
  private madeToolCall = false;
  private finishReason: string | undefined;
  private blocked = false;
  private usage: Usage = emptyUsage();

  push(raw: RawStreamEvent): StreamEvent[] {
    if (this.closed) return [];
    const chunk = parseJson(raw.data, "stream chunk");
    const out: StreamEvent[] = [];
    const error = Array.isArray(chunk) ? chunk[0] : chunk;
    if (isRecord(error) && isRecord(error.error)) {
      this.closed = true;
      return [{ type: "error", error: decodeError(optNumber(error.error.code) ?? 500, error) }];
    }
    if (!isRecord(chunk)) return out;
    if (!this.started) {
      this.started = true;
      out.push({ type: "start", id: optString(chunk.responseId) ?? prefixedId("resp"), model: optString(chunk.modelVersion) ?? "" });
    }
    const candidate = records(chunk.candidates)[0];
    if (candidate && isRecord(candidate.content)) {
      for (const part of records(candidate.content.parts)) this.part(part, out);
    }
    if (typeof candidate?.finishReason === "string") {
      this.finishReason = candidate.finishReason;
      this.flushCall(out);
    }
    if (isRecord(chunk.promptFeedback) && chunk.promptFeedback.blockReason !== undefined) this.blocked = true;
    if (hasCounts(chunk.usageMetadata)) this.usage = decodeUsage(chunk.usageMetadata);
    return out;
  }

  end(): StreamEvent[] {
    if (this.closed || !this.started) return [];
    this.closed = true;
    const out: StreamEvent[] = [];
    // A stream may stop without the call's terminal part; what arrived is still the call.
    this.flushCall(out);
    this.blocks.close(out);
    // Every complete Gemini stream carries a finishReason (or a prompt block); without one the
    // stream was cut short and must not look finished (conformance: guarantees.test.ts, mid-stream death).
    if (this.finishReason === undefined && !this.blocked) {
      out.push({ type: "error", error: { kind: "api_error", status: 502, message: "Gemini stream ended before a finishReason" } });
      return out;
    }
    const stopReason = this.blocked ? "content_filter" : decodeFinishReason(this.finishReason, this.madeToolCall);
    out.push({ type: "finish", stopReason, usage: this.usage });
    return out;
  }

  private part(part: JsonObject, out: StreamEvent[]): void {
    const signature = optString(part.thoughtSignature);
    if (isRecord(part.functionCall)) return this.functionCall(part.functionCall, signature, out);
    const text = optString(part.text) ?? "";
    if (text || signature) this.flushCall(out);
    if (part.thought === true) {
      if (!text && !signature) return;
      const index = this.blocks.ensure("thinking", out);
      if (text) out.push({ type: "thinking_delta", index, text });
      if (signature) {
        out.push({ type: "signature_delta", index, signature });
        this.blocks.close(out);
      }
      return;
    }
    if (signature) this.signatureBlock(signature, out);
    if (text) out.push({ type: "text_delta", index: this.blocks.ensure("text", out), text });
    // inlineData and other media parts have no IR stream block.
  }

  private functionCall(fc: JsonObject, signature: string | undefined, out: StreamEvent[]): void {
    const name = optString(fc.name);
    if (name) {
      this.flushCall(out);
      if (signature) this.signatureBlock(signature, out);
      const call: PendingCall = {
        id: this.ids.call(name, optString(fc.id)),
        name,
        args: new PartialArgs(isRecord(fc.args) ? { ...fc.args } : {}),
      };
      call.args.apply(fc.partialArgs);
      if (fc.willContinue === true) this.pending = call;
      else this.emitCall(call, out);
      return;
    }
    // A continuation of the streamed call; `{willContinue:true}` alone only keeps it open.
    if (!this.pending) return;
    this.pending.args.apply(fc.partialArgs);
    if (fc.willContinue !== true) this.flushCall(out);
  }

  private flushCall(out: StreamEvent[]): void {
    if (!this.pending) return;
    const call = this.pending;
    this.pending = undefined;
    this.emitCall(call, out);
  }

  private emitCall(call: PendingCall, out: StreamEvent[]): void {
    this.blocks.whole({ type: "tool_use", id: call.id, name: call.name }, (index) => [{ type: "tool_args_delta", index, json: JSON.stringify(call.args.args) }], out);
    this.madeToolCall = true;
  }

  /** A signature on a non-thought part: an empty thinking block carrying it (see parts.ts). */
  private signatureBlock(signature: string, out: StreamEvent[]): void {
    this.blocks.whole({ type: "thinking" }, (index) => [{ type: "signature_delta", index, signature }], out);
  }
}
