// Secrets sealed at rest (src/core/secrets/sealing.ts, master-key.ts): an envelope opens only under
// the master key it was sealed with and for the row it was bound to; a tampered, moved or re-keyed
// envelope fails with a SealingError that says which, never with garbage or an empty string. The
// master key comes from RELAY_MASTER_KEY (hex or base64 of 32 bytes) or a 0600 key file made on first
// need; a file others may read is refused.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromBase64, toBase64 } from "../../src/core/bytes.ts";
import { MasterKeyError, masterKey, parseMasterKey } from "../../src/core/secrets/master-key.ts";
import { SealingError, SealingKey, isSealed } from "../../src/core/secrets/sealing.ts";

const randomKey = () => SealingKey.fromBytes(crypto.getRandomValues(new Uint8Array(32)));

async function failure(p: Promise<unknown>): Promise<SealingError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(SealingError);
  return e as SealingError;
}

describe("the sealed envelope", () => {
  test("round-trips, is versioned with the key's id, and holds neither the secret nor its base64", async () => {
    const key = await randomKey();
    const secret = "sk-live-0123456789abcdefghij";
    const sealed = await key.seal(secret, "team_a:openai");
    expect(sealed).toMatch(new RegExp(`^v1:${key.id}:[A-Za-z0-9+/]+=*$`));
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(toBase64(new TextEncoder().encode(secret)).slice(0, 16));
    expect(await key.open(sealed, "team_a:openai")).toBe(secret);
    // A fresh IV each time: the same secret seals differently.
    expect(await key.seal(secret, "team_a:openai")).not.toBe(sealed);
  });

  test("a changed byte anywhere in the ciphertext or tag fails as tampered", async () => {
    const key = await randomKey();
    const sealed = await key.seal("whsec_abcdefghijklmnop", "we_1");
    const [v, id, data] = sealed.split(":");
    const bytes = fromBase64(data!);
    for (const at of [0, 12, bytes.length - 1]) {
      const flipped = bytes.slice();
      flipped[at]! ^= 1;
      const e = await failure(key.open(`${v}:${id}:${toBase64(flipped)}`, "we_1"));
      expect(e.reason).toBe("tampered");
    }
  });

  test("an envelope moved to another row (other associated data) does not open", async () => {
    const key = await randomKey();
    const sealed = await key.seal("sk-team-a-key-0123456789", "team_a:openai");
    expect((await failure(key.open(sealed, "team_b:openai"))).reason).toBe("tampered");
    expect((await failure(key.open(sealed, "team_a:anthropic"))).reason).toBe("tampered");
  });

  test("another master key fails loudly, naming both key ids", async () => {
    const [a, b] = await Promise.all([randomKey(), randomKey()]);
    const e = await failure(b.open(await a.seal("sk-0123456789abcdef", "row"), "row"));
    expect(e.reason).toBe("wrong_key");
    expect(e.message).toContain(a.id);
    expect(e.message).toContain(b.id);
    expect(e.message).toContain("RELAY_MASTER_KEY");
  });

  test("a forged key id on another key's envelope still fails (the id is authenticated)", async () => {
    const [a, b] = await Promise.all([randomKey(), randomKey()]);
    const sealed = await a.seal("sk-0123456789abcdef", "row");
    expect((await failure(b.open(sealed.replace(a.id, b.id), "row"))).reason).toBe("tampered");
  });

  test("what is not an envelope is malformed", async () => {
    const key = await randomKey();
    for (const bad of ["whsec_plain", "v2:abc:def", `v1:${key.id}:`, `v1:${key.id}:AAAA`, `v1:${key.id}:***`, "v1:a:b:c"]) {
      expect((await failure(key.open(bad, "row"))).reason).toBe("malformed");
    }
  });
});

describe("the master key", () => {
  const homes: string[] = [];
  const home = () => {
    const dir = mkdtempSync(join(tmpdir(), "relay-master-key-"));
    homes.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  test("RELAY_MASTER_KEY is read as 64 hex digits or base64 of 32 bytes; anything else is refused by name", async () => {
    const raw = crypto.getRandomValues(new Uint8Array(32));
    const hex = Array.from(raw, (b) => b.toString(16).padStart(2, "0")).join("");
    expect(parseMasterKey(hex, "RELAY_MASTER_KEY")).toEqual(raw);
    expect(parseMasterKey(toBase64(raw), "RELAY_MASTER_KEY")).toEqual(raw);
    expect(parseMasterKey(toBase64(raw).replace("=", ""), "RELAY_MASTER_KEY")).toEqual(raw);
    for (const bad of ["short", hex.slice(2), toBase64(raw.subarray(1)), `${hex}00`]) {
      expect(() => parseMasterKey(bad, "RELAY_MASTER_KEY")).toThrow(/RELAY_MASTER_KEY must be 32 bytes written as 64 hex digits or as base64/);
    }
    const env = { RELAY_HOME: home(), RELAY_MASTER_KEY: hex };
    const fromEnv = await masterKey(env);
    expect(fromEnv.id).toBe((await SealingKey.fromBytes(raw)).id);
    // The variable wins: no key file is made.
    expect(() => statSync(join(env.RELAY_HOME, "master-key"))).toThrow();
  });

  test("without RELAY_MASTER_KEY the key file is made 0600 on first need and kept", async () => {
    const env = { RELAY_HOME: join(home(), "nested") };
    const key = await masterKey(env);
    const file = join(env.RELAY_HOME, "master-key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(parseMasterKey(readFileSync(file, "utf8"), "file")).toHaveLength(32);
    // Another process (another env object) reads the same file: the same key.
    expect((await masterKey({ ...env })).id).toBe(key.id);
  });

  test("a key file others may read is refused, with the fix in the message; a fixed one is used", async () => {
    const env = { RELAY_HOME: home() };
    const file = join(env.RELAY_HOME, "master-key");
    writeFileSync(file, `${toBase64(crypto.getRandomValues(new Uint8Array(32)))}\n`, { mode: 0o644 });
    chmodSync(file, 0o644);
    const e = await masterKey(env).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(MasterKeyError);
    expect((e as Error).message).toContain(`the master key file ${file} has mode 644`);
    expect((e as Error).message).toContain(`chmod 600 ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    // The failure is not remembered: once the operator fixes the file, the same Relay uses it.
    chmodSync(file, 0o600);
    expect((await masterKey(env)).id).toHaveLength(12);
  });

  test("a key file that holds no key is refused by name", async () => {
    const env = { RELAY_HOME: home() };
    const file = join(env.RELAY_HOME, "master-key");
    writeFileSync(file, "not a key\n", { mode: 0o600 });
    await expect(masterKey(env)).rejects.toThrow(`the master key file ${file} must be 32 bytes`);
  });
});
