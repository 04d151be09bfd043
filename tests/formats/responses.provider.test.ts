// A provider that speaks the Responses API besides its main format: the declaration through the
// public plugin API, and the URL a call gets by its format.
import { expect, test } from "bun:test";
import { definePlugin } from "../../src/plugin/api.ts";
import openai from "../../src/providers/openai.ts";

const ctx = { model: "gpt-5", stream: false, baseUrl: "https://api.openai.test/v1", apiKey: "sk-x", clientHeaders: new Headers() };

test("OpenAI declares the Responses API and takes each call at its format's URL", () => {
  expect(openai.format).toBe("openai");
  expect(openai.alsoSpeaks).toEqual(["responses"]);
  expect(openai.request({ ...ctx, format: "responses" }).url).toBe("https://api.openai.test/v1/responses");
  expect(openai.request({ ...ctx, format: "openai" }).url).toBe("https://api.openai.test/v1/chat/completions");
  expect(openai.request(ctx).url).toBe("https://api.openai.test/v1/chat/completions");
});

test("a plugin's further formats must be known ones", () => {
  const base = { kind: "provider" as const, name: "p", format: "openai" as const, baseUrl: "http://x", request: () => ({ url: "http://x", headers: {} }) };
  expect(definePlugin({ ...base, alsoSpeaks: ["responses"] }).alsoSpeaks).toEqual(["responses"]);
  expect(() => definePlugin({ ...base, alsoSpeaks: ["soap" as never] })).toThrow('provider "p": alsoSpeaks must list known formats, got ["soap"]');
  expect(() => definePlugin({ ...base, alsoSpeaks: "responses" as never })).toThrow("alsoSpeaks must list known formats");
});
