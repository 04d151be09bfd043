// The whole test suite, as `npm test` and CI run it. `bun test` prints no
// summary line CI recognises, so this runs it with the JUnit reporter and
// ends with "N passed, N failed, N skipped" computed from that report.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const report = join(root, "test-results", "junit.xml");
mkdirSync(join(root, "test-results"), { recursive: true });
rmSync(report, { force: true });

const proc = Bun.spawn([process.execPath, "test", "--reporter=junit", `--reporter-outfile=${report}`, ...process.argv.slice(2)], {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"],
  env: process.env,
});
const code = await proc.exited;

let tests = 0;
let failures = 0;
let skipped = 0;
try {
  const xml = readFileSync(report, "utf8");
  const head = /<testsuites\b([^>]*)>/.exec(xml)?.[1] ?? "";
  const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(head)?.[1] ?? 0);
  tests = attr("tests");
  failures = attr("failures") + attr("errors");
  skipped = attr("skipped");
} catch {
  // No report: the runner itself failed; counted below.
}
// A non-zero exit with no failing test means an error outside any test (a file that failed to load).
if (code !== 0 && failures === 0) failures = 1;
const passed = Math.max(0, tests - failures - skipped);
const summary = `${passed} passed, ${failures} failed, ${skipped} skipped`;
console.log(`\n${summary}`);
// Kept so a wrapper (.ci/run) can repeat it as its own last line.
writeFileSync(join(root, "test-results", "summary.txt"), `${summary}\n`);
process.exit(code !== 0 || failures > 0 ? 1 : 0);
