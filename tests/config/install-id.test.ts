// The per-install id the loop guard marks vendor calls with: made once, kept
// in $RELAY_HOME/install-id (0600), the same on every start.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installId } from "../../src/config/install-id.ts";

const root = mkdtempSync(join(tmpdir(), "relay-install-id-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("installId", () => {
  test("made once in a new home (created 0700), kept 0600, and the same on the next start", () => {
    const home = join(root, "new-home");
    const first = installId(home);
    expect(first.persisted).toBe(true);
    expect(first.id).toMatch(/^[0-9a-f]{24}$/);
    expect(statSync(join(home, "install-id")).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(home, "install-id"), "utf8").trim()).toBe(first.id);
    expect(installId(home)).toEqual(first);
    expect(installId(join(root, "another-home")).id).not.toBe(first.id);
  });

  test("a file that does not hold an id is not trusted: this process gets an id of its own", () => {
    const home = join(root, "garbled");
    installId(home);
    writeFileSync(join(home, "install-id"), "not an id\n");
    const got = installId(home);
    expect(got.persisted).toBe(false);
    expect(got.id).toMatch(/^[0-9a-f]{24}$/);
  });

  test("a home Relay cannot create gets an id for this process only", () => {
    const blocker = join(root, "a-file");
    writeFileSync(blocker, "");
    const got = installId(join(blocker, "home")); // a folder cannot be made under a file
    expect(got.persisted).toBe(false);
    expect(got.id).toMatch(/^[0-9a-f]{24}$/);
  });
});
