// `relay doctor`'s judgement of a base URL: it must speak the vendor's API (its
// model list answers), not merely answer HTTP. Real fake vendors and a small
// server scripted per case.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { probeVendor } from "../../../src/cli/commands/vendor-probe.ts";
import { builtinProviders } from "../../../src/providers/index.ts";
import { startFakeVendor, type FakeVendor } from "../../fakes/vendor.ts";

const provider = (name: string) => builtinProviders.find((p) => p.name === name)!;
const fakes: FakeVendor[] = [];
let scripted: ReturnType<typeof Bun.serve>;
let answer: () => Response = () => new Response("{}");
const seen: string[] = [];

beforeAll(async () => {
  for (const kind of ["openai", "anthropic", "gemini", "ollama"] as const) fakes.push(await startFakeVendor(kind));
  scripted = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      seen.push(new URL(req.url).pathname);
      return answer();
    },
  });
});
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  await scripted.stop(true);
});

const base = () => `http://127.0.0.1:${scripted.port}`;
const jsonAnswer = (status: number, body: unknown) => () => Response.json(body, { status });

describe("probeVendor", () => {
  test("each vendor's model list passes, asked with the provider's own headers", async () => {
    const [openai, anthropic, gemini, ollama] = fakes;
    const cases = [
      [provider("openai"), `${openai!.url}/v1`, openai!],
      [provider("anthropic"), anthropic!.url, anthropic!],
      [provider("google"), gemini!.url, gemini!],
      [provider("ollama"), ollama!.url, ollama!],
    ] as const;
    for (const [p, url, fake] of cases) {
      const verdict = await probeVendor(p, url, "sk-probe", 5_000);
      expect({ p: p.name, ...verdict }).toMatchObject({ p: p.name, outcome: "pass", detail: expect.stringContaining("answered HTTP 200 with a model list") });
      expect(fake.requests.at(-1)!.method).toBe("GET");
    }
    expect(fakes[1]!.requests.at(-1)!.headers["x-api-key"]).toBe("sk-probe");
    expect(fakes[1]!.requests.at(-1)!.path).toBe("/v1/models");
    expect(fakes[2]!.requests.at(-1)!.headers["x-goog-api-key"]).toBe("sk-probe");
  });

  test("a 404 on the vendor's path is a failure that says why", async () => {
    answer = () => new Response("Not Found", { status: 404 });
    const verdict = await probeVendor(provider("openai"), base(), "sk", 5_000);
    expect(verdict.outcome).toBe("fail");
    expect(verdict.detail).toContain("HTTP 404: this base URL does not serve the OpenAI API");
    expect(seen.at(-1)).toBe("/models");
  });

  test("401 with a vendor error: reachable, the key refused; 401 without one: not the vendor", async () => {
    answer = jsonAnswer(401, { error: { type: "invalid_request_error", message: "Incorrect API key provided" } });
    expect(await probeVendor(provider("openai"), base(), "sk", 5_000)).toEqual({ outcome: "fail", detail: `${base()}/models is reachable, but refused the key (HTTP 401)` });
    answer = () => new Response("<html>login</html>", { status: 401 });
    expect((await probeVendor(provider("openai"), base(), "sk", 5_000)).detail).toContain("with no OpenAI-style error");
  });

  test("a 200 that is not a model list, a redirect and a 5xx fail; a 429 passes as reachable", async () => {
    answer = () => new Response("<html>hello</html>", { status: 200 });
    expect((await probeVendor(provider("anthropic"), base(), "sk", 5_000)).outcome).toBe("fail");
    answer = () => new Response(null, { status: 301, headers: { location: "https://elsewhere.example/" } });
    expect((await probeVendor(provider("anthropic"), base(), "sk", 5_000)).detail).toContain("a redirect");
    answer = jsonAnswer(503, { error: { message: "overloaded" } });
    expect(await probeVendor(provider("anthropic"), base(), "sk", 5_000)).toMatchObject({ outcome: "fail", detail: expect.stringContaining("HTTP 503 with a vendor error") });
    answer = jsonAnswer(429, { error: { message: "slow down" } });
    expect((await probeVendor(provider("anthropic"), base(), "sk", 5_000)).outcome).toBe("pass");
  });

  test("a refused connection fails with the address (without its password) and the cause", async () => {
    const url = `http://user:hunter2@127.0.0.1:1`;
    const verdict = await probeVendor(provider("openai"), url, "sk", 5_000);
    expect(verdict.outcome).toBe("fail");
    expect(verdict.detail).toContain("127.0.0.1:1/models");
    expect(verdict.detail).not.toContain("hunter2");
  });
});
