// Gemini `parts` <-> IR content blocks, shared by requests and responses.
//
// Thought signatures: Gemini attaches `thoughtSignature` to the part that
// follows hidden reasoning (a text or functionCall part) and requires it back
// on that same part (Gemini 3 rejects function calls without it). The IR keeps
// a signature in a thinking block, so a signature on a non-thought part becomes
// an empty thinking block right before that part, and encoding re-attaches it
// to the next part (or, at the end of a message, to the previous one, which is
// where a stream's trailing signature-only part belongs).
import type { ContentBlock, ImageBlock, TextBlock, ToolResultBlock } from "../../ir.ts";
import { CodecError } from "../types.ts";
import type { CallIds, ToolNames } from "../shared/call-ids.ts";
import { isRecord, optString, records, type JsonObject } from "../shared/guards.ts";
import { inlineDataUrl, mimeTypeOfUrl } from "../shared/images.ts";

export function decodeParts(parts: unknown, ids: CallIds): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const part of records(parts)) {
    const signature = optString(part.thoughtSignature);
    if (part.thought === true) {
      blocks.push({ type: "thinking", text: optString(part.text) ?? "", ...(signature && { signature }) });
      continue;
    }
    if (signature) blocks.push({ type: "thinking", text: "", signature });
    const block = decodePart(part, ids);
    if (block) blocks.push(block);
  }
  return blocks;
}

function decodePart(part: JsonObject, ids: CallIds): ContentBlock | undefined {
  if (typeof part.text === "string") return part.text ? { type: "text", text: part.text } : undefined;
  const media = decodeMedia(part);
  if (media) return media;
  if (isRecord(part.functionCall)) {
    const name = optString(part.functionCall.name) ?? "";
    const id = ids.call(name, optString(part.functionCall.id));
    return { type: "tool_use", id, name, input: isRecord(part.functionCall.args) ? part.functionCall.args : {} };
  }
  if (isRecord(part.functionResponse)) {
    const call = ids.result(optString(part.functionResponse.name) ?? "", optString(part.functionResponse.id));
    return {
      type: "tool_result",
      toolUseId: call.id,
      name: call.name,
      ...decodeFunctionResponse(part.functionResponse.response),
    };
  }
  // executableCode, codeExecutionResult, non-image files...: kept for a Gemini vendor.
  return { type: "opaque", format: "gemini", value: part };
}

function decodeMedia(part: JsonObject): ImageBlock | undefined {
  const inline = part.inlineData;
  if (isRecord(inline) && isImage(inline.mimeType) && typeof inline.data === "string") {
    return { type: "image", source: { kind: "base64", mediaType: String(inline.mimeType), data: inline.data } };
  }
  const file = part.fileData;
  if (isRecord(file) && isImage(file.mimeType ?? "image/") && typeof file.fileUri === "string") {
    return { type: "image", source: { kind: "url", url: file.fileUri } };
  }
  return undefined;
}

const isImage = (mimeType: unknown): boolean => typeof mimeType === "string" && mimeType.startsWith("image/");

/** `{result|output: "text"}` and `{error: "text"}` are the wrappers encodeParts writes; anything else is JSON text. */
function decodeFunctionResponse(response: unknown): Pick<ToolResultBlock, "content" | "isError"> {
  if (isRecord(response)) {
    const keys = Object.keys(response);
    const only = keys.length === 1 ? keys[0] : undefined;
    const value = only === undefined ? undefined : response[only];
    if ((only === "result" || only === "output") && typeof value === "string") {
      return { content: [{ type: "text", text: value }] };
    }
    if (only === "error") {
      return { content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }], isError: true };
    }
  }
  return { content: [{ type: "text", text: JSON.stringify(response ?? {}) }] };
}

/** Encodes one message's blocks; `path` names the message for errors. */
export function encodeParts(blocks: ContentBlock[], names: ToolNames, path: string): JsonObject[] {
  const parts: JsonObject[] = [];
  let signature: string | undefined;
  const push = (part: JsonObject): void => {
    if (signature && part.thoughtSignature === undefined) part.thoughtSignature = signature;
    signature = undefined;
    parts.push(part);
  };
  blocks.forEach((block, i) => {
    switch (block.type) {
      case "text":
        if (block.text) push({ text: block.text });
        break;
      case "image":
        push(imagePart(block));
        break;
      case "tool_use":
        names.note(block);
        push({ functionCall: { name: block.name, args: isRecord(block.input) ? block.input : {} } });
        break;
      case "tool_result":
        for (const part of toolResultParts(block, names, `${path}.content[${i}]`)) push(part);
        break;
      case "thinking":
        if (block.text) push({ text: block.text, thought: true, ...(block.signature && { thoughtSignature: block.signature }) });
        else if (block.signature) signature = block.signature;
        break;
      case "redacted_thinking":
        break; // Gemini has no encrypted-reasoning part to carry it.
      case "opaque":
        if (block.format === "gemini" && isRecord(block.value)) push({ ...block.value });
        break;
    }
  });
  if (signature) {
    const last = parts.at(-1);
    if (last && last.thoughtSignature === undefined) last.thoughtSignature = signature;
    else parts.push({ text: "", thoughtSignature: signature });
  }
  return parts;
}

function imagePart(block: ImageBlock): JsonObject {
  const source = inlineDataUrl(block.source);
  return source.kind === "base64"
    ? { inlineData: { mimeType: source.mediaType, data: source.data } }
    : { fileData: { mimeType: mimeTypeOfUrl(source.url), fileUri: source.url } };
}

function toolResultParts(block: ToolResultBlock, names: ToolNames, path: string): JsonObject[] {
  const name = names.of(block);
  if (!name) {
    throw new CodecError(`Gemini needs the function name of tool result ${block.toolUseId}`, `${path}.tool_use_id`);
  }
  const text = block.content
    .filter((c): c is TextBlock => c.type === "text")
    .map((c) => c.text)
    .join("\n");
  const response = block.isError ? { error: text } : resultObject(text);
  const images = block.content.filter((c): c is ImageBlock => c.type === "image").map(imagePart);
  return [{ functionResponse: { name, response } }, ...images];
}

/** Gemini's response must be an object: JSON object text passes through, other text is wrapped. */
function resultObject(text: string): JsonObject {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
  } catch {
    // plain text
  }
  return { result: text };
}
