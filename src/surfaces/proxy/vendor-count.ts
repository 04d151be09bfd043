// A token count from the vendor itself (ProviderPlugin.countTokens): the client's request bytes sent
// as they are to the vendor's counting endpoint, its answer relayed as it is. The count routes of
// Anthropic's and Gemini's formats use it when the model's provider speaks theirs.
import type { ProviderPlugin, WireFormat } from "../../plugin/api.ts";
import type { Relay } from "../../relay.ts";
import { readClientCredential } from "../../core/router/client-credential.ts";
import { providerBaseUrl, providerKey } from "../../core/router/credentials.ts";
import { VIA_HEADER } from "../../core/router/loop-guard.ts";
import { RequestScope } from "../../core/router/scope.ts";
import { UpstreamCall } from "../../core/router/upstream.ts";

/** The key a count in `format` uses: the client's own when meant for this provider, else Relay's. */
export function countKey(relay: Relay, provider: ProviderPlugin, format: WireFormat, headers: Headers): string | undefined {
  const style = provider.clientCredential?.format === format ? provider.clientCredential : undefined;
  return (style && readClientCredential(style, headers)) ?? providerKey(provider, relay.config(), relay.env);
}

/** The vendor's count of `rawBody` for `model` (x-svc-token-count: vendor); rejects when the vendor cannot be reached. */
export async function vendorCount(relay: Relay, request: Request, provider: ProviderPlugin, model: string, apiKey: string, rawBody: string): Promise<Response> {
  const ctx = { model, stream: false, baseUrl: providerBaseUrl(provider, relay.config(), relay.env), apiKey, clientHeaders: request.headers };
  const { url, headers } = provider.countTokens!(ctx);
  headers[VIA_HEADER] = relay.loop.outgoing(request.headers);
  const scope = new RequestScope(request.signal);
  const upstream = new UpstreamCall(scope.attempt(), relay.config().server.upstreamTimeoutMs);
  try {
    const res = await upstream.send({ url, headers, body: rawBody }).catch((e) => Promise.reject(upstream.failed(e)));
    const text = await res.text();
    return new Response(text, { status: res.status, headers: { "content-type": "application/json", "x-svc-token-count": "vendor" } });
  } finally {
    upstream.done();
    scope.close();
  }
}
