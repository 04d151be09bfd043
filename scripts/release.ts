// Cross-compiles dist/release/relay-<target> for every supported platform.
// Bun downloads the runtime of each foreign target; where that is impossible
// (no network) the target is reported as not built and the script exits 1.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const out = join(root, "dist", "release");
mkdirSync(out, { recursive: true });

const targets = ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64", "windows-x64"];
const host = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
const built: string[] = [];
const failed: Array<{ target: string; reason: string }> = [];

for (const target of targets) {
  const file = join(out, `relay-${target}${target.startsWith("windows") ? ".exe" : ""}`);
  // The host target compiles with the running Bun; others need their runtime fetched.
  const targetFlag = target === host ? [] : [`--target=bun-${target}`];
  const proc = Bun.spawnSync(
    // The run-log writer thread is a second entry point (see src/store/sqlite.ts).
    [process.execPath, "build", join(root, "src/server.ts"), join(root, "src/store/sqlite-writer.ts"), join(root, "src/store/sqlite-reader.ts"), "--compile", "--minify", "--bytecode", "--format=esm", ...targetFlag, "--outfile", file],
    { cwd: root, stdout: "pipe", stderr: "pipe" },
  );
  if (proc.exitCode === 0) built.push(target);
  else failed.push({ target, reason: (proc.stderr.toString() || proc.stdout.toString()).trim().split("\n").slice(-1)[0] ?? "unknown error" });
}

console.log(`built: ${built.join(", ") || "none"}`);
for (const f of failed) console.log(`NOT built: ${f.target}: ${f.reason}`);
process.exit(failed.length ? 1 : 0);
