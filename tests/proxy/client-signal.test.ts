// A request listens to its client's signal (a client that leaves aborts the vendor call) only
// while its run is open: once the run is settled the listener is removed, because listeners left
// on finished requests' signals made every young collection slower (src/core/router/scope.ts).
// The app's handler is called directly so that the test holds the client's signal itself.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RequestScope } from "../../src/core/router/scope.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { chatBody, eventually, runs, startWorld, type World } from "./world.ts";

let w: World;
let handle: (request: Request) => Promise<Response>;
beforeAll(async () => {
  w = await startWorld();
  // Given the listener's address, as the listener itself would: the browser guard checks the Host's port against it.
  const fetch = buildFetch(w.relay.relay, "start");
  handle = (request) => fetch(request, w.relay.listener);
});
afterAll(() => w.stop());

/** A real client signal that keeps count of the abort listeners on it. */
function countedSignal() {
  const ac = new AbortController();
  const signal = ac.signal;
  const live = new Set<unknown>();
  let added = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (type: string, listener: any, options?: any) => {
    if (type === "abort") (live.add(listener), added++);
    add(type, listener, options);
  };
  signal.removeEventListener = (type: string, listener: any, options?: any) => {
    if (type === "abort") live.delete(listener);
    remove(type, listener, options);
  };
  return { ac, signal, live: () => live.size, added: () => added };
}

const chat = (body: unknown, signal: AbortSignal) =>
  handle(new Request(`${w.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal }));

test("an answered request leaves no listener on its client's signal", async () => {
  const client = countedSignal();
  const res = await chat(chatBody("gpt-4o-mini"), client.signal);
  expect(res.status).toBe(200);
  expect(((await res.json()) as any).choices[0].message.content).toContain("Hello from fake openai");
  expect(client.added()).toBe(1);
  expect(client.live()).toBe(0);
});

test("a relayed stream keeps the listener until the stream ends, then removes it", async () => {
  w.openai.enqueue({ text: "word ".repeat(20), textChunks: 20, chunkDelayMs: 5 });
  const client = countedSignal();
  const res = await chat(chatBody("gpt-4o-mini", "talk", { stream: true }), client.signal);
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toContain("chat.completion.chunk");
  expect(client.live()).toBe(1);
  while (!(await reader.read()).done);
  await eventually(() => (client.live() === 0 ? true : undefined), "the listener to be removed");
  expect(client.added()).toBe(1);
});

test("while the run is open, the client leaving still aborts the vendor call", async () => {
  w.openai.enqueue({ text: "word ".repeat(200), textChunks: 200, chunkDelayMs: 20 });
  const client = countedSignal();
  const res = await chat(chatBody("gpt-4o-mini", "talk", { stream: true }), client.signal);
  const reader = res.body!.getReader();
  await reader.read();
  expect(w.openai.openConnections()).toBe(1);
  client.ac.abort();
  await eventually(() => (w.openai.openConnections() === 0 ? true : undefined), "the vendor call to end");
  const id = res.headers.get("x-svc-request-id");
  const run = await eventually(async () => (await runs(w)).find((r) => r.id === id), "the run to be logged");
  expect(run.outcome).toBe("cancelled");
});

test("an open scope aborts its vendor call when its client leaves; a closed one has let go of both", () => {
  const open = new AbortController();
  const openScope = new RequestScope(open.signal);
  const openCall = openScope.attempt();
  open.abort(new Error("client left"));
  expect(openScope.aborted).toBe(true);
  expect(openCall.signal.aborted).toBe(true);

  const closed = new AbortController();
  const closedScope = new RequestScope(closed.signal);
  const closedCall = closedScope.attempt();
  closedScope.close();
  closed.abort(new Error("client left after the answer"));
  expect(closedScope.aborted).toBe(false);
  expect(closedCall.signal.aborted).toBe(false);
  // Nor does an abort of the scope itself (an administrator's kill) reach the finished call.
  closedScope.abort(new Error("session killed"));
  expect(closedCall.signal.aborted).toBe(false);
});
