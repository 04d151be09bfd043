// Issue 34, "bad names": model names, body keys and header values with control
// or non-Latin characters, prototype names as asset paths, and a 100k-deep tool
// schema. Each must be refused (or served) cleanly: never a 500, never a vendor
// call paid for an answer the client cannot receive, never a run logged as 200
// that the client did not get.
import { afterAll, beforeAll, expect } from "bun:test";
import { attack } from "./tally.ts";
import { chatBody, deepToolBody, rawRequest, startBadNamesRig, type BadNamesRig } from "./lib-badnames.ts";

let rig: BadNamesRig;
beforeAll(async () => void (rig = await startBadNamesRig()));
afterAll(async () => rig?.stop());

const JSON_TYPE = { "content-type": "application/json" };

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${rig.relay.url}${path}`, { method: "POST", headers: { ...JSON_TYPE, ...headers }, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Sends one request; returns its status, the vendor calls it caused and the statuses its runs were logged with. */
async function tried(send: () => Promise<{ status: number; text?: string; body?: string }>) {
  const callsBefore = rig.vendorCalls();
  const runsBefore = (await rig.runs()).length;
  const answer = await send();
  const runs = await rig.runs();
  const logged = runs.slice(0, runs.length - runsBefore).map((r) => r.status);
  return { status: answer.status, text: answer.text ?? answer.body ?? "", vendorCalls: rig.vendorCalls() - callsBefore, logged };
}

attack("bad names: a model name with control characters is a 400 before any vendor call", async () => {
  const names = ["gpt-4o-mini\u0000", "gpt-4o-mini\r\n", "claude-haiku-4-5\r\nx-evil: 1", "\u0007", "openai:gpt-4o\u0000", "anthropic:claude\u001b[31m", "gpt-4o-mini\u007f"];
  const seen: unknown[] = [];
  for (const model of names) {
    for (const path of ["/v1/chat/completions", "/v1/messages"]) {
      const r = await tried(() => post(path, JSON.stringify(chatBody(model))));
      seen.push({ model, path, status: r.status, vendorCalls: r.vendorCalls, logged: r.logged, namesModel: r.text.includes("model") });
    }
  }
  expect(seen).toEqual(seen.map((s: any) => ({ ...s, status: 400, vendorCalls: 0, logged: [], namesModel: true })));
});

attack("bad names: a non-Latin model name is never a 500 and never logged as served unless served", async () => {
  const names = ["модель", "模型", "💥", "openai:модель", "openai:模型-💥", "anthropic:claude-é"];
  const seen: unknown[] = [];
  for (const model of names) {
    for (const path of ["/v1/chat/completions", "/v1/messages"]) {
      const r = await tried(() => post(path, JSON.stringify(chatBody(model))));
      // Served (a passthrough the vendor answered) or refused before any vendor call; what the log says is what the client got.
      const clean = r.status === 200 ? r.logged.every((s) => s === 200) : r.status >= 400 && r.status < 500 && r.vendorCalls === 0 && r.logged.every((s) => s === r.status);
      seen.push({ model, path, status: r.status, clean });
    }
  }
  expect(seen).toEqual(seen.map((s: any) => ({ ...s, status: s.status < 500 ? s.status : "not a 5xx", clean: true })));
  // A served non-Latin name comes back in the x-svc-* headers encoded, not mangled.
  const served = await post("/v1/chat/completions", JSON.stringify(chatBody("openai:模型-💥")));
  expect(served.status).toBe(200);
  expect(decodeURIComponent(served.headers.get("x-svc-requested-model") ?? "")).toBe("openai:模型-💥");
  expect(decodeURIComponent(served.headers.get("x-svc-routed-model") ?? "")).toBe("模型-💥");
});

attack("bad names: a passthrough model named after an Object.prototype member is never a 500", async () => {
  const seen: unknown[] = [];
  for (const model of ["openai:constructor", "openai:__proto__", "openai:hasOwnProperty", "anthropic:toString", "google:valueOf"]) {
    for (const path of ["/v1/chat/completions", "/v1/messages"]) {
      const r = await tried(() => post(path, JSON.stringify(chatBody(model))));
      const clean = r.status === 200 ? r.logged.every((s) => s === 200) : r.status >= 400 && r.status < 500 && r.vendorCalls === 0 && r.logged.every((s) => s === r.status);
      seen.push({ model, path, status: r.status < 500 ? "not a 5xx" : r.status, clean });
    }
  }
  expect(seen).toEqual(seen.map((s: any) => ({ ...s, status: "not a 5xx", clean: true })));
});

attack("bad names: a top-level body key with control characters is a 400 before any vendor call", async () => {
  const seen: unknown[] = [];
  for (const model of ["gpt-4o-mini", "claude-haiku-4-5", "svc:auto"]) {
    for (const key of ["x\u0000y", "evil\r\nx-injected", "\u0007"]) {
      const body = JSON.stringify({ ...chatBody(model), [key]: 1 });
      const r = await tried(() => post("/v1/chat/completions", body));
      seen.push({ model, key, status: r.status, vendorCalls: r.vendorCalls, logged: r.logged, namesKey: r.text.includes("parameter") });
    }
  }
  expect(seen).toEqual(seen.map((s: any) => ({ ...s, status: 400, vendorCalls: 0, logged: [], namesKey: true })));
});

attack("bad names: a non-Latin top-level key never gives a 500; nested keys pass through verbatim", async () => {
  // Crossing formats, an unknown key is dropped and named in x-svc-dropped-params.
  const crossed = await tried(() => post("/v1/chat/completions", JSON.stringify({ ...chatBody("claude-haiku-4-5"), "ключ": 1, "模型": 2 })));
  expect({ status: crossed.status, logged: crossed.logged }).toEqual({ status: 200, logged: [200] });
  // A tool's schema may name its properties as it likes: the vendor receives them untouched.
  const openai = rig.vendors[0]!;
  const props = { "a\u0000b": { type: "string" }, "ключ\r\n": { type: "string" }, "💥": { type: "string" } };
  const tools = [{ type: "function", function: { name: "t", description: "d", parameters: { type: "object", properties: props } } }];
  openai.requests.length = 0;
  const passed = await tried(() => post("/v1/chat/completions", JSON.stringify({ ...chatBody("gpt-4o-mini"), tools })));
  expect(passed.status).toBe(200);
  const sent = openai.requests.find((r) => r.path.endsWith("/chat/completions"));
  expect(sent?.json?.tools?.[0]?.function?.parameters?.properties).toEqual(props);
});

attack("bad names: x-svc-session and x-svc-metadata values with control or non-Latin bytes never give a 500", async () => {
  const body = JSON.stringify(chatBody("gpt-4o-mini"));
  const values = ["sess\u0007ion", "\u001b[2J", "сессия", "会话💥", "caf\u00e9", "a\u007fb"];
  const seen: unknown[] = [];
  for (const v of values) {
    for (const [name, value] of [["x-svc-session", v], ["x-svc-metadata", JSON.stringify({ team: v })], ["x-svc-metadata", v]] as const) {
      const r = await tried(() => rawRequest(rig.relay.url, "POST", "/v1/chat/completions", [["content-type", "application/json"], [name, value]], body));
      // Bun's HTTP parser refuses control bytes in a header with a bare 400 before Relay sees the request.
      const wellFormed = r.status === 200 || /"error"/.test(r.text) || (r.status === 400 && r.text === "");
      seen.push({ name, value, status: r.status < 500 && r.status > 0 ? "ok" : r.status, wellFormed, logged: r.logged.every((s) => s === r.status) });
    }
  }
  expect(seen).toEqual(seen.map((s: any) => ({ ...s, status: "ok", wellFormed: true, logged: true })));
});

attack("bad names: asset paths named after Object.prototype members answer 404", async () => {
  const paths = ["/dashboard/assets/__proto__", "/dashboard/assets/hasOwnProperty", "/dashboard/assets/constructor", "/dashboard/assets/toString",
    "/docs/assets/hasOwnProperty", "/docs/assets/constructor", "/docs/assets/__proto__", "/docs/assets/valueOf"];
  const seen: unknown[] = [];
  for (const path of paths) seen.push({ path, status: (await fetch(`${rig.relay.url}${path}`)).status });
  expect(seen).toEqual(paths.map((path) => ({ path, status: 404 })));
});

attack("bad names: a 100k-deep tool schema is refused cleanly (or served), never a stack overflow or 500", async () => {
  const seen: unknown[] = [];
  for (const model of ["svc:auto", "claude-haiku-4-5", "gemini-2.5-flash", "gpt-4o-mini"]) {
    const r = await tried(() => post("/v1/chat/completions", deepToolBody(model, 100_000)));
    // Refused with no vendor call; a run that got as far as its attempts is logged with the status the client got.
    const clean = r.status === 200 ? r.logged.every((s) => s === 200) : r.status === 400 && r.vendorCalls === 0 && r.logged.every((s) => s === 400);
    seen.push({ model, status: r.status < 500 ? "not a 5xx" : r.status, clean, says: r.status === 400 ? /nested too deeply/.test(r.text) : "served" });
  }
  // The same through /v1/messages, in Anthropic's tool shape.
  const schema = '{"type":"object","properties":{"a":'.repeat(100_000) + '{"type":"string"}' + "}}".repeat(100_000);
  const anthropicBody = `{"model":"svc:auto","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"deep","input_schema":${schema}}]}`;
  const r = await tried(() => post("/v1/messages", anthropicBody));
  seen.push({ model: "svc:auto on /v1/messages", status: r.status < 500 ? "not a 5xx" : r.status, clean: r.status === 200 || (r.status === 400 && r.vendorCalls === 0), says: r.status === 400 ? /nested too deeply/.test(r.text) : "served" });
  expect(seen).toEqual(seen.map((s: any) => ({ ...s, status: "not a 5xx", clean: true, says: s.says === "served" ? "served" : true })));
  expect((await fetch(`${rig.relay.url}/health`)).status).toBe(200);
}, 60_000);
