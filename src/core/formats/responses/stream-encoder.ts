// IR stream events → the Responses event sequence: response.created and response.in_progress,
// then per output item output_item.added … its deltas … output_item.done, and response.completed
// (or .incomplete / .failed) carrying the whole response with its usage. Every event has its
// sequence_number; frames name their event as OpenAI's do. A call of one of the request's custom
// tools is a custom_tool_call item: its text is known whole only once its JSON arguments are, so
// it goes as one custom_tool_call_input.delta when the block ends.
import { prefixedId } from "../../ids.ts";
import type { BlockStart, IRError, StreamEvent } from "../../ir.ts";
import { sseFrame } from "../sse.ts";
import type { StreamEncoder, StreamEncoderOptions } from "../types.ts";
import type { Json } from "../openai/shape.ts";
import { responseError } from "./error.ts";
import { customCallItem, customInput, isCustomTool } from "./custom-tools.ts";
import { functionCallItem, messageItem, reasoningItem } from "./items-encode.ts";
import { parseArguments } from "./items-decode.ts";
import { encodeStatus, nowSeconds, responseId, responseObject } from "./response.ts";
import { encodeUsage } from "./usage.ts";

interface OpenBlock {
  block: BlockStart;
  outputIndex: number;
  itemId: string;
  text: string;
  signature?: string;
  /** A reasoning item's summary part was announced. */
  partOpen?: boolean;
  /** A call of a custom tool. */
  custom?: boolean;
}

export class ResponsesStreamEncoder implements StreamEncoder {
  private id: string | undefined;
  private readonly createdAt = nowSeconds();
  private seq = 0;
  /** Finished output items, by output index (the completed response carries them). */
  private readonly output: Json[] = [];
  /** IR block index → its output item. */
  private readonly blocks = new Map<number, OpenBlock>();

  constructor(private readonly opts: StreamEncoderOptions) {
    this.id = opts.id;
  }

  encode(ev: StreamEvent): string {
    switch (ev.type) {
      case "start": {
        this.id ??= responseId(ev.id);
        const response = this.response({});
        return this.event("response.created", { response }) + this.event("response.in_progress", { response });
      }
      case "block_start":
        return this.blockStart(ev.index, ev.block);
      case "text_delta":
        return this.delta(ev.index, ev.text, "text");
      case "thinking_delta":
        return this.delta(ev.index, ev.text, "thinking");
      case "tool_args_delta":
        return this.delta(ev.index, ev.json, "tool_use");
      case "signature_delta": {
        const open = this.blocks.get(ev.index);
        if (open) open.signature = (open.signature ?? "") + ev.signature;
        return "";
      }
      case "block_stop":
        return this.blockStop(ev.index);
      case "finish": {
        const status = encodeStatus(ev.stopReason);
        const type = status.status === "completed" ? "response.completed" : status.status === "incomplete" ? "response.incomplete" : "response.failed";
        return this.event(type, { response: this.response({ ...status, output: this.finished(), usage: encodeUsage(ev.usage) }) });
      }
      case "error":
        return this.error(ev.error);
      default: // ping
        return "";
    }
  }

  end(): string {
    return ""; // the stream ends with its terminal response event; there is no [DONE]
  }

  private blockStart(index: number, block: BlockStart): string {
    if (block.type === "redacted_thinking") return ""; // another vendor's sealed reasoning: nothing to show
    const outputIndex = this.output.length;
    const custom = block.type === "tool_use" && isCustomTool(this.opts.tools, block.name);
    const prefix = block.type === "text" ? "msg" : block.type === "thinking" ? "rs" : custom ? "ctc" : "fc";
    const open: OpenBlock = { block, outputIndex, itemId: prefixedId(prefix), text: "", custom };
    this.blocks.set(index, open);
    this.output.push({}); // reserves the output index; filled when the item is done
    const at = { output_index: outputIndex };
    if (block.type === "tool_use") {
      const item = custom ? customCallItem(open.itemId, block, "", "in_progress") : functionCallItem(open.itemId, block, "", "in_progress");
      return this.event("response.output_item.added", { ...at, item });
    }
    if (block.type === "thinking") return this.event("response.output_item.added", { ...at, item: { id: open.itemId, type: "reasoning", summary: [] } });
    const item = { id: open.itemId, type: "message", status: "in_progress", role: "assistant", content: [] };
    return (
      this.event("response.output_item.added", { ...at, item }) +
      this.event("response.content_part.added", { item_id: open.itemId, ...at, content_index: 0, part: { type: "output_text", text: "", annotations: [] } })
    );
  }

