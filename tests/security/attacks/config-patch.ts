// /control/config cannot change where keys or data go, or what code runs (issue 34, item 3). Each
// attack is sent with a valid admin token: the route must refuse it on its own, whatever let the
// attacker in. A refusal is a 403 naming the setting, and config.json is left byte for byte.
import { expect } from "bun:test";
import { modelRequest, nested, OPERATOR_KEY, slowestHealthDuring, withPatchWorld, type PatchWorld } from "./lib-config-patch.ts";
import { attack } from "./tally.ts";

async function expectRefused(w: PatchWorld, patch: unknown, setting: string): Promise<void> {
  const before = w.configText();
  const res = await w.patch(patch);
  const body = (await res.json()) as any;
  expect({ status: res.status, code: body.error?.code, parameter: body.error?.details?.parameter }).toEqual({
    status: 403,
    code: "forbidden_setting",
    parameter: setting,
  });
  expect(body.error.message).toContain(setting);
  expect(typeof body.request_id).toBe("string");
  expect(w.configText()).toBe(before);
}

attack("config patch: providers.anthropic.baseUrl moved to an attacker's server to receive the operator's key", () =>
  withPatchWorld(async (w) => {
    await expectRefused(w, { providers: { anthropic: { baseUrl: w.attacker.url } } }, "providers.anthropic.baseUrl");
    const res = await modelRequest(w);
    await res.arrayBuffer();
    // The next model call still goes to the operator's vendor; the attacker's server hears nothing.
    expect(w.attacker.requests.filter((r) => JSON.stringify(r).includes(OPERATOR_KEY))).toEqual([]);
    expect(w.attacker.requests.length).toBe(0);
    expect(w.vendor.requests.length).toBe(1);
  }),
);

attack("config patch: pluginsDirs pointed at the attacker's code for the next start", () =>
  withPatchWorld((w) => expectRefused(w, { pluginsDirs: ["/tmp/attacker-plugins"] }, "pluginsDirs")),
);

attack("config patch: server.host and adminToken set so the next start listens everywhere with the attacker's token", () =>
  withPatchWorld(async (w) => {
    await expectRefused(w, { server: { host: "0.0.0.0" }, adminToken: "attacker-chosen-token-0000" }, "server.host");
    expect(w.relay.relay.config().server.host).toBe("127.0.0.1");
  }),
);

attack("config patch: one deeply nested 60 KB patch does not grow config.json or stall the request thread", () =>
  withPatchWorld(async (w) => {
    const before = w.configText();
    const patch = `{"routing":{"strategies":{"x":${nested(10_000)}}}}`;
    expect(patch.length).toBeGreaterThan(59_000);
    const t0 = performance.now();
    const { result, slowestMs, probes } = await slowestHealthDuring(w.relay.url, w.patch(patch));
    const patchMs = performance.now() - t0;
    console.log(`deep patch: status ${result.status} in ${patchMs.toFixed(0)} ms; slowest of ${probes} concurrent /health probes ${slowestMs.toFixed(0)} ms; config.json ${before.length} -> ${w.configText().length} bytes`);
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect(result.status).toBeLessThan(500);
    expect(((await result.json()) as any).error.code).toBeString();
    expect(w.configText().length).toBe(before.length);
    expect(slowestMs).toBeLessThan(1_000);
    expect(patchMs).toBeLessThan(2_000);
  }),
);
