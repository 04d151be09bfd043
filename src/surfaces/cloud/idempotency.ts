// Idempotency-Key on hosted POSTs (issue 37 item 2; the IETF httpapi idempotency-key draft): the
// first successful answer to a request with a key is stored per team and key, and a retry with the
// same key and the same method, path and body gets that answer again (with Idempotent-Replayed:
// true) instead of running twice. The same key with another request is a 422
// (idempotency_key_reused); while the first request still runs, a retry is a 409
// (idempotency_key_in_use). A failed request frees its key, so it can be retried.
import { CoreError } from "../../core/errors.ts";
import type { Relay } from "../../relay.ts";
import { invalid } from "../../core/registry/fields.ts";
import { sha256Hex } from "../../runtime/hash.ts";

const KEY_MAX = 255;

export async function idempotent(relay: Relay, team: string, request: Request, body: string, run: () => Promise<Response>): Promise<Response> {
  const key = request.headers.get("idempotency-key");
  if (key === null) return run();
  if (key === "" || key.length > KEY_MAX) throw invalid("Idempotency-Key", key, "string", `must be 1 to ${KEY_MAX} characters`);
  const store = relay.store.idempotency;
  const fingerprint = sha256Hex(`${request.method} ${new URL(request.url).pathname}\n${body}`);
  const claim = await store.claim(team, key, fingerprint, new Date().toISOString());
  if (claim.kind === "seen") {
    if (claim.fingerprint !== fingerprint) throw new CoreError(422, "idempotency_key_reused", "this Idempotency-Key was sent with a different request; use a new key for a new request");
    if (!claim.answer) throw new CoreError(409, "idempotency_key_in_use", "a request with this Idempotency-Key is still running; retry shortly", { retryAfter: 1 });
    return new Response(claim.answer.body, { status: claim.answer.status, headers: { "content-type": "application/json", "idempotent-replayed": "true" } });
  }
  let res: Response;
  try {
    res = await run();
  } catch (error) {
    await store.release(team, key);
    throw error;
  }
  if (res.ok) await store.complete(team, key, { status: res.status, body: await res.clone().text() });
  else await store.release(team, key);
  return res;
}
