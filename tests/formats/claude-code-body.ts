// A /v1/messages body shaped as current Claude Code (2.1.x) sends it: a cached system array, its
// tools, a mid-conversation `role: "system"` entry, adaptive thinking with an effort, context
// management, metadata.user_id and streaming. Pretty-printed text (`claudeCodeText`) lets a test
// check that a vendor receives the client's bytes, whitespace included.

export const CLAUDE_CODE_BETAS = "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,relay-test-future-2099-01-01";

const SESSION_USER = "user_5f2c0d9e_account_7b1e4a2c-9d3f-4e8a-b6c1-2f0e9a7d5c33_session_0c6d1f2e-8a4b-4c7d-9e3f-1a2b3c4d5e6f";

export function claudeCodeBody(model = "claude-opus-5-5") {
  return {
    model,
    max_tokens: 32000,
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>\nAs you answer the user's questions, you can use the following context: the repository is a TypeScript library.\n</system-reminder>" },
          { type: "text", text: "The test for add() fails, fix it.", cache_control: { type: "ephemeral" } },
        ],
      },
      { role: "system", content: "Plan mode is off: you may edit files and run commands." },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "I should read src/math.ts first.", signature: "EqQBCkgIBhABGAIiQL0c9kZ2" },
          { type: "text", text: "Let me read the file." },
          { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "Read", input: { file_path: "/repo/src/math.ts" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_01A09q90qw90lq917835lq9",
            content: "     1\texport const add = (a: number, b: number) => a - b;\n",
            cache_control: { type: "ephemeral" },
          },
        ],
      },
      { role: "system", content: [{ type: "text", text: "The user's working directory changed to /repo/src." }] },
    ],
    system: [
      { type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: "ephemeral" } },
      {
        type: "text",
        text: "You are an interactive CLI tool that helps users with software engineering tasks. Use the tools available to you.",
        cache_control: { type: "ephemeral", ttl: "1h" },
      },
    ],
    tools: [
      {
        name: "Read",
        description: "Reads a file from the local filesystem.",
        input_schema: {
          type: "object",
          properties: { file_path: { type: "string", description: "The absolute path to the file to read" }, limit: { type: "number" } },
          required: ["file_path"],
          additionalProperties: false,
          $schema: "http://json-schema.org/draft-07/schema#",
        },
      },
      {
        name: "Edit",
        description: "Performs exact string replacements in files.",
        input_schema: {
          type: "object",
          properties: { file_path: { type: "string" }, old_string: { type: "string" }, new_string: { type: "string" } },
          required: ["file_path", "old_string", "new_string"],
          additionalProperties: false,
        },
        cache_control: { type: "ephemeral" },
      },
    ],
    metadata: { user_id: SESSION_USER },
    thinking: { type: "adaptive" },
    output_config: { effort: "medium" },
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    stream: true,
  };
}

/** The body as text the way no serializer would write it, so that any re-serialization shows. */
export const claudeCodeText = (model?: string): string => JSON.stringify(claudeCodeBody(model), null, 1);
