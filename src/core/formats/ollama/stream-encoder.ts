// IR stream events -> /api/chat NDJSON lines. Tool calls are sent whole when
// their block closes (Ollama never streams arguments); counts ride on the
// final `done: true` line.
import type { StreamEvent } from "../../ir.ts";
import type { StreamEncoder, StreamEncoderOptions } from "../types.ts";
import { parseArgsObject, type JsonObject } from "../shared/guards.ts";
import { encodeError } from "./errors.ts";
import { toolCall } from "./message.ts";
import { createdAt, encodeDoneReason, encodeUsage } from "./response.ts";

export class OllamaStreamEncoder implements StreamEncoder {
  private readonly calls = new Map<number, { name: string; args: string }>();

  constructor(private readonly opts: StreamEncoderOptions) {}

  encode(ev: StreamEvent): string {
    switch (ev.type) {
      case "text_delta":
        return ev.text ? this.line({ message: { role: "assistant", content: ev.text }, done: false }) : "";
      case "thinking_delta":
        return ev.text ? this.line({ message: { role: "assistant", content: "", thinking: ev.text }, done: false }) : "";
      case "block_start":
        if (ev.block.type === "tool_use") this.calls.set(ev.index, { name: ev.block.name, args: "" });
        return "";
      case "tool_args_delta": {
        const call = this.calls.get(ev.index);
        if (call) call.args += ev.json;
        return "";
      }
      case "block_stop": {
        const call = this.calls.get(ev.index);
        if (!call) return "";
        this.calls.delete(ev.index);
        const message = { role: "assistant", content: "", tool_calls: [toolCall(call.name, parseArgsObject(call.args))] };
        return this.line({ message, done: false });
      }
      case "finish":
        return this.line({
          message: { role: "assistant", content: "" },
          done: true,
          done_reason: encodeDoneReason(ev.stopReason),
          ...encodeUsage(ev.usage),
        });
      case "error":
        return `${JSON.stringify(encodeError(ev.error))}\n`;
      default:
        return ""; // start, signatures and pings have no Ollama form
    }
  }

  end(): string {
    return "";
  }

  private line(fields: JsonObject): string {
    return `${JSON.stringify({ model: this.opts.model, created_at: createdAt(), ...fields })}\n`;
  }
}
