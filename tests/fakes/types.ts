/** Public types of the fake vendor servers (see vendor.ts). */

export type VendorKind = "openai" | "anthropic" | "gemini" | "ollama";

export type Fault =
  | "reset-mid-body"
  | "stop-mid-stream"
  | "never-end"
  | "never-answer"
  | "malformed-json"
  | "malformed-sse"
  | "huge";

/** A vendor-neutral scripted reply, rendered in the wire format of the endpoint that was hit. */
export interface Reply {
  text?: string;
  thinking?: { text: string; signature?: string };
  /** Several entries = parallel tool calls. */
  toolCalls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
  /**
   * Token counts. `input` EXCLUDES cache reads/writes (Anthropic style, like the IR);
   * `output` INCLUDES `reasoning`. Each renderer converts to its vendor's accounting.
   */
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; reasoning?: number };
  stopReason?: "stop" | "length" | "tool_use" | "refusal";
  /** Model to report (default: the requested one). */
  model?: string;
  /** Non-200 → an error body in the vendor's error shape. */
  status?: number;
  errorType?: string;
  errorMessage?: string;
  headers?: Record<string, string>;
  /** Delay before the response starts. */
  latencyMs?: number;
  /** Delay between stream events. */
  chunkDelayMs?: number;
  /** Split text into this many stream deltas (default 3). */
  textChunks?: number;
  /** Exact bytes: a whole body, or stream payloads framed per vendor (recordings README). */
  raw?: { body?: string; chunks?: string[] };
  fault?: Fault;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  search: string;
  headers: Record<string, string>;
  bodyText: string;
  json: any;
  at: number;
}

export interface FakeVendor {
  /** Base URL, e.g. http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** FIFO, one per incoming chat call. */
  enqueue(...replies: Reply[]): void;
  /** Used when the queue is empty (default: text "Hello from fake <kind>"). */
  setDefault(reply: Reply | ((req: ReceivedRequest) => Reply)): void;
  /** A raw Reply from a recordings file (relative to vendor-recordings/). */
  replayFixture(file: string): Reply;
  /** Chat responses currently in flight (waiting, streaming or hanging). */
  openConnections(): number;
  reset(): void;
  close(): Promise<void>;
}

export interface FakeVendorOptions {
  port?: number;
  /** Keep ReceivedRequest records (default true); benchmarks turn it off to bound memory. */
  recordRequests?: boolean;
}
