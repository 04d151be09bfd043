// The proxy's mesh routes over real HTTP (GET /v1/mesh/stats, POST /v1/mesh/sync): admin only; 409
// while the mesh is off or has no URL or key; a cloud that cannot be reached is a 502 whose error
// stats keep, and the outcomes wait for the next sync, which delivers them once; what is sent
// carries no text of the requests. The cloud is a real `relay cloud` listener on its own store.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { closedPort } from "../fakes/vendor.ts";
import { chatBody, post, startWorld, type World } from "../proxy/world.ts";

type Json = Record<string, any>;

const meshConfig = (mesh: Json) => ({ mesh: { intervalSec: 3600, ...mesh } });
const sync = (w: World) => fetch(`${w.url}/v1/mesh/sync`, { method: "POST", headers: w.relay.adminJson });
const stats = async (w: World): Promise<Json> => (await (await fetch(`${w.url}/v1/mesh/stats`, { headers: w.relay.admin })).json()) as Json;

describe("the proxy's mesh routes", () => {
  let cloudWorld: World;
  let cloud: Listener | undefined;
  let cloudPort: number;
  let teamKey: string;
  let teamId: string;
  let off: World;
  let keyless: World;
  let proxy: World;

  beforeAll(async () => {
    cloudWorld = await startWorld();
    const team = await createTeam(cloudWorld.relay.relay.store, "Mesh", "pro");
    teamKey = team.secret;
    teamId = team.team.id;
    // Nothing listens there until the test starts the cloud on it.
    cloudPort = await closedPort();
    const url = `http://127.0.0.1:${cloudPort}`;
    [off, keyless, proxy] = await Promise.all([
      startWorld(),
      startWorld({ config: meshConfig({ enabled: true, url }) }),
      startWorld({ config: meshConfig({ enabled: true, url }), env: { RELAY_MESH_API_KEY: teamKey } }),
    ]);
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await Promise.all([cloudWorld, off, keyless, proxy].map((w) => w?.stop()));
  });

  test("admin only: no token is a 401 on both routes", async () => {
    expect((await fetch(`${proxy.url}/v1/mesh/stats`)).status).toBe(401);
    expect((await fetch(`${proxy.url}/v1/mesh/sync`, { method: "POST", headers: { "content-type": "application/json" } })).status).toBe(401);
  });

  test("the mesh off, or without a key, is a 409 saying what to set", async () => {
    const res = await sync(off);
    expect(res.status).toBe(409);
    expect(((await res.json()) as Json).error.code).toBe("mesh_disabled");
    expect(await stats(off)).toEqual(expect.objectContaining({ enabled: false, url: null, syncs: 0, sent: { batches: 0, outcomes: 0 } }));
    // Off, a run leaves nothing to send.
    expect((await post(off.url, "/v1/chat/completions", chatBody("gpt-4o-mini"))).status).toBe(200);
    expect((await stats(off)).pending).toBe(0);
    const unkeyed = await sync(keyless);
    expect(unkeyed.status).toBe(409);
    expect(((await unkeyed.json()) as Json).error.code).toBe("mesh_not_configured");
  });

  test("an unreachable cloud is a 502 kept in stats; the next sync delivers the waiting outcomes once", async () => {
    const secret = "MESH-ROUTES-CANARY-31f7";
    for (let i = 0; i < 3; i++) {
      const res = await post(proxy.url, "/v1/chat/completions", chatBody("gpt-4o-mini", `hello ${secret}`), { "x-svc-metadata": JSON.stringify({ secret }) });
      expect(res.status).toBe(200);
    }
    expect((await stats(proxy)).pending).toBe(3);

    const failed = await sync(proxy);
    expect(failed.status).toBe(502);
    expect(((await failed.json()) as Json).error.code).toBe("mesh_sync_failed");
    const after = await stats(proxy);
    expect(after).toEqual(expect.objectContaining({ syncs: 1, errors: 1, pending: 3, lastSuccessAt: null, lastError: expect.any(String), sent: { batches: 0, outcomes: 0 } }));

    cloud = listen({ hostname: "127.0.0.1", port: cloudPort, fetch: buildFetch(cloudWorld.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    const ok = await sync(proxy);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual(expect.objectContaining({ syncs: 2, errors: 1, pending: 0, lastError: null, sent: { batches: 1, outcomes: 3 }, lastSuccessAt: expect.any(String) }));
    const status = await cloudWorld.relay.relay.store.mesh.outcomeTotals(0, teamId);
    expect(status).toEqual([expect.objectContaining({ model: "gpt-4o-mini", provider: "openai", requests: 3, errors: 0 })]);
    expect(JSON.stringify(status)).not.toContain(secret);

    // Nothing new waits: the next sync sends nothing and pulls again.
    const again = await sync(proxy);
    expect(await again.json()).toEqual(expect.objectContaining({ sent: { batches: 1, outcomes: 3 }, received: expect.objectContaining({ pulls: 2, models: 1 }) }));
    expect((await cloudWorld.relay.relay.store.mesh.batchTotals(0, teamId)).items).toBe(3);
  });
});
