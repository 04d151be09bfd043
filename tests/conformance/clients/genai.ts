/** Google's @google/genai: generateContent and generateContentStream with function declarations. */
import { GoogleGenAI, type Content, type GenerateContentParameters, type GenerateContentResponse, type Part } from "@google/genai";
import { tappedFetch, type Target } from "../harness.ts";
import { TOOL_RESULTS, TOOL_SCHEMAS } from "../scripts.ts";
import { PROMPT, SYSTEM_PROMPT, TOOL_QUESTION, type ClientDriver, type Turn } from "./driver.ts";

/** The key the SDK sends: meant for Google, so Relay passes it to the Google fake only. */
export const GENAI_CLIENT_KEY = "AIza-client-genai-73c1";

const TOOLS = [
  { functionDeclarations: Object.entries(TOOL_SCHEMAS).map(([name, s]) => ({ name, description: s.description, parametersJsonSchema: s.parameters })) },
];

/** The answer's chunks (one for a whole answer) read as one turn. */
function turnOf(chunks: GenerateContentResponse[]): Turn {
  const parts: Part[] = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
  const last = chunks.at(-1)!;
  const thinking = parts.flatMap((p) => (p.thought && p.text ? [p.text] : [])).join("");
  return {
    text: parts.flatMap((p) => (!p.thought && p.text ? [p.text] : [])).join(""),
    calls: parts.flatMap((p) => (p.functionCall ? [{ id: p.functionCall.id, name: p.functionCall.name!, args: p.functionCall.args }] : [])),
    finish: last.candidates?.[0]?.finishReason,
    usage: { input: last.usageMetadata?.promptTokenCount, output: (last.usageMetadata?.candidatesTokenCount ?? 0) + (last.usageMetadata?.thoughtsTokenCount ?? 0) },
    provider: chunks[0]!.sdkHttpResponse?.headers?.["x-svc-provider"],
    thinking: thinking || undefined,
  };
}

export function genaiDriver(relayUrl: string): ClientDriver {
  const sent: string[] = [];
  const ai = new GoogleGenAI({ apiKey: GENAI_CLIENT_KEY, httpOptions: { baseUrl: relayUrl, fetch: tappedFetch(sent) } });

  async function turn(params: GenerateContentParameters, stream: boolean): Promise<[Content, Turn]> {
    const chunks: GenerateContentResponse[] = [];
    if (stream) for await (const c of await ai.models.generateContentStream(params)) chunks.push(c);
    else chunks.push(await ai.models.generateContent(params));
    const t = turnOf(chunks);
    // The model's turn as the SDK's user sends it back: its parts, whole.
    const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
    return [{ role: "model", parts }, t];
  }

  return {
    carriesIds: false,
    finish: { stop: "STOP", tools: "STOP" },
    system: [SYSTEM_PROMPT],
    sent,
    model: (t: Target) => t.model,
    passthrough: (t: Target) => t.provider === "google",
    text: async (model, stream) => (await turn({ model, contents: PROMPT, config: { systemInstruction: SYSTEM_PROMPT } }, stream))[1],
    async roundTrip(model, stream) {
      const user: Content = { role: "user", parts: [{ text: TOOL_QUESTION }] };
      const [modelTurn, first] = await turn({ model, contents: [user], config: { tools: TOOLS } }, stream);
      const responses: Part[] = first.calls.map((c) => ({
        functionResponse: { ...(c.id ? { id: c.id } : {}), name: c.name, response: TOOL_RESULTS[c.name as keyof typeof TOOL_RESULTS] as Record<string, unknown> },
      }));
      const [, second] = await turn({ model, contents: [user, modelTurn, { role: "user", parts: responses }], config: { tools: TOOLS } }, stream);
      return { first, second };
    },
  };
}
