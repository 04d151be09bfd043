import type { WireFormat } from "../ir.ts";
import { anthropicCodec } from "./anthropic/index.ts";
import { geminiCodec } from "./gemini/index.ts";
import { ollamaCodec } from "./ollama/index.ts";
import { openaiCodec } from "./openai/index.ts";
import { responsesCodec } from "./responses/index.ts";
import type { Codec } from "./types.ts";

const CODECS: Record<WireFormat, Codec> = {
  openai: openaiCodec,
  anthropic: anthropicCodec,
  gemini: geminiCodec,
  ollama: ollamaCodec,
  responses: responsesCodec,
};

export const codecFor = (format: WireFormat): Codec => CODECS[format];
