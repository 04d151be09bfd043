// Codex CLI (the real one, pinned in package.json) run with `codex exec` against Relay, offline: a
// model_providers entry with wire_api = "responses" points at Relay, which translates its Responses
// requests for an Anthropic fake, including a round trip through Codex's freeform apply_patch tool.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startWorld, type World } from "../proxy/world.ts";
import { CLI_TEST_TIMEOUT_MS, cliPath, runCli, sandbox, type Sandbox } from "./cli.ts";
import { startTap, type Tap } from "./tap.ts";

const codex = cliPath("codex");
const CLAUDE = "claude-sonnet-4-5";
const PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hi from the patch\n*** End Patch\n";

let world: World | undefined;
let tap: Tap | undefined;
let box: Sandbox | undefined;
afterEach(async () => {
  await tap?.close();
  await world?.stop();
  box?.close();
  world = tap = box = undefined;
});

/** Relay (only Anthropic keyed) behind a tap, and CODEX_HOME in the sandbox's HOME. */
async function setUp(model: string, config: Record<string, unknown> = {}) {
  world = await startWorld({ withoutKeys: ["OPENAI_API_KEY"], config });
  tap = startTap(world.url);
  box = sandbox("codex");
  // No update check, analytics, feedback upload or plugin catalog sync (which reach github.com and
  // chatgpt.com); no retries against a local server.
  const toml = `model = "${model}"
model_provider = "relay"
check_for_update_on_startup = false

[features]
plugins = false

[analytics]
enabled = false

[feedback]
enabled = false

[model_providers.relay]
name = "Relay"
base_url = "${tap.url}/v1"
wire_api = "responses"
env_key = "RELAY_API_KEY"
request_max_retries = 0
stream_max_retries = 0
`;
  writeFileSync(join(box.home, "config.toml"), toml);
  return { world, tap, box };
}

function runCodex(box: Sandbox, prompt: string, extraArgs: string[] = []) {
  const env = box.env({ CODEX_HOME: box.home, RELAY_API_KEY: "sk-relay-client" });
  return runCli([codex!, "exec", "--strict-config", "--skip-git-repo-check", ...extraArgs, prompt], box.cwd, env);
}

const responsesCalls = (t: Tap) => t.seen.filter((s) => s.method === "POST" && s.path === "/v1/responses");
const dropped = (headers: Record<string, string>) => (headers["x-svc-dropped-params"] ?? "").split(",");

describe.skipIf(!codex)("codex exec against Relay", () => {
  test(
    "a Claude model: the Responses request is translated for the Anthropic fake and Codex prints its answer",
    async () => {
      const { world, tap, box } = await setUp(CLAUDE);
      world.anthropic.enqueue({ text: "Hi from Claude, through Relay." });
      const run = await runCodex(box, "say hi");

      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe("Hi from Claude, through Relay.");
      expect(box.outbound()).toEqual([]);

      const [sent] = responsesCalls(tap);
      expect(responsesCalls(tap).length).toBe(1);
      expect(sent!.status).toBe(200);
      expect(sent!.json.stream).toBe(true);
      expect(sent!.responseHeaders["x-svc-provider"]).toBe("anthropic");
      const got = world.anthropic.requests[0]!.json;
      expect(world.anthropic.requests.length).toBe(1);
      expect(got.model).toBe(CLAUDE);
      expect(got.stream).toBe(true);
      // The leading developer message is the system text; the user's prompt is the last turn.
      expect(got.system[0].text).toBe(sent!.json.input[0].content[0].text);
      expect(JSON.stringify(got.messages.at(-1).content)).toContain("say hi");
      // Function tools go over with their schemas; hosted ones are dropped and said so.
      const functions = (sent!.json.tools as any[]).filter((t) => t.type === "function");
      expect(got.tools.map((t: any) => t.name)).toEqual(functions.map((t) => t.name));
      expect(got.tools[0].input_schema).toEqual(functions[0].parameters);
      expect((sent!.json.tools as any[]).some((t) => t.type !== "function")).toBe(true);
      expect(dropped(sent!.responseHeaders)).toContain("tools");
    },
    CLI_TEST_TIMEOUT_MS,
  );

  test(
    "Codex's own model routed to Claude: its freeform apply_patch tool round-trips as a custom tool call and the patch is applied",
    async () => {
      const tiers = { simple: CLAUDE, moderate: CLAUDE, complex: CLAUDE };
      const { world, tap, box } = await setUp("gpt-5.5", { routing: { override: "complexity", strategies: { complexity: { tiers } } } });
      world.anthropic.enqueue({ toolCalls: [{ id: "toolu_patch1", name: "apply_patch", args: { input: PATCH } }] }, { text: "Created hello.txt." });
      const run = await runCodex(box, "Create hello.txt saying hi", ["--sandbox", "workspace-write"]);

      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe("Created hello.txt.");
      expect(readFileSync(join(box.cwd, "hello.txt"), "utf8")).toBe("hi from the patch\n");
      expect(box.outbound()).toEqual([]);

      const sent = responsesCalls(tap);
      expect(sent.length).toBe(2);
      const tools = sent[0]!.json.tools as any[];
      const types = new Set(tools.map((t) => t.type));
      expect(types).toContain("custom");
      expect(types).toContain("web_search");
      for (const s of sent) {
        expect(s.status).toBe(200);
        expect(s.responseHeaders["x-svc-routed-model"]).toBe(CLAUDE);
        expect(dropped(s.responseHeaders)).toContain("tools");
      }

      // The custom tool reaches Claude as a function taking its text as `input`, its grammar described.
      const [first, second] = world.anthropic.requests.map((r) => r.json);
      const patchTool = first.tools.find((t: any) => t.name === "apply_patch");
      expect(patchTool.input_schema.required).toEqual(["input"]);
      expect(patchTool.input_schema.properties.input.description).toContain("*** Begin Patch");
      expect(first.tools.map((t: any) => t.name)).toEqual(tools.filter((t) => t.type === "function" || t.type === "custom").map((t) => t.name));

      // Codex got a custom_tool_call (it refuses a function call to a freeform tool), ran it, and sent back its output.
      const input = sent[1]!.json.input as any[];
      const call = input.find((i) => i.type === "custom_tool_call");
      expect(call).toMatchObject({ call_id: "toolu_patch1", name: "apply_patch", input: PATCH });
      const output = input.find((i) => i.type === "custom_tool_call_output");
      expect(output.call_id).toBe("toolu_patch1");
      expect(JSON.stringify(output.output)).toContain("hello.txt");

      // …which Claude saw as its own tool_use and a tool_result.
      const [toolUse, toolResult] = second.messages.slice(-2);
      expect(toolUse.content).toContainEqual(expect.objectContaining({ type: "tool_use", id: "toolu_patch1", name: "apply_patch", input: { input: PATCH } }));
      const result = toolResult.content.find((b: any) => b.type === "tool_result");
      expect(result.tool_use_id).toBe("toolu_patch1");
      expect(JSON.stringify(result.content)).toContain("Success");
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
