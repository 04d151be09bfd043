// How `relay doctor` tells a base URL that speaks the vendor's API from one that
// merely answers HTTP: it asks for the vendor's model list, with the headers
// Relay's own calls carry, and judges the status and the body's shape. A 404
// there is a wrong address (often a missing or extra /v1), not a pass.
import type { WireFormat } from "../../core/ir.ts";
import { describeFailureDetail } from "../../core/limits/failure.ts";
import { readCapped } from "../../core/read-capped.ts";
import type { ProviderPlugin } from "../../plugin/api.ts";
import { stripUrlCredentials } from "../../config/redact.ts";

export interface ProbeVerdict {
  outcome: "pass" | "fail";
  detail: string;
}

interface Probe {
  /** The vendor's model-list path, after the base URL. */
  path: string;
  /** Whether a 2xx body is that vendor's model list. */
  listed(body: Record<string, unknown>): boolean;
}

const PROBES: Record<WireFormat, Probe> = {
  openai: { path: "/models", listed: (b) => Array.isArray(b.data) },
  anthropic: { path: "/v1/models", listed: (b) => Array.isArray(b.data) },
  gemini: { path: "/v1beta/models", listed: (b) => Array.isArray(b.models) },
  ollama: { path: "/api/tags", listed: (b) => Array.isArray(b.models) },
  responses: { path: "/models", listed: (b) => Array.isArray(b.data) },
};

const MAX_BODY = 1024 * 1024;

/** GET the vendor's model list at `baseUrl` with the provider's own headers, and judge the answer. */
export async function probeVendor(p: ProviderPlugin, baseUrl: string, apiKey: string | undefined, timeoutMs: number): Promise<ProbeVerdict> {
  const probe = PROBES[p.format];
  const url = `${baseUrl}${probe.path}`;
  const shown = stripUrlCredentials(url);
  const { headers } = p.request({ model: "models", stream: false, baseUrl, apiKey, clientHeaders: new Headers() });
  delete headers["content-type"];
  let res: Response;
  let body: unknown;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
    body = parseJson(await readCapped(res, MAX_BODY));
  } catch (e) {
    const why = (e as Error).name === "TimeoutError" ? `no answer within ${timeoutMs / 1000}s` : describeFailureDetail(e);
    return { outcome: "fail", detail: `${shown}: ${why}` };
  }
  return judge(p, probe, shown, res, body);
}

function judge(p: ProviderPlugin, probe: Probe, shown: string, res: Response, body: unknown): ProbeVerdict {
  const status = res.status;
  const vendor = p.displayName ?? p.name;
  const object = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (status >= 200 && status < 300) {
    return object && probe.listed(object)
      ? { outcome: "pass", detail: `${shown} answered HTTP ${status} with a model list` }
      : { outcome: "fail", detail: `${shown} answered HTTP ${status}, but not with a ${vendor} model list: is this the vendor's API?` };
  }
  const vendorError = object !== undefined && "error" in object;
  if (status === 401 || status === 403) {
    return vendorError
      ? { outcome: "fail", detail: `${shown} is reachable, but refused the key (HTTP ${status})` }
      : { outcome: "fail", detail: `${shown} answered HTTP ${status} with no ${vendor}-style error: is this the vendor's API?` };
  }
  if (status === 404) return { outcome: "fail", detail: `${shown} answered HTTP 404: this base URL does not serve the ${vendor} API (a missing or extra path segment such as /v1?)` };
  if (status === 429) return { outcome: "pass", detail: `${shown} answered HTTP 429: reachable, rate limited right now` };
  if (status >= 300 && status < 400) return { outcome: "fail", detail: `${shown} answered HTTP ${status} (a redirect): Relay does not follow redirects; use the address it points to` };
  return { outcome: "fail", detail: `${shown} answered HTTP ${status}${vendorError ? " with a vendor error" : ""}` };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
