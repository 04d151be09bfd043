// Run by Node (tests/workflows/node.test.ts): the bundled engine (argv[2]) runs a three-step
// workflow through the bundled router (argv[3]) against the fake vendor at argv[4]; the result is
// printed as one JSON object.
const { defineWorkflow, runWorkflow, routeCaller } = await import(process.argv[2]);
const { createRouter } = await import(process.argv[3]);

const router = createRouter({ env: { OPENAI_API_KEY: "sk-test", RELAY_OPENAI_BASE_URL: `${process.argv[4]}/v1` } });
const workflow = defineWorkflow({
  name: "on-node",
  steps: [
    { name: "a", model: "openai:gpt-4o-mini", userPrompt: "A {{input.x}}" },
    { name: "b", model: "openai:gpt-4o-mini", userPrompt: "B {{input.x}}" },
    { name: "c", model: "openai:gpt-4o-mini", dependsOn: ["a", "b"], userPrompt: "C {{steps.a.output}} {{steps.b.output}}", schema: { type: "object", required: ["ok"] } },
  ],
});
const result = await runWorkflow(workflow, { x: 1 }, { call: routeCaller(router.route), timeout: 10_000 });
await router.close();
process.stdout.write(JSON.stringify({ node: process.version, bunGlobal: typeof globalThis.Bun, result }));
