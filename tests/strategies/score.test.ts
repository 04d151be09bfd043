import { describe, expect, test } from "bun:test";
import type { ChatRequest, Message, ToolDefinition } from "../../src/plugin/api.ts";
import { DEFAULT_THRESHOLDS, scoreRequest } from "../../src/strategies/complexity/score.ts";
import { chat } from "./fakes.ts";

const AGENT_SYSTEM = Array.from(
  { length: 120 },
  (_, i) =>
    `Rule ${i}: You are an interactive CLI agent. Prove nothing you have not verified; design changes carefully, explain trade-offs when asked, ` +
    "use the TodoWrite tool to plan complex multi-step tasks, run the linter and typecheck after every edit.\n",
).join("");

const AGENT_TOOLS: ToolDefinition[] = Array.from({ length: 40 }, (_, i) => ({
  name: `tool_${i}`,
  description: `Tool ${i}: performs a distributed, concurrent, step by step analysis of the codebase architecture.`,
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
}));

function agentRequest(messages: Message[]): ChatRequest {
  return { model: "svc:auto", stream: false, system: [{ type: "text", text: AGENT_SYSTEM }], tools: AGENT_TOOLS, messages };
}

const CODE = "```ts\nexport function total(items: Item[]) {\n  return items.reduce((s, i) => s + i.price, 0);\n}\n```";

describe("scoreRequest tiers", () => {
  test.each([
    ["hi!"],
    ["thanks, that helped a lot"],
    ["Translate to French: 'Where is the train station?'"],
    ["What is 17 * 23?"],
  ])("simple: %s", (text) => {
    expect(scoreRequest(chat(text)).tier).toBe("simple");
  });

  test.each([
    ["Prove that there are infinitely many primes of the form 4k + 3."],
    ["Derive the closed form of the Fibonacci sequence using generating functions, and prove it by induction."],
    [
      "Design the architecture of a multi-tenant job scheduler that runs 50k jobs per minute across regions with at-least-once execution and idempotency keys. Cover sharding, failure handling and how to migrate without downtime.",
    ],
  ])("complex: %s", (text) => {
    expect(scoreRequest(chat(text)).tier).toBe("complex");
  });

  test("a bug fix in a code block is at least moderate", () => {
    const result = scoreRequest(chat(`This crashes when items is undefined. Fix it:\n\n${CODE}`));
    expect(["moderate", "complex"]).toContain(result.tier);
    expect(result.reasons).toContain("code block in prompt");
  });

  test("explicit high reasoning effort raises the score", () => {
    const plain = scoreRequest(chat("Which of these two plans is cheaper?"));
    const effortful = scoreRequest(chat("Which of these two plans is cheaper?", { reasoning: { effort: "high" } }));
    expect(effortful.score).toBeGreaterThan(plain.score);
    expect(effortful.reasons).toContain("reasoning requested: high");
  });

  test("images count as a signal", () => {
    const req = chat("What is in this picture?");
    req.messages[0].content.push({ type: "image", source: { kind: "url", url: "https://example.com/a.png" } });
    expect(scoreRequest(req).reasons).toContain("images attached: 1");
  });
});

describe("agent context does not inflate the score", () => {
  const question: Message = { role: "user", content: [{ type: "text", text: "what does this function return?" }] };

  test("huge system prompt and 40 tools with a trivial question stay below complex", () => {
    const result = scoreRequest(agentRequest([question]));
    expect(result.tier).not.toBe("complex");
    expect(result.score).toBeLessThan(DEFAULT_THRESHOLDS.moderate);
    expect(result.reasons).toContain("tools offered: 40");
  });

  test("the cue words inside the system prompt and tool descriptions are ignored", () => {
    const bare = scoreRequest(chat("what does this function return?"));
    const agent = scoreRequest(agentRequest([question]));
    expect(agent.score - bare.score).toBeLessThanOrEqual(0.5);
  });

  test("a tool result with a stack trace counts", () => {
    const trace =
      "TypeError: Cannot read properties of undefined (reading 'map')\n    at renderRows (src/Table.tsx:31:27)\n    at Table (src/Table.tsx:58:13)";
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "the table crashes, fix it" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "tool_1", input: { path: "." } }] },
      { role: "user", content: [{ type: "tool_result", toolUseId: "t1", content: [{ type: "text", text: trace }], isError: true }] },
    ];
    const result = scoreRequest(agentRequest(messages));
    expect(result.reasons).toContain("stack trace in tool result");
    expect(result.tier).toBe("moderate");
  });
});

describe("scoreRequest signals and options", () => {
  test("a failed tool call without a stack trace is reported", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "delete the temp folder" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "tool_1", input: { path: "tmp" } }] },
      { role: "user", content: [{ type: "tool_result", toolUseId: "t1", content: [{ type: "text", text: "permission denied" }], isError: true }] },
    ];
    expect(scoreRequest(agentRequest(messages)).reasons).toContain("failed tool calls: 1");
  });

  test("reasons name the signals that fired", () => {
    const result = scoreRequest(chat("Prove the theorem step by step and derive the bound."));
    expect(result.reasons.some((r) => r.startsWith("proof cues: "))).toBe(true);
    expect(result.reasons.some((r) => r.startsWith("reasoning cues: "))).toBe(true);
  });

  test("a long conversation is reported", () => {
    const messages: Message[] = Array.from({ length: 14 }, (_, i) => ({
      role: i % 2 === 0 ? "user" : "assistant",
      content: [{ type: "text", text: `turn ${i}` }],
    }));
    const result = scoreRequest({ model: "svc:auto", stream: false, messages });
    expect(result.reasons).toContain("conversation: 14 turns");
  });

  test("pasted material is not read as instructions", () => {
    const article = "The council will design a distributed architecture and prove the theorem. ".repeat(40);
    const result = scoreRequest(chat(`Summarise this article in one sentence.\n\n${article}`));
    expect(result.tier).toBe("simple");
    expect(result.reasons.some((r) => r.startsWith("pasted material"))).toBe(true);
  });

  test("thresholds option moves the tier boundaries", () => {
    const req = chat("Prove that the square root of 2 is irrational.");
    const { score } = scoreRequest(req);
    expect(scoreRequest(req, { thresholds: { complex: score + 1 } }).tier).toBe("moderate");
    expect(scoreRequest(req, { thresholds: { moderate: score + 1, complex: score + 2 } }).tier).toBe("simple");
    expect(scoreRequest(chat("hi"), { thresholds: { moderate: 0, complex: 0 } }).tier).toBe("complex");
  });

  test("is pure: the same request scores the same twice", () => {
    const req = chat(`Refactor this and explain the trade-offs:\n\n${CODE}`);
    expect(scoreRequest(req)).toEqual(scoreRequest(req));
  });
});
