// Run by tests/sdk/pack.test.ts with Node from the project where the packed @relay/sdk is installed:
// a manual update check, then one run (which starts the automatic check) against the fake OpenAI at
// FAKE_VENDOR_URL; RELAY_API_HOST is a cloud's version route. Prints the manual check's answer; the
// automatic check's notice, if any, goes to stderr before the process exits.
import { checkForUpdates, configure, createWorkflow } from "@relay/sdk";

const manual = await checkForUpdates();
configure({ providers: { openai: { apiKey: "sk-test", baseUrl: `${globalThis.process.env.FAKE_VENDOR_URL}/v1` } } });
const result = await createWorkflow("one").step("only", { model: "openai:gpt-4o-mini" }).run({ x: 1 });
globalThis.process.stdout.write(JSON.stringify({ manual, success: result.success }));
