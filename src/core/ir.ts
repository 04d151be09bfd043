// The internal representation every wire codec decodes to and encodes from.
// It follows the richest of the vendor formats (Anthropic messages) so that no
// codec has to invent structure another one lost; OpenAI's flat tool messages,
// Gemini's parts and Ollama's NDJSON all map onto it.

export type WireFormat = "openai" | "anthropic" | "gemini" | "ollama" | "responses";

export interface CacheControl {
  type: "ephemeral";
  ttl?: string;
}

export type ImageSource =
  | { kind: "base64"; mediaType: string; data: string }
  | { kind: "url"; url: string };

export interface TextBlock {
  type: "text";
  text: string;
  cacheControl?: CacheControl;
}
export interface ImageBlock {
  type: "image";
  source: ImageSource;
  cacheControl?: CacheControl;
}
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  /** Parsed JSON arguments (an object for every vendor we know). */
  input: unknown;
}
export interface ToolResultBlock {
  type: "tool_result";
  toolUseId: string;
  /** Name of the tool, when the client format carries it (Gemini needs it). */
  name?: string;
  content: Array<TextBlock | ImageBlock>;
  isError?: boolean;
  cacheControl?: CacheControl;
}
export interface ThinkingBlock {
  type: "thinking";
  text: string;
  /** Vendor signature that must be sent back unchanged on the next turn. */
  signature?: string;
}
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}
/** A block we cannot translate but must not silently lose when client and vendor share a format. */
export interface OpaqueBlock {
  type: "opaque";
  format: WireFormat;
  value: unknown;
}

export type ContentBlock =
  | TextBlock
  | ImageBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | OpaqueBlock;

export interface Message {
  /**
   * "system": an instruction given at this point of the conversation (Anthropic's mid-conversation
   * system message); its content is text. Each encoder writes the vendor's nearest form.
   */
  role: "user" | "assistant" | "system";
  content: ContentBlock[];
  /**
   * An entry whose role the IR has no name for (a vendor's newer one), kept whole: a vendor of its
   * format receives it as it was, every other encoder leaves it out and reports it dropped. Its
   * `role` is then "user" and its `content` empty, so that nothing reads it as the user's words.
   */
  verbatim?: OpaqueBlock;
}

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  strict?: boolean;
  cacheControl?: CacheControl;
  /**
   * A Responses `custom` tool, whose input is one free text (its grammar in `format`): elsewhere a
   * function whose one parameter, `input`, is that text; its calls go back to the client as custom calls.
   */
  custom?: { format?: Record<string, unknown> };
}

export type ToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; name: string };

export type ResponseFormat =
  | { type: "text" }
  | { type: "json" }
  | { type: "json_schema"; name?: string; schema: Record<string, unknown>; strict?: boolean };

export interface ReasoningConfig {
  /** OpenAI-style effort; mapped to a budget for vendors that take tokens. */
  effort?: "minimal" | "low" | "medium" | "high";
  /** Anthropic/Gemini-style thinking budget in tokens. */
  budgetTokens?: number;
  /** Explicitly off. */
  disabled?: boolean;
  /** The model decides whether and how much to think (Anthropic's adaptive thinking); `effort` guides it. */
  adaptive?: boolean;
}

export interface ChatRequest {
  model: string;
  system?: TextBlock[];
  messages: Message[];
  stream: boolean;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  responseFormat?: ResponseFormat;
  reasoning?: ReasoningConfig;
  /** OpenAI `stream_options.include_usage`; other formats always report usage. */
  includeUsage?: boolean;
  /** End-user id for abuse tracking (OpenAI `user`, Anthropic `metadata.user_id`). */
  user?: string;
  /**
   * Responses API conversation state: the stored response this turn continues. Codecs only carry
   * it; the surface resolves it (passed on to a vendor that issued it, else the history rebuilt).
   */
  previousResponseId?: string;
  /** Responses API `store`: whether the answer may be kept for a later turn (the API's default is true). */
  store?: boolean;
  /**
   * Parameters of the client format that have no IR field, keyed by their wire name.
   * Forwarded only when the vendor speaks the same format; otherwise reported as dropped.
   */
  extra?: Record<string, unknown>;
}

export type StopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "refusal"
  | "pause_turn"
  | "content_filter"
  | "error";

export interface Usage {
  /** Input tokens that were neither read from nor written to the cache. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Part of outputTokens spent on reasoning, when the vendor says. */
  reasoningTokens?: number;
}

export const emptyUsage = (): Usage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

/** Total prompt tokens as OpenAI and Gemini count them (cached tokens included). */
export const promptTokens = (u: Usage): number =>
  u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;

export interface ChatResponse {
  id: string;
  model: string;
  content: ContentBlock[];
  stopReason: StopReason;
  stopSequence?: string;
  usage: Usage;
  created?: number;
}

export type ErrorKind =
  | "invalid_request"
  | "authentication"
  | "permission"
  | "not_found"
  | "request_too_large"
  | "rate_limit"
  | "overloaded"
  | "timeout"
  | "api_error";

/** A vendor or gateway error, independent of any wire shape. */
export interface IRError {
  kind: ErrorKind;
  /** HTTP status to answer the client with. */
  status: number;
  message: string;
  /** Vendor's own error type/code, kept for the client's benefit. */
  vendorType?: string;
  /** Seconds, from the vendor's Retry-After or an equivalent body field. */
  retryAfter?: number;
}

// ---- streaming ----
// Stream events are block-structured like Anthropic's: every content block is
// opened, receives deltas and is closed; `index` is the block's position in the
// response content, so parallel tool calls never share an index.

export type BlockStart =
  | { type: "text" }
  | { type: "tool_use"; id: string; name: string }
  | { type: "thinking" }
  | { type: "redacted_thinking"; data: string };

export type StreamEvent =
  | { type: "start"; id: string; model: string; usage?: Partial<Usage> }
  | { type: "block_start"; index: number; block: BlockStart }
  | { type: "text_delta"; index: number; text: string }
  | { type: "tool_args_delta"; index: number; json: string }
  | { type: "thinking_delta"; index: number; text: string }
  | { type: "signature_delta"; index: number; signature: string }
  | { type: "block_stop"; index: number }
  | { type: "finish"; stopReason: StopReason; stopSequence?: string; usage: Usage }
  | { type: "error"; error: IRError }
  | { type: "ping" };
