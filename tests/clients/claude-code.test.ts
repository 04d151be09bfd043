// Claude Code (the real CLI, pinned in package.json) run with `claude -p` against Relay, offline:
// its requests pass to an Anthropic fake byte for byte, and `svc:auto` routes them to an
// OpenAI-format fake; both with a tool round trip (the Read tool on a file in its working folder).
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startWorld, type World } from "../proxy/world.ts";
import { CLI_TEST_TIMEOUT_MS, cliPath, runCli, sandbox, type Sandbox } from "./cli.ts";
import { startTap, type Tap } from "./tap.ts";

const claude = cliPath("claude");
const PROMPT = "What is the secret word in notes.txt?";
const NOTES = "The secret word is pelican.\n";
const ANSWER = "The secret word is pelican.";

let world: World | undefined;
let tap: Tap | undefined;
let box: Sandbox | undefined;
afterEach(async () => {
  await tap?.close();
  await world?.stop();
  box?.close();
  world = tap = box = undefined;
});

/** Relay behind a tap (which keeps the CLI's own bytes), and a sandbox with notes.txt in it. */
async function setUp(opts: Parameters<typeof startWorld>[0] = {}) {
  world = await startWorld(opts);
  tap = startTap(world.url);
  box = sandbox("claude");
  writeFileSync(join(box.cwd, "notes.txt"), NOTES);
  return { world, tap, box, notes: join(box.cwd, "notes.txt") };
}

function runClaude(box: Sandbox, baseUrl: string, extraArgs: string[] = []) {
  const env = box.env({
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: "sk-ant-client",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
  });
  // --allowedTools: Read runs without an interactive permission prompt.
  return runCli([claude!, "-p", PROMPT, "--allowedTools", "Read", ...extraArgs], box.cwd, env);
}

const messagesCalls = (t: Tap) => t.seen.filter((s) => s.method === "POST" && s.path.startsWith("/v1/messages") && !s.path.includes("count_tokens"));

describe.skipIf(!claude)("claude -p against Relay", () => {
  test(
    "passthrough to Anthropic: each request reaches the fake as the CLI sent it, byte for byte, across a tool round trip",
    async () => {
      const { world, tap, box, notes } = await setUp();
      world.anthropic.enqueue({ toolCalls: [{ id: "toolu_read1", name: "Read", args: { file_path: notes } }] }, { text: ANSWER });
      const run = await runClaude(box, tap.url);

      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe(ANSWER);
      expect(box.outbound()).toEqual([]);

      const sent = messagesCalls(tap);
      const received = world.anthropic.requests.filter((r) => r.path === "/v1/messages");
      expect(sent.length).toBe(2);
      expect(received.length).toBe(2);
      sent.forEach((s, i) => {
        const r = received[i]!;
        expect(s.status).toBe(200);
        expect(s.responseHeaders["x-svc-provider"]).toBe("anthropic");
        expect(r.bodyText).toBe(s.bodyText);
        expect(r.headers["anthropic-version"]).toBe(s.headers["anthropic-version"]!);
        expect(r.headers["anthropic-beta"]).toBe(s.headers["anthropic-beta"]!);
      });

      // What made this hard before: Claude Code's current request shape, which now arrives whole.
      const first = received[0]!.json;
      expect(first.model).toMatch(/^claude-/);
      expect(first.stream).toBe(true);
      expect(first.messages.some((m: any) => m.role === "system")).toBe(true);
      expect(first.thinking?.type).toBe("adaptive");
      expect(first.output_config).toBeDefined();
      expect(first.context_management).toBeDefined();
      expect(first.tools.map((t: any) => t.name)).toContain("Read");

      // The round trip: Claude Code ran Read on the file and sent its content back.
      const second = received[1]!.json;
      const [call, result] = second.messages.slice(-2);
      expect(call.role).toBe("assistant");
      expect(call.content).toEqual([expect.objectContaining({ type: "tool_use", id: "toolu_read1", name: "Read", input: { file_path: notes } })]);
      expect(result.role).toBe("user");
      const toolResult = result.content.find((b: any) => b.type === "tool_result");
      expect(toolResult.tool_use_id).toBe("toolu_read1");
      expect(JSON.stringify(toolResult.content)).toContain("pelican");
    },
    CLI_TEST_TIMEOUT_MS,
  );

  test(
    "svc:auto with only an OpenAI key: routed to the OpenAI-format fake, system entries and tools translated, across a tool round trip",
    async () => {
      const tiers = { simple: "gpt-4.1-mini", moderate: "gpt-4.1-mini", complex: "gpt-4.1-mini" };
      const { world, tap, box, notes } = await setUp({
        withoutKeys: ["ANTHROPIC_API_KEY"],
        config: { routing: { strategies: { complexity: { tiers } } } },
      });
      world.openai.enqueue({ toolCalls: [{ id: "call_read1", name: "Read", args: { file_path: notes } }] }, { text: ANSWER });
      const run = await runClaude(box, tap.url, ["--model", "svc:auto"]);

      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe(ANSWER);
      expect(box.outbound()).toEqual([]);
      expect(world.anthropic.requests.length).toBe(0);

      const sent = messagesCalls(tap);
      const received = world.openai.requests.filter((r) => r.path === "/v1/chat/completions");
      expect(sent.length).toBe(2);
      expect(received.length).toBe(2);
      for (const s of sent) {
        expect(s.json.model).toBe("svc:auto");
        expect(s.responseHeaders["x-svc-strategy"]).toBe("complexity");
        expect(s.responseHeaders["x-svc-routed-model"]).toBe("gpt-4.1-mini");
      }

      const [asked, got] = [sent[0]!.json, received[0]!.json];
      expect(got.model).toBe("gpt-4.1-mini");
      expect(got.stream).toBe(true);
      // The system array leads; the mid-conversation system entry stays where it was, after the user's turn.
      const roles: string[] = got.messages.map((m: any) => m.role);
      const systemText = (asked.system as any[]).map((b) => b.text);
      expect(got.messages.slice(0, systemText.length).map((m: any) => m.content)).toEqual(systemText);
      const midSystem = asked.messages.findIndex((m: any) => m.role === "system");
      expect(midSystem).toBeGreaterThan(0);
      const userAt = roles.indexOf("user");
      expect(roles.slice(userAt + 1)).toContain("system");
      // Every tool goes over as a function with the CLI's own JSON schema.
      expect(got.tools.map((t: any) => t.function.name)).toEqual(asked.tools.map((t: any) => t.name));
      const read = asked.tools.find((t: any) => t.name === "Read");
      expect(got.tools.find((t: any) => t.function.name === "Read").function.parameters).toEqual(read.input_schema);

      // The round trip in OpenAI's shape: the call, then the tool message with the file's content.
      const [call, result] = received[1]!.json.messages.slice(-2);
      expect(call.role).toBe("assistant");
      expect(call.tool_calls[0]).toMatchObject({ id: "call_read1", type: "function", function: { name: "Read" } });
      expect(JSON.parse(call.tool_calls[0].function.arguments)).toEqual({ file_path: notes });
      expect(result).toMatchObject({ role: "tool", tool_call_id: "call_read1" });
      expect(JSON.stringify(result.content)).toContain("pelican");
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
