// One named test per attack an outside probe tried (issue 34). An attack
// "succeeds" when its test fails: the suite prints how many were tried and how
// many got through, so a run against an old build shows what each fix closed.
import { test } from "bun:test";

export const tally = { tried: 0, succeeded: 0, names: [] as string[] };

export function attack(name: string, fn: () => Promise<void> | void, timeoutMs = 30_000): void {
  test(`attack: ${name}`, async () => {
    tally.tried++;
    try {
      await fn();
    } catch (e) {
      tally.succeeded++;
      tally.names.push(name);
      throw e;
    }
  }, timeoutMs);
}
