// Run by tests/sdk/cloud.test.ts with Node and Bun, from an empty project where the packed
// @relay/sdk is installed: the three-step workflow of consumer-run.mjs (two parallel steps, one
// dependent with a JSON schema) in cloud mode against the `relay cloud` at RELAY_API_HOST, as the
// team of RELAY_TOKEN (an access token or an API key); then a run whose `tags` step the fake vendor
// refuses, deploy() of the same definition, a run that times out, and a run refused by the cloud
// (with FIRST_RUN_ONLY set, the first run alone). Prints one JSON object of what it saw.
import { configure, createWorkflow, RelayCloudError } from "@relay/sdk";

const env = globalThis.process.env;
configure({ cloud: { enabled: true, teamId: env.RELAY_TEAM, accessToken: env.RELAY_TOKEN } });

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
const result = await article.run({ article: { body: "Relay ships an SDK" } }, { mode: "cloud", timeout: 20_000, metadata: { caller: "cloud-test" } });
const wallMs = performance.now() - started;
if (env.FIRST_RUN_ONLY) {
  globalThis.process.stdout.write(JSON.stringify({ result }));
  globalThis.process.exit(0);
}
const failed = await article.run({ article: { body: "no tags today" } }, { mode: "cloud", timeout: 20_000 });
const deployed = await article.deploy();
const slow = await article.run({ article: { body: "slow" } }, { mode: "cloud", timeout: 300 });

let refused = null;
configure({ cloud: { enabled: true, accessToken: "rk_live_not_a_key_at_all" } });
try {
  await article.run({ article: { body: "x" } }, { mode: "cloud" });
} catch (e) {
  refused = { isCloudError: e instanceof RelayCloudError, name: e.name, status: e.status, code: e.code, requestId: e.requestId, message: e.message };
}

const runtime = globalThis.Deno ? "deno" : globalThis.Bun ? "bun" : "node";
const dates = [result, failed, slow].every((r) => r.metadata.startTime instanceof Date && r.metadata.endTime instanceof Date);
globalThis.process.stdout.write(JSON.stringify({ runtime, result, wallMs, failed, deployed, slow, refused, dates }));
