// Gemini names the model and the method in the URL, not the body: `/v1beta/models/{model}:{method}`
// (or `/v1/…`). Reading that path is part of the wire format, shared by the routes that serve it
// and by the error style of those paths.

const PREFIXES = ["/v1beta/models/", "/v1/models/"] as const;

export interface GeminiPath {
  /** The model segment as written in the path (still percent-encoded). */
  model: string;
  /** `generateContent`, `streamGenerateContent`, `countTokens`, or a method Relay does not serve. */
  method: string;
}

/** The model and method of a Gemini model-method path; undefined for any other path. */
export function geminiPath(path: string): GeminiPath | undefined {
  const prefix = PREFIXES.find((p) => path.startsWith(p));
  if (!prefix) return undefined;
  // The method follows the last colon: a model may hold one itself (`openai:gpt-4o`).
  const colon = path.lastIndexOf(":");
  if (colon < prefix.length) return undefined;
  return { model: path.slice(prefix.length, colon), method: path.slice(colon + 1) };
}
