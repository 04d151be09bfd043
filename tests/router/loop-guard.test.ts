// The loop guard: marks, their detection, the 508's message, and which base
// URLs land on Relay's own listener. Base URLs are named RELAY_<PROVIDER>_BASE_URL
// first, then by the vendor's own variable.
import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load.ts";
import { baseUrlEnvNames, baseUrlSource, providerBaseUrl } from "../../src/core/router/credentials.ts";
import { LoopGuard, VIA_HEADER, reachesListener, selfPointing } from "../../src/core/router/loop-guard.ts";
import { builtinProviders } from "../../src/providers/index.ts";

const config = (file: object = {}) => loadConfig({ file: "test-config.json", fileText: JSON.stringify(file), env: {} }).config;
const provider = (name: string) => builtinProviders.find((p) => p.name === name)!;
const via = (value?: string) => new Headers(value === undefined ? {} : { [VIA_HEADER]: value });

describe("marks", () => {
  const guard = new LoopGuard("abc123");

  test("a vendor call carries the marks the request came with, then this Relay's", () => {
    expect(guard.outgoing(via())).toBe("relay-abc123");
    expect(guard.outgoing(via("relay-other"))).toBe("relay-other, relay-abc123");
  });

  test("only this Relay's own mark, as a whole entry, means a loop", () => {
    expect(guard.looped(via())).toBe(false);
    expect(guard.looped(via("relay-other"))).toBe(false);
    expect(guard.looped(via("relay-abc1234"))).toBe(false);
    expect(guard.looped(via("xrelay-abc123"))).toBe(false);
    expect(guard.looped(via("relay-abc123"))).toBe(true);
    expect(guard.looped(via("relay-other, relay-abc123"))).toBe(true);
    expect(guard.looped(via("relay-abc123,relay-other"))).toBe(true);
  });

  test("a list longer than any deliberate chain is refused too", () => {
    expect(guard.looped(via(Array.from({ length: 100 }, (_, i) => `relay-${i.toString(16).padStart(24, "0")}`).join(", ")))).toBe(true);
  });

  test("the 508 names the variable that sends this route's format to the address the request came to", () => {
    const env = { ANTHROPIC_BASE_URL: "http://127.0.0.1:4100", OPENAI_BASE_URL: "http://127.0.0.1:4100/v1" };
    const anthropic = guard.refuse("http://127.0.0.1:4100/v1/messages", "anthropic", builtinProviders, config(), env);
    expect(anthropic.status).toBe(508);
    expect(anthropic.code).toBe("loop_detected");
    expect(anthropic.message).toBe(
      "ANTHROPIC_BASE_URL points back at this Relay (http://127.0.0.1:4100); unset it in Relay's environment or set RELAY_ANTHROPIC_BASE_URL to the vendor's address",
    );
    expect(guard.refuse("http://127.0.0.1:4100/v1/chat/completions", "openai", builtinProviders, config(), env).message).toStartWith("OPENAI_BASE_URL points back");
    const relayNamed = guard.refuse("http://localhost:4100/v1/messages", "anthropic", builtinProviders, config(), { RELAY_ANTHROPIC_BASE_URL: "http://localhost:4100" });
    expect(relayNamed.message).toEndWith("set RELAY_ANTHROPIC_BASE_URL to the vendor's address");
    const fromFile = guard.refuse("http://localhost:4100/v1/messages", "anthropic", builtinProviders, config({ providers: { anthropic: { baseUrl: "http://localhost:4100" } } }), {});
    expect(fromFile.message).toStartWith("providers.anthropic.baseUrl points back at this Relay");
    // Reached through a name no setting uses: still refused, with the places to look.
    expect(guard.refuse("http://relay.internal:4100/v1/messages", "anthropic", builtinProviders, config(), env).message).toContain("RELAY_<PROVIDER>_BASE_URL");
  });

  test("the refusal is marked, so the Relay whose call it answers relays it as its own", () => {
    const refusal = guard.refuse("http://127.0.0.1:4100/v1/messages", "anthropic", builtinProviders, config(), {});
    expect(guard.cameBack(new Headers(refusal.extra.headers))).toBe(true);
    expect(new LoopGuard("other").cameBack(new Headers(refusal.extra.headers))).toBe(false);
    expect(guard.cameBack(new Headers())).toBe(false);
  });
});

