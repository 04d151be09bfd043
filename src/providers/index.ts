import type { ProviderPlugin } from "../plugin/api.ts";
import anthropic from "./anthropic.ts";
import google from "./google.ts";
import ollama from "./ollama.ts";
import openai from "./openai.ts";
import { presets } from "./openai-compatible.ts";

export const builtinProviders: ProviderPlugin[] = [anthropic, openai, google, ollama, ...presets];