  private delta(index: number, text: string, kind: BlockStart["type"]): string {
    const open = this.blocks.get(index);
    if (!open || open.block.type !== kind || text === "") return "";
    open.text += text;
    if (open.custom) return "";
    const at = { item_id: open.itemId, output_index: open.outputIndex };
    if (kind === "tool_use") return this.event("response.function_call_arguments.delta", { ...at, delta: text });
    if (kind === "text") return this.event("response.output_text.delta", { ...at, content_index: 0, delta: text, logprobs: [] });
    const part = open.partOpen ? "" : this.event("response.reasoning_summary_part.added", { ...at, summary_index: 0, part: { type: "summary_text", text: "" } });
    open.partOpen = true;
    return part + this.event("response.reasoning_summary_text.delta", { ...at, summary_index: 0, delta: text });
  }

  private blockStop(index: number): string {
    const open = this.blocks.get(index);
    if (!open) return "";
    this.blocks.delete(index);
    const at = { item_id: open.itemId, output_index: open.outputIndex };
    let frames = "";
    let item: Json;
    if (open.custom && open.block.type === "tool_use") {
      const input = customInput(wholeArguments(open.text));
      frames =
        (input === "" ? "" : this.event("response.custom_tool_call_input.delta", { ...at, delta: input })) +
        this.event("response.custom_tool_call_input.done", { ...at, input });
      item = customCallItem(open.itemId, open.block, input);
    } else if (open.block.type === "tool_use") {
      // Clients JSON-parse the arguments: a call that streamed none has "{}".
      const args = open.text || "{}";
      frames = this.event("response.function_call_arguments.done", { ...at, arguments: args });
      item = functionCallItem(open.itemId, open.block, args);
    } else if (open.block.type === "thinking") {
      if (open.partOpen) {
        frames =
          this.event("response.reasoning_summary_text.done", { ...at, summary_index: 0, text: open.text }) +
          this.event("response.reasoning_summary_part.done", { ...at, summary_index: 0, part: { type: "summary_text", text: open.text } });
      }
      item = reasoningItem(open.itemId, open.text, open.signature);
    } else {
      const part = { type: "output_text", text: open.text, annotations: [] };
      frames =
        this.event("response.output_text.done", { ...at, content_index: 0, text: open.text, logprobs: [] }) +
        this.event("response.content_part.done", { ...at, content_index: 0, part });
      item = messageItem(open.itemId, open.text, false);
    }
    this.output[open.outputIndex] = item;
    return frames + this.event("response.output_item.done", { output_index: open.outputIndex, item });
  }

  /** The `error` event, then the failed response, as OpenAI ends a stream that fails. */
  private error(err: IRError): string {
    const { code, message } = responseError(err);
    const failed = this.response({ status: "failed", error: { code, message }, output: this.finished() });
    return this.event("error", { code, message, param: null }) + this.event("response.failed", { response: failed });
  }

  /** Output items that are done (an index reserved by an item still open has none). */
  private finished(): Json[] {
    return this.output.filter((o) => o.type !== undefined);
  }

  private response(rest: Json): Json {
    this.id ??= responseId("");
    return responseObject(this.id, this.opts.model, this.createdAt, rest);
  }

  private event(type: string, fields: Json): string {
    return sseFrame(JSON.stringify({ type, sequence_number: this.seq++, ...fields }), type);
  }
}

/** A custom call's streamed arguments; ones that are not JSON are its text as they came. */
function wholeArguments(json: string): unknown {
  try {
    return parseArguments(json, "arguments");
  } catch {
    return { input: json };
  }
}
