// The caller's team's API keys over the hosted API (spec §5.1, issue 37 item 1): listed with any key
// (never a secret nor a hash), created, rotated and revoked with a standard key. A key made here is
// the same as one made by `relay cloud keys create`; its secret is in the creating answer only.
import { Elysia } from "elysia";
import { CoreError } from "../../core/errors.ts";
import { createKey, keyTypeOf, publicKey, rotateKey, type MintedKey } from "../../core/tenancy/api-keys.ts";
import type { Relay } from "../../relay.ts";
import type { ApiKey } from "../../store/keys/types.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-keys.ts";
import { CORE, READ, guarded, type HostedAuth, type HostedHandler } from "./auth.ts";
import { hostedJson } from "./errors.ts";

const BODY_LIMIT = 64 * 1024;
const NAME_MAX = 200;

const minted = ({ key, secret }: MintedKey) => json({ key: publicKey(key), api_key: secret }, 201);

async function newKeyFields(request: Request): Promise<{ type: ApiKey["type"]; name: string }> {
  const body = await hostedJson(request, BODY_LIMIT);
  const type = body.type === undefined ? "standard" : keyTypeOf(body.type);
  if (!type) throw new CoreError(400, "invalid_request", "type must be standard or read_only", { details: { parameter: "type", provided: body.type, expected: "string" } });
  const name = body.name ?? "";
  if (typeof name !== "string" || name.length > NAME_MAX) {
    throw new CoreError(400, "invalid_request", `name must be a string of at most ${NAME_MAX} characters`, { details: { parameter: "name", provided: name, expected: "string" } });
  }
  return { type, name };
}

/** The caller's team's key `id`; another team's keys are as unknown as missing ones. */
async function ownKey(relay: Relay, auth: HostedAuth, id: string): Promise<ApiKey> {
  const key = await relay.store.apiKeys.getKey(id);
  if (!key || key.team_id !== auth.team.id) throw new CoreError(404, "not_found", `no key ${id} in this team`);
  return key;
}

/** The key routes' handlers, served here with an API key and by the team console with its session. */
export function keyHandlers(relay: Relay): Record<"list" | "create" | "rotate" | "revoke", HostedHandler> {
  const keys = relay.store.apiKeys;
  return {
    list: async (_, auth) => json({ keys: (await keys.listKeys(auth.team.id)).map(publicKey) }),
    create: async (request, auth) => {
      const { type, name } = await newKeyFields(request);
      return minted(await createKey(keys, auth.team.id, type, name));
    },
    rotate: async (_, auth, params) => minted(await rotateKey(keys, await ownKey(relay, auth, params.id!))),
    revoke: async (_, auth, params) => {
      const key = await ownKey(relay, auth, params.id!);
      await keys.revokeKey(key.id, new Date().toISOString());
      return json({ key: publicKey((await keys.getKey(key.id)) ?? key) });
    },
  };
}

export function keysRoutes(relay: Relay) {
  const h = keyHandlers(relay);
  return new Elysia({ name: "cloud-keys" })
    .get("/api/keys", guarded(relay, READ, h.list), { detail: docs.listKeys })
    .post("/api/keys", guarded(relay, CORE, h.create), { parse: "none", detail: docs.createKey })
    .post("/api/keys/:id/rotate", guarded(relay, CORE, h.rotate), { parse: "none", detail: docs.rotateKey })
    .delete("/api/keys/:id", guarded(relay, CORE, h.revoke), { parse: "none", detail: docs.revokeKey });
}
