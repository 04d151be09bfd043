// A client's own credential for a vendor (ProviderPlugin.clientCredential): read from the headers the
// provider declared, on requests in the format it declared, and used only for that provider's calls.
import type { ClientCredentialStyle, ModelInfo, ProviderPlugin, WireFormat } from "../../plugin/api.ts";
import { CoreError } from "../errors.ts";
import { providerKey } from "./credentials.ts";
import type { ProviderKeys } from "./call.ts";
import type { RouterDeps } from "./deps.ts";

export interface ClientCredential {
  /** The provider it is meant for. */
  owner: ProviderPlugin;
  key: string;
}

const BEARER = /^Bearer\s+(.+)$/i;

/** The credential in the first declared header present; `authorization` is read as a Bearer token. */
export function readClientCredential(style: ClientCredentialStyle, h: Headers): string | undefined {
  for (const name of style.headers) {
    const raw = h.get(name);
    if (!raw) continue;
    const key = (name.toLowerCase() === "authorization" ? BEARER.exec(raw)?.[1] : raw)?.trim();
    if (key) return key;
  }
  return undefined;
}

/**
 * The credential a request in `format` brings for the provider that declared it. A request with none,
 * when Relay has no key for that provider either, is refused (no vendor call could answer it) unless
 * the provider declared the credential optional.
 */
export function admitClientCredential(deps: Pick<RouterDeps, "registry" | "config" | "env">, format: WireFormat, h: Headers, own?: ProviderKeys): ClientCredential | undefined {
  const owner = deps.registry.clientCredentialOwner(format);
  if (!owner) return undefined;
  const key = readClientCredential(owner.clientCredential!, h);
  if (key !== undefined) return { owner, key };
  if (!owner.clientCredential!.optional && own?.[owner.name] === undefined && providerKey(owner, deps.config(), deps.env) === undefined)
    throw new CoreError(401, "authentication_error", `Missing ${owner.displayName ?? owner.name} authentication`);
  return undefined;
}

/**
 * The key a call to `provider` uses: the client's own for the provider it is meant for, else the
 * caller's own (`own`: a hosted team's stored key), else Relay's. A plan-bound token (the declared
 * `oauthPrefix`) may not cover a model the router chose instead of the one asked for; Relay's key does (spec §5.5).
 */
export function keyFor(deps: RouterDeps, provider: ProviderPlugin, model: ModelInfo, requested: string, client: ClientCredential | undefined, own?: ProviderKeys): string | undefined {
  const envKey = own?.[provider.name] ?? providerKey(provider, deps.config(), deps.env);
  if (client?.owner !== provider) return envKey;
  const prefix = provider.clientCredential?.oauthPrefix;
  if (prefix !== undefined && envKey && client.key.startsWith(prefix) && deps.catalog.resolve(requested)?.id !== model.id) return envKey;
  return client.key;
}
