// The SDK as its users get it, for the tests of tests/sdk/: sdk/ built, packed with npm pack and
// installed offline into an empty project outside the repository, and commands run there as
// processes with nothing of this process's environment but PATH and HOME.
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const SDK = join(ROOT, "sdk");
export const NODE = Bun.which("node");

export interface PackedSdk {
  /** The temporary directory holding the tarball and the project; the caller removes it. */
  dir: string;
  /** The project where the package is installed, with `scripts` copied in. */
  project: string;
  packed: { filename: string; files: Array<{ path: string }> };
}

/** Builds, packs and installs the SDK into a new project, copying each of `scripts` (files of tests/sdk/) in as its value names it. */
export async function installPackedSdk(scripts: Record<string, string>): Promise<PackedSdk> {
  const dir = mkdtempSync(join(tmpdir(), "relay-sdk-pack-"));
  await runIn([process.execPath, join(SDK, "build.ts")], ROOT);
  const packed = JSON.parse((await runIn(["npm", "pack", "--json", "--ignore-scripts", "--pack-destination", dir], SDK)).out)[0];
  const project = join(dir, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "sdk-consumer", private: true, type: "module" }));
  await runIn(["npm", "install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", join(dir, packed.filename)], project);
  for (const [source, target] of Object.entries(scripts)) copyFileSync(join(import.meta.dir, source), join(project, target));
  return { dir, project, packed };
}

/** Runs `cmd` in `cwd`; rejects with its output when it exits with another code than 0. */
export async function runIn(cmd: string[], cwd: string, env: Record<string, string> = {}): Promise<{ out: string; err: string }> {
  const child = Bun.spawn(cmd, { cwd, stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env } });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited with ${code}:\n${err}\n${out}`);
  return { out, err };
}
