/**
 * Reads what a fake vendor received back into a vendor-neutral shape, so the
 * matrix can assert "the tool results / image arrived in this vendor's own
 * format" with one table. Each reader follows the vendor's documented shape.
 */
import type { VendorKind } from "../fakes/types.ts";

export interface ReceivedToolCall {
  id?: string;
  name: string;
  args: unknown;
}

export interface ReceivedToolResult {
  id?: string;
  name?: string;
  /** The result payload, parsed from JSON (all results in the suite are JSON objects). */
  value: unknown;
}

export interface ReceivedImage {
  mediaType?: string;
  data: string;
}

export interface WireView {
  /** Whether this vendor's wire carries tool-call ids (Gemini 2.5 and Ollama pair by name). */
  carriesIds: boolean;
  toolCalls(body: any): ReceivedToolCall[];
  toolResults(body: any): ReceivedToolResult[];
  images(body: any): ReceivedImage[];
  /** The instruction texts the vendor received, in order (top-level and in the conversation). */
  system(body: any): string[];
}

const textOf = (content: unknown): string =>
  typeof content === "string" ? content : (content as Array<{ text?: string }>).map((p) => p.text ?? "").join("");

const systemMessages = (b: any): string[] => b.messages.filter((m: any) => m.role === "system" || m.role === "developer").map((m: any) => textOf(m.content));

const blocks = (messages: any[]): any[] => messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));

const openai: WireView = {
  carriesIds: true,
  toolCalls: (b) =>
    b.messages.flatMap((m: any) => m.tool_calls ?? []).map((c: any) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) })),
  toolResults: (b) => b.messages.filter((m: any) => m.role === "tool").map((m: any) => ({ id: m.tool_call_id, value: JSON.parse(textOf(m.content)) })),
  images: (b) =>
    blocks(b.messages)
      .filter((p) => p.type === "image_url")
      .map((p) => {
        const m = /^data:([^;]+);base64,(.*)$/.exec(p.image_url.url)!;
        return { mediaType: m[1], data: m[2]! };
      }),
  system: systemMessages,
};

const anthropic: WireView = {
  carriesIds: true,
  toolCalls: (b) => blocks(b.messages).filter((x) => x.type === "tool_use").map((x) => ({ id: x.id, name: x.name, args: x.input })),
  toolResults: (b) =>
    blocks(b.messages).filter((x) => x.type === "tool_result").map((x) => ({ id: x.tool_use_id, value: JSON.parse(textOf(x.content)) })),
  images: (b) => blocks(b.messages).filter((x) => x.type === "image").map((x) => ({ mediaType: x.source.media_type, data: x.source.data })),
  system: (b) => [...(b.system === undefined ? [] : [textOf(b.system)]), ...systemMessages(b)],
};

const GEMINI_SYSTEM_NOTE = "System instruction:\n";
const parts = (b: any): any[] => b.contents.flatMap((c: any) => c.parts ?? []);

const gemini: WireView = {
  carriesIds: false,
  toolCalls: (b) => parts(b).filter((p) => p.functionCall).map((p) => ({ name: p.functionCall.name, args: p.functionCall.args })),
  toolResults: (b) => parts(b).filter((p) => p.functionResponse).map((p) => ({ name: p.functionResponse.name, value: p.functionResponse.response })),
  images: (b) => parts(b).filter((p) => p.inlineData).map((p) => ({ mediaType: p.inlineData.mimeType, data: p.inlineData.data })),
  // Gemini has systemInstruction only; a later instruction arrives as a user turn that says so.
  system: (b) => [
    ...(b.systemInstruction?.parts ?? []).map((p: any) => p.text),
    ...parts(b).filter((p) => p.text?.startsWith(GEMINI_SYSTEM_NOTE)).map((p) => p.text.slice(GEMINI_SYSTEM_NOTE.length)),
  ],
};

const ollama: WireView = {
  carriesIds: false,
  toolCalls: (b) => b.messages.flatMap((m: any) => m.tool_calls ?? []).map((c: any) => ({ name: c.function.name, args: c.function.arguments })),
  toolResults: (b) => b.messages.filter((m: any) => m.role === "tool").map((m: any) => ({ name: m.tool_name, value: JSON.parse(m.content) })),
  images: (b) => b.messages.flatMap((m: any) => (m.images ?? []).map((data: string) => ({ data }))),
  system: systemMessages,
};

export const WIRE_VIEWS: Record<VendorKind, WireView> = { openai, anthropic, gemini, ollama };
