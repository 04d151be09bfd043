// Image sources in wire shapes that want either inline bytes or a typed URI.
import type { ImageSource } from "../../ir.ts";

/** A `data:<type>;base64,<data>` URL as an inline source (clients send these as "URLs"). */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1], data: m[2] } : undefined;
}

const EXTENSIONS: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  heic: "image/heic",
  heif: "image/heif",
};

/** Gemini's fileData requires a MIME type the IR does not keep for URLs; infer it from the extension. */
export function mimeTypeOfUrl(url: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  return (ext && EXTENSIONS[ext]) ?? "image/jpeg";
}

/** Normalises a URL source holding a data URL into a base64 source. */
export function inlineDataUrl(source: ImageSource): ImageSource {
  if (source.kind !== "url") return source;
  const inline = parseDataUrl(source.url);
  return inline ? { kind: "base64", ...inline } : source;
}