describe("base URLs", () => {
  test("RELAY_<PROVIDER>_BASE_URL comes first, the vendor's own variable second, then the config file", () => {
    const anthropic = provider("anthropic");
    expect(baseUrlEnvNames(anthropic)).toEqual(["RELAY_ANTHROPIC_BASE_URL", "ANTHROPIC_BASE_URL"]);
    expect(baseUrlEnvNames(provider("google"))).toEqual(["RELAY_GOOGLE_BASE_URL", "GEMINI_BASE_URL", "GOOGLE_BASE_URL"]);
    const both = { RELAY_ANTHROPIC_BASE_URL: "https://vendor.example/", ANTHROPIC_BASE_URL: "http://127.0.0.1:4100" };
    expect(baseUrlSource(anthropic, config(), both)).toEqual({ url: "https://vendor.example", from: "RELAY_ANTHROPIC_BASE_URL" });
    expect(baseUrlSource(anthropic, config(), { ANTHROPIC_BASE_URL: "http://127.0.0.1:4100" })).toEqual({ url: "http://127.0.0.1:4100", from: "ANTHROPIC_BASE_URL" });
    const file = config({ providers: { anthropic: { baseUrl: "https://proxy.example" } } });
    expect(baseUrlSource(anthropic, file, {})).toEqual({ url: "https://proxy.example", from: "providers.anthropic.baseUrl" });
    expect(baseUrlSource(anthropic, config(), {})).toEqual({ url: "https://api.anthropic.com", from: "default" });
    expect(providerBaseUrl(provider("ollama"), config(), { RELAY_OLLAMA_BASE_URL: "gpu-box:11434" })).toBe("http://gpu-box:11434");
  });

  test("a URL reaches the listener on the same port at the same host, loopback for loopback, or an own address for a wildcard", () => {
    const local = { host: "127.0.0.1", port: 4100 };
    expect(reachesListener("http://127.0.0.1:4100", local)).toBe(true);
    expect(reachesListener("http://localhost:4100/v1", local)).toBe(true);
    expect(reachesListener("http://[::1]:4100", local)).toBe(true);
    expect(reachesListener("http://127.0.0.2:4100", local)).toBe(true);
    expect(reachesListener("http://127.0.0.1:4101", local)).toBe(false);
    expect(reachesListener("http://127.0.0.1.attacker.example:4100", local)).toBe(false);
    expect(reachesListener("https://api.anthropic.com", local)).toBe(false);
    expect(reachesListener("http://localhost", { host: "localhost", port: 80 })).toBe(true);
    expect(reachesListener("not a url", local)).toBe(false);
    const wildcard = { host: "0.0.0.0", port: 4100 };
    expect(reachesListener("http://localhost:4100", wildcard)).toBe(true);
    expect(reachesListener("http://10.255.255.254:4100", wildcard)).toBe(false);
  });

  test("selfPointing lists each configured base URL that is Relay's own address; defaults never count", () => {
    const env = { ANTHROPIC_BASE_URL: "http://localhost:4100", OPENAI_BASE_URL: "https://api.openai.com/v1", GROQ_BASE_URL: "http://127.0.0.1:4100/openai/v1" };
    const found = selfPointing(builtinProviders, config(), env, { host: "127.0.0.1", port: 4100 });
    expect(found.map((f) => f.provider)).toEqual(["anthropic", "groq"]);
    expect(found[1]!.message).toStartWith("GROQ_BASE_URL points back at this Relay (http://127.0.0.1:4100)");
    expect(selfPointing(builtinProviders, config(), {}, { host: "127.0.0.1", port: 443 })).toEqual([]);
  });
});
