// Content blocks, shared by requests and responses (Anthropic uses one block
// vocabulary for both). Block types the IR has no shape for (server tool
// calls and results, documents, search results, compaction, …) become
// OpaqueBlocks, so an Anthropic-to-Anthropic route loses nothing.
import type {
  CacheControl,
  ContentBlock,
  ImageBlock,
  TextBlock,
  ToolResultBlock,
} from "../../ir.ts";
import { type Json, array, isRecord, optBoolean, optString, record, string } from "./read.ts";
import { stringifyClient } from "../../client-json.ts";

/**
 * A cache breakpoint the IR can carry; any other shape (a newer type) is left to the vendor: a
 * same-format vendor receives the client's bytes, and other vendors have no breakpoints to set.
 */
export function decodeCacheControl(v: unknown): CacheControl | undefined {
  if (!isRecord(v) || v.type !== "ephemeral") return undefined;
  return typeof v.ttl === "string" ? { type: "ephemeral", ttl: v.ttl } : { type: "ephemeral" };
}

export function encodeCacheControl(cc: CacheControl | undefined): Json {
  return cc ? { cache_control: cc.ttl === undefined ? { type: "ephemeral" } : { ...cc } } : {};
}

const withCache = <T extends object>(block: T, cc: CacheControl | undefined): T =>
  cc ? { ...block, cacheControl: cc } : block;

export function decodeTextBlock(b: Json, path: string): TextBlock {
  // `citations` on text have no IR field; the text itself is what matters across vendors.
  return withCache(
    { type: "text", text: string(b.text, `${path}.text`) },
    decodeCacheControl(b.cache_control),
  );
}

/** Images with a `file` source (Files API) have no IR source kind and stay opaque. */
function decodeImage(b: Json, path: string): ImageBlock | undefined {
  const source = record(b.source, `${path}.source`);
  const cc = decodeCacheControl(b.cache_control);
  if (source.type === "base64") {
    const mediaType = string(source.media_type, `${path}.source.media_type`);
    const data = string(source.data, `${path}.source.data`);
    return withCache<ImageBlock>({ type: "image", source: { kind: "base64", mediaType, data } }, cc);
  }
  if (source.type === "url") {
    return withCache<ImageBlock>({ type: "image", source: { kind: "url", url: string(source.url, `${path}.source.url`) } }, cc);
  }
  return undefined;
}

function decodeToolResultContent(v: unknown, path: string): Array<TextBlock | ImageBlock> {
  if (v === undefined || v === null) return [];
  if (typeof v === "string") return [{ type: "text", text: v }];
  return array(v, path).map((raw, i) => {
    const p = `${path}[${i}]`;
    const b = record(raw, p);
    const type = string(b.type, `${p}.type`);
    if (type === "text") return decodeTextBlock(b, p);
    // Documents, search results or file images inside a tool result have no IR
    // shape; their JSON keeps the information visible to any model.
    const image = type === "image" ? decodeImage(b, p) : undefined;
    return image ?? { type: "text", text: stringifyClient(b, p) };
  });
}

function decodeToolResult(b: Json, path: string): ToolResultBlock {
  const isError = optBoolean(b.is_error, `${path}.is_error`);
  return withCache(
    {
      type: "tool_result",
      toolUseId: string(b.tool_use_id, `${path}.tool_use_id`),
      content: decodeToolResultContent(b.content, `${path}.content`),
      ...(isError === undefined ? {} : { isError }),
    },
    decodeCacheControl(b.cache_control),
  );
}

export function decodeBlock(raw: unknown, path: string): ContentBlock {
  const b = record(raw, path);
  const type = string(b.type, `${path}.type`);
  switch (type) {
    case "text":
      return decodeTextBlock(b, path);
    case "image":
      return decodeImage(b, path) ?? { type: "opaque", format: "anthropic", value: b };
    case "tool_use":
      return {
        type: "tool_use",
        id: string(b.id, `${path}.id`),
        name: string(b.name, `${path}.name`),
        input: b.input ?? {},
      };
    case "tool_result":
      return decodeToolResult(b, path);
    case "thinking": {
      const signature = optString(b.signature, `${path}.signature`);
      const text = string(b.thinking, `${path}.thinking`);
      return signature ? { type: "thinking", text, signature } : { type: "thinking", text };
    }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: string(b.data, `${path}.data`) };
    default:
      return { type: "opaque", format: "anthropic", value: b };
  }
}

export function decodeContent(v: unknown, path: string): ContentBlock[] {
  if (typeof v === "string") return [{ type: "text", text: v }];
  return array(v, path).map((b, i) => decodeBlock(b, `${path}[${i}]`));
}

function encodeMedia(b: TextBlock | ImageBlock): Json {
  if (b.type === "text") return { type: "text", text: b.text, ...encodeCacheControl(b.cacheControl) };
  const source =
    b.source.kind === "base64"
      ? { type: "base64", media_type: b.source.mediaType, data: b.source.data }
      : { type: "url", url: b.source.url };
  return { type: "image", source, ...encodeCacheControl(b.cacheControl) };
}

/**
 * One IR block in Anthropic's wire shape, or undefined when Anthropic cannot
 * carry it (an opaque block of another format).
 */
export function encodeBlock(b: ContentBlock): Json | undefined {
  switch (b.type) {
    case "text":
    case "image":
      return encodeMedia(b);
    case "tool_use":
      return { type: "tool_use", id: b.id, name: b.name, input: b.input ?? {} };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: b.toolUseId,
        content: b.content.map(encodeMedia),
        ...(b.isError === undefined ? {} : { is_error: b.isError }),
        ...encodeCacheControl(b.cacheControl),
      };
    case "thinking":
      return { type: "thinking", thinking: b.text, signature: b.signature ?? "" };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: b.data };
    case "opaque":
      return b.format === "anthropic" && isRecord(b.value) ? b.value : undefined;
  }
}
