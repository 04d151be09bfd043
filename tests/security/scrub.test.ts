// The scrubber (src/core/secrets): known secrets by exact value, vendors' key
// shapes whole or partly masked, bearer tokens, `?key=` query values and URL
// userinfo are replaced; ordinary text (model names, "sk-learn", prose) is not.
import { describe, expect, test } from "bun:test";
import { rememberSecrets, scrubSecrets } from "../../src/core/secrets/known.ts";
import { MIN_SECRET_LENGTH, REDACTED, SecretValues, scrubShapes, scrubText } from "../../src/core/secrets/scrub.ts";

const R = REDACTED;

describe("exact values", () => {
  test("every occurrence of every value is replaced, longest first, and its URL-encoded form too", () => {
    const values = new SecretValues(["plainsecret-123", "plainsecret-123-and-more", "p@ss word+/="]);
    expect(values.scrub("a plainsecret-123-and-more b plainsecret-123 c plainsecret-123")).toBe(`a ${R} b ${R} c ${R}`);
    expect(values.scrub(`x=${encodeURIComponent("p@ss word+/=")}&y=p@ss word+/=`)).toBe(`x=${R}&y=${R}`);
  });

  test("values with regular-expression characters are matched literally", () => {
    const values = new SecretValues(["a.b*c+d?e(f)[g]{h}|i^j$k\\l"]);
    expect(values.scrub("before a.b*c+d?e(f)[g]{h}|i^j$k\\l after")).toBe(`before ${R} after`);
    expect(values.scrub("aXbbbcdde(f)g")).toBe("aXbbbcdde(f)g");
  });

  test(`values shorter than ${MIN_SECRET_LENGTH} characters are not scrubbed (a dummy key such as "ollama")`, () => {
    const values = new SecretValues(["ollama", "none"]);
    expect(values.size).toBe(0);
    expect(values.scrub("provider ollama failed: none")).toBe("provider ollama failed: none");
  });

  test("a request's own credential is scrubbed with the known values", () => {
    const values = new SecretValues(["operator-key-0001"]);
    expect(scrubText("invalid x-api-key: client-cred-7781 (operator-key-0001)", values, "client-cred-7781")).toBe(`invalid x-api-key: ${R} (${R})`);
    expect(scrubText("unchanged text", values, undefined)).toBe("unchanged text");
  });
});

describe("key shapes", () => {
  const cases: Array<[string, string]> = [
    ["Incorrect API key provided: sk-proj-abR7tQ2mX9vL4nK8pW3zY6hJ1cF5dG0sBwxyz.", `Incorrect API key provided: ${R}.`],
    ["Incorrect API key provided: sk-proj-ab***yz.", `Incorrect API key provided: ${R}.`],
    ["Incorrect API key provided: sk-...wxyz.", `Incorrect API key provided: ${R}.`],
    [`Incorrect API key provided: sk-proj-ab${"*".repeat(140)}wxyz. You can find`, `Incorrect API key provided: ${R}. You can find`],
    ["key sk-abc1…wxyz refused", `key ${R} refused`],
    ["invalid x-api-key sk-ant-api03-Zx9_aB3-cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5", `invalid x-api-key ${R}`],
    ["oauth sk-ant-oat01-AbCdEf0123456789AbCdEf0123 expired", `oauth ${R} expired`],
    ["API key not valid: AIzaSyR3layT3stGem1niK3y0123456789abcd", `API key not valid: ${R}`],
    ["API key not valid: AIza****abcd", `API key not valid: ${R}`],
    ["header was Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", `header was Authorization: Bearer ${R}`],
    ["bearer tok_1234567890abcdef rejected", `bearer ${R} rejected`],
    ["POST /v1beta/models/x:generateContent?key=qskey-Lw73Hx20Nc91Vb&alt=sse", `POST /v1beta/models/x:generateContent?key=${R}&alt=sse`],
    ["GET https://h.example/a?alt=sse&api_key=abc&x=1", `GET https://h.example/a?alt=sse&api_key=${R}&x=1`],
    ["signed https://s3.example/o?X=1&signature=ZmFrZQ%3D%3D", `signed https://s3.example/o?X=1&signature=${R}`],
    ["cannot reach http://user:s3cretPW@127.0.0.1:9/v1 (refused)", `cannot reach http://${R}@127.0.0.1:9/v1 (refused)`],
    ["key abc1****wxyz is invalid", `key ${R} is invalid`],
    ["token rat_Zx9aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5_abcdefg revoked", `token ${R} revoked`],
    ["invite rinv_Zx9aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5-ab used", `invite ${R} used`],
    ["secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+b/c= set", `secret ${R} set`],
  ];
  for (const [input, output] of cases) test(JSON.stringify(input).slice(0, 70), () => expect(scrubShapes(input)).toBe(output));

  test("inside JSON text the replacement never crosses a quote, so the JSON stays valid", () => {
    const json = JSON.stringify({ url: "http://u:p4ss@h.example/x", note: "mail a@b.example", error: "Incorrect API key provided: sk-...wxyz", q: "/m?key=abc123&x=1" });
    const out = scrubShapes(json);
    expect(JSON.parse(out)).toEqual({ url: `http://${R}@h.example/x`, note: "mail a@b.example", error: `Incorrect API key provided: ${R}`, q: `/m?key=${R}&x=1` });
  });
});

