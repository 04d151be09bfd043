// Run by tests/sdk/pack.test.ts with Node, Bun and Deno, from an empty project where the packed
// @relay/sdk is installed: a three-step workflow (two parallel steps, one dependent with a JSON
// schema) in local mode against the fake OpenAI at FAKE_VENDOR_URL, telemetry to TELEMETRY_URL.
// Prints one JSON object of what it saw.
import { configure, createWorkflow, flushTelemetry, getConfig, resetConfig, VERSION } from "@relay/sdk";

const env = globalThis.process.env;
configure({
  providers: { openai: { apiKey: "sk-test", baseUrl: `${env.FAKE_VENDOR_URL}/v1`, organization: "org-test" } },
  telemetry: { enabled: true, apiEndpoint: env.TELEMETRY_URL, apiKey: "rk-telemetry" },
});

const article = createWorkflow("article")
  .step("summary", { model: "openai:gpt-4o-mini", userPrompt: "Summarise: {{input.article.body}}" })
  .step("tags", { model: "openai:gpt-4o-mini", systemPrompt: "You tag texts.", userPrompt: "Tags for: {{input.article.body}}" })
  .step("report", {
    model: "openai:gpt-4o-mini",
    dependsOn: ["summary", "tags"],
    schema: { type: "object", properties: { headline: { type: "string" }, tagCount: { type: "integer" } }, required: ["headline", "tagCount"] },
    userPrompt: "Report on {{steps.summary.output}} tagged {{steps.tags.output}}",
    retry: { maxRetries: 1, backoffMs: 10 },
    metadata: { owner: "news" },
  });

const started = performance.now();
const result = await article.run({ article: { body: "Relay ships an SDK" } }, { timeout: 10_000, metadata: { caller: "pack-test" } });
const wallMs = performance.now() - started;
await flushTelemetry();

const failure = async (run) => {
  try {
    await run();
    return null;
  } catch (e) {
    return { name: e.name, message: e.message };
  }
};
const cloud = await failure(() => article.run({}, { mode: "cloud" }));
const definition = await failure(() => createWorkflow("bad").step("x", { model: "openai:gpt-4o-mini", dependsOn: ["nope"] }).run());
const configured = getConfig();
resetConfig();

const runtime = globalThis.Deno ? "deno" : globalThis.Bun ? "bun" : "node";
const dates = result.metadata.startTime instanceof Date && result.metadata.endTime instanceof Date;
globalThis.process.stdout.write(JSON.stringify({ runtime, version: VERSION, result, dates, wallMs, cloud, definition, configured, afterReset: getConfig() }));
