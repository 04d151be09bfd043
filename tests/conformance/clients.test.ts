/**
 * Issue 36 conformance: the official clients of today, pinned (package.json), each against a fake
 * of every vendor format, through one real Relay: the `openai` SDK's Responses API, the Anthropic
 * SDK with a mid-conversation system entry and adaptive thinking, Google's @google/genai and the
 * Vercel AI SDK's default OpenAI provider. Every (client × vendor × stream) cell plays an answer to
 * instructions (text, finish reason, usage, reasoning) and a round trip through two tools (names,
 * arguments, the results as the vendor received them, the answer). Where the vendor speaks the
 * client's format, it must receive the client's own bytes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { VendorKind } from "../fakes/types.ts";
import { TARGETS, chatCalls, pinFastTier, resetFakes, startWorld, type Target, type World } from "./harness.ts";
import { CLOCK, CLOCK_RESULT, FINAL_ANSWER, SCRIPTED_IDS, WEATHER, WEATHER_RESULT, twoToolReply } from "./scripts.ts";
import { WIRE_VIEWS } from "./wire-views.ts";
import type { ClientDriver } from "./clients/driver.ts";
import { responsesDriver } from "./clients/responses.ts";
import { anthropicDriver } from "./clients/anthropic.ts";
import { genaiDriver } from "./clients/genai.ts";
import { vercelDriver } from "./clients/vercel.ts";

const CLIENTS = { responses: responsesDriver, anthropic: anthropicDriver, genai: genaiDriver, vercel: vercelDriver };
type Client = keyof typeof CLIENTS;

let world: World;
const drivers = {} as Record<Client, ClientDriver>;
beforeAll(async () => {
  world = await startWorld();
  for (const [name, driverFor] of Object.entries(CLIENTS)) drivers[name as Client] = driverFor(world.relay.url);
});
afterAll(() => world.stop());
beforeEach(() => {
  resetFakes(world);
  for (const d of Object.values(drivers)) d.sent.length = 0;
});

const THINKING = "Weighing a short greeting.";
const TEXT = "Bonjour from the vendor.";
/** No cache; output counts the 4 reasoning tokens: every client reports these two numbers as they are. */
const USAGE = { input: 11, output: 9 };

const CELLS = (Object.keys(CLIENTS) as Client[]).flatMap((client) =>
  TARGETS.flatMap((target) => [false, true].map((stream) => ({ client, target, stream, label: `${client} → ${target.name} vendor, ${stream ? "stream" : "non-stream"}` }))),
);

/** Where the vendor got the call: the client's bytes when it speaks the client's format, else its own format's reading. */
function expectDelivered(driver: ClientDriver, target: Target, index: number): any {
  const received = chatCalls(world.fakes[target.fake])[index]!;
  if (driver.passthrough(target)) expect(received.bodyText).toBe(driver.sent[index]!);
  return received.json;
}

describe.each(CELLS)("$label", ({ client, target, stream }) => {
  const driver = () => drivers[client];
  const fake = () => world.fakes[target.fake];
  const translated = () => !driver().passthrough(target);
  beforeAll(() => (driver().model(target) === "svc:fast" ? pinFastTier(world, target.model) : undefined));

  test("an answer to instructions and a prompt: text, reasoning, finish reason, usage", async () => {
    fake().enqueue({ text: TEXT, thinking: { text: THINKING }, usage: { ...USAGE, reasoning: 4 } });
    const turn = await driver().text(driver().model(target), stream);
    expect(turn).toMatchObject({ text: TEXT, thinking: THINKING, finish: driver().finish.stop, usage: USAGE, provider: target.provider });
    expect(chatCalls(fake())).toHaveLength(1);
    const body = expectDelivered(driver(), target, 0);
    if (!translated()) return;
    expect(WIRE_VIEWS[target.fake].system(body)).toEqual(driver().system);
    driver().expectTranslated?.(target, body);
  });

  test("two tool calls, then both results sent back and answered", async () => {
    fake().enqueue(twoToolReply(target.fake), { text: FINAL_ANSWER });
    const { first, second } = await driver().roundTrip(driver().model(target), stream);

    expect(first.finish).toBe(driver().finish.tools);
    expect(first.calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: "get_weather", args: WEATHER },
      { name: "get_time", args: CLOCK },
    ]);
    const ids = first.calls.map((c) => c.id);
    if (driver().carriesIds && SCRIPTED_IDS[target.fake]) expect(ids).toEqual(SCRIPTED_IDS[target.fake]!);
    expect(second).toMatchObject({ text: FINAL_ANSWER, finish: driver().finish.stop, provider: target.provider });

    expect(chatCalls(fake())).toHaveLength(2);
    expectDelivered(driver(), target, 0);
    const received = expectDelivered(driver(), target, 1);
    if (translated()) expectToolTurn(target.fake, received, driver().carriesIds ? ids : undefined);
  });
});

/** The follow-up as the vendor read it in its own format: both calls, then both results, paired (by the client's ids, when it has them). */
function expectToolTurn(kind: VendorKind, received: any, ids: Array<string | undefined> | undefined): void {
  const view = WIRE_VIEWS[kind];
  const calls = view.toolCalls(received);
  expect(calls.map(({ name, args }) => ({ name, args }))).toEqual([
    { name: "get_weather", args: WEATHER },
    { name: "get_time", args: CLOCK },
  ]);
  const results = view.toolResults(received);
  expect(results.map((r) => r.value)).toEqual([WEATHER_RESULT, CLOCK_RESULT]);
  if (view.carriesIds) {
    if (ids) expect(calls.map((c) => c.id)).toEqual(ids);
    expect(results.map((r) => r.id)).toEqual(calls.map((c) => c.id));
    expect(new Set(results.map((r) => r.id)).size).toBe(2);
  } else {
    expect(results.map((r) => r.name)).toEqual(["get_weather", "get_time"]);
  }
}
