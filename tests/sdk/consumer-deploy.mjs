// Run by tests/sdk/cloud.test.ts from the project where the packed @relay/sdk is installed: a
// workflow with a webhook trigger and a schedule attached, deployed twice to the `relay cloud` at
// RELAY_API_HOST as the team of RELAY_TOKEN. Prints both deployments.
import { configure, createWorkflow } from "@relay/sdk";

configure({ cloud: { enabled: true, accessToken: globalThis.process.env.RELAY_TOKEN } });
const hooked = createWorkflow("hooked")
  .step("only", { model: "openai:gpt-4o-mini", userPrompt: "Hook: {{input.text}}" })
  .webhook({ endpoint: "news/in", headers: { "x-source": "sdk-test" }, rateLimit: { requests: 10, window: "1m" } })
  .schedule("0 9 * * 1", { timezone: "Europe/Paris", input: { text: "weekly" } });
const first = await hooked.deploy();
const second = await hooked.deploy();
globalThis.process.stdout.write(JSON.stringify({ first, second }));