describe("no false positives", () => {
  const ordinary = [
    "pip install scikit-learn; import sk-learn as skl",
    "use sk-learn-compat for the model",
    "model gpt-4o-mini-2024-07-18 routed to claude-3-5-sonnet-20241022 via gemini-2.5-flash-lite",
    "task-0123456789abcdefghijklmnop was risk-free",
    "Missing Bearer token",
    "Bearer authentication required",
    "max_tokens: 4096, temperature=0.7, top_k=40",
    "see https://platform.openai.com/account/api-keys and https://api.anthropic.com/v1/messages?beta=true",
    "write to ops@example.com or user@host",
    "2**10 = 1024; a * b * c",
    "Request too large for gpt-4o in organization org-abc123 on tokens per min (TPM): Limit 30000",
    "The key=value syntax is documented",
    "section *** next section; rating 5 * 4",
  ];
  for (const text of ordinary) test(text.slice(0, 60), () => expect(scrubShapes(text)).toBe(text));
});

describe("the process's known secrets", () => {
  test("learns every secret-named value of a config and an environment, and URL passwords, then scrubs them", () => {
    rememberSecrets(
      {
        adminToken: "known-admin-token-0001",
        providers: { openai: { apiKey: "known-file-key-0002", baseUrl: "http://relay:known-base-pw-0003@proxy.example/v1" } },
        store: { postgresUrl: "postgres://relay:known%2Fpg-pw-0004@db.example/relay" },
        routing: { note: "not-a-secret-value-0005" },
      },
      { MISTRAL_API_KEY: "known-env-key-0006", RELAY_ADMIN_TOKEN: "known-env-token-0007", HOME: "/home/not-a-secret-0008" },
    );
    const text = "known-admin-token-0001 known-file-key-0002 known-base-pw-0003 known/pg-pw-0004 known%2Fpg-pw-0004 known-env-key-0006 known-env-token-0007";
    expect(scrubSecrets(text)).toBe(Array(7).fill(R).join(" "));
    expect(scrubSecrets("not-a-secret-value-0005 /home/not-a-secret-0008")).toBe("not-a-secret-value-0005 /home/not-a-secret-0008");
  });

  test("the request's own credential is scrubbed for that call only", () => {
    expect(scrubSecrets("invalid key client-only-cred-0009", "client-only-cred-0009")).toBe(`invalid key ${R}`);
    expect(scrubSecrets("invalid key client-only-cred-0009")).toBe("invalid key client-only-cred-0009");
  });
});
