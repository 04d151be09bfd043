// Which wire format a relay's payload is in (README "Relay calls"). A payload is the target model's
// own request body, so the model's provider decides: its `format`, or one of its `alsoSpeaks` when
// the payload has that format's shape: `input` without `messages` is the Responses API, `contents`
// is Gemini's generateContent. A virtual model (or a name the catalog does not know, which route()
// then refuses) has no vendor of its own; its payload is read by shape alone, OpenAI chat otherwise.
import type { CallFormat } from "../../core/router/call.ts";
import type { WireFormat } from "../../plugin/api.ts";
import type { Relay } from "../../relay.ts";

const EVERY: readonly WireFormat[] = ["openai", "responses", "gemini"];

export function payloadFormat(relay: Relay, to: string, payload: Record<string, unknown>): CallFormat {
  const model = relay.catalog.resolve(to);
  const provider = model && relay.registry.providers.get(model.provider);
  if (!provider) return byShape(payload, EVERY, "openai");
  const own = provider.format === "ollama" ? "openai" : provider.format;
  return byShape(payload, provider.alsoSpeaks ? [own, ...provider.alsoSpeaks] : [own], own);
}

function byShape(payload: Record<string, unknown>, speaks: readonly WireFormat[], otherwise: CallFormat): CallFormat {
  if (payload.input !== undefined && payload.messages === undefined && speaks.includes("responses")) return "responses";
  if (payload.contents !== undefined && speaks.includes("gemini")) return "gemini";
  return otherwise;
}
