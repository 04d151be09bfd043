// IR stream events → `chat.completion.chunk` SSE frames for OpenAI clients.
import type { StreamEvent } from "../../ir.ts";
import { sseFrame } from "../sse.ts";
import type { StreamEncoder, StreamEncoderOptions } from "../types.ts";
import { encodeError } from "./error.ts";
import { encodeFinishReason } from "./finish-reason.ts";
import { chatCompletionId, nowSeconds } from "./response.ts";
import { encodeUsage } from "./usage.ts";

export class OpenAIStreamEncoder implements StreamEncoder {
  private id: string | undefined;
  private readonly created = nowSeconds();
  private roleSent = false;
  /** The chunk's JSON up to its choices, fixed once the id is. */
  private head: string | undefined;
  /** IR block index → OpenAI tool index; OpenAI numbers tool calls 0, 1, 2… among themselves. */
  private readonly toolIndex = new Map<number, number>();
  /**
   * Tool blocks that have streamed no argument text yet. OpenAI clients JSON-parse `arguments`,
   * so an argument-less call (Anthropic streams `""`) must still end as "{}"
   * (conformance: replay.test.ts, anthropic-tool-no-args through the OpenAI SDK).
   */
  private readonly argless = new Set<number>();

  constructor(private readonly opts: StreamEncoderOptions) {
    this.id = opts.id;
  }

  encode(ev: StreamEvent): string {
    switch (ev.type) {
      case "start":
        this.id ??= chatCompletionId(ev.id);
        return this.delta('"content":""');
      case "block_start": {
        if (ev.block.type !== "tool_use") return "";
        const index = this.toolIndex.size;
        this.toolIndex.set(ev.index, index);
        this.argless.add(ev.index);
        const call = { index, id: ev.block.id, type: "function", function: { name: ev.block.name, arguments: "" } };
        return this.delta(`"tool_calls":${JSON.stringify([call])}`);
      }
      case "text_delta":
        return this.delta(`"content":${JSON.stringify(ev.text)}`);
      case "thinking_delta":
        return this.delta(`"reasoning_content":${JSON.stringify(ev.text)}`);
      case "tool_args_delta": {
        const index = this.toolIndex.get(ev.index);
        if (index === undefined || ev.json === "") return "";
        this.argless.delete(ev.index);
        return this.delta(`"tool_calls":${JSON.stringify([{ index, function: { arguments: ev.json } }])}`);
      }
      case "block_stop": {
        const index = this.toolIndex.get(ev.index);
        if (index === undefined || !this.argless.delete(ev.index)) return "";
        return this.delta(`"tool_calls":${JSON.stringify([{ index, function: { arguments: "{}" } }])}`);
      }
      case "finish": {
        const last = this.chunk(JSON.stringify({ index: 0, delta: {}, logprobs: null, finish_reason: encodeFinishReason(ev.stopReason) }));
        return this.opts.includeUsage ? last + this.chunk("", `,"usage":${JSON.stringify(encodeUsage(ev.usage))}`) : last;
      }
      case "error":
        return sseFrame(JSON.stringify(encodeError(ev.error)));
      default: // signature_delta, ping: nothing to say in this format
        return "";
    }
  }

  end(): string {
    return sseFrame("[DONE]");
  }

  /** A content chunk from the delta's JSON-encoded members; the first delta also names the role. */
  private delta(members: string): string {
    const role = this.roleSent ? "" : '"role":"assistant",';
    this.roleSent = true;
    return this.chunk(`{"index":0,"delta":{${role}${members}},"logprobs":null,"finish_reason":null}`);
  }

  /**
   * One `chat.completion.chunk` frame from its JSON-encoded choices and trailing members. The
   * members every chunk repeats are encoded once per stream (the same text JSON.stringify gives
   * the whole object); JSON text holds no raw line break, so it is a single `data:` line.
   */
  private chunk(choices: string, rest = ""): string {
    this.head ??= this.encodeHead();
    return `data: ${this.head}${choices}]${rest}}\n\n`;
  }

  private encodeHead(): string {
    const id = (this.id ??= chatCompletionId(""));
    const created = JSON.stringify(this.created);
    return `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(this.opts.model)},"choices":[`;
  }
}
