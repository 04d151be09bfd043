// The README's plans table is PLANS (src/core/tenancy/plans.ts), row for row: the issue asks for one
// table of what each plan allows, shown in the README.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PLAN_NAMES, PLANS } from "../../src/core/tenancy/plans.ts";

const yesNo = (b: boolean) => (b ? "yes" : "no");

test("the README's plans table shows every plan's limits as PLANS has them", () => {
  const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
  const rows = readme.split("\n").filter((line) => PLAN_NAMES.some((name) => line.startsWith(`| ${name} |`)));
  expect(rows).toEqual(
    PLAN_NAMES.map((name) => {
      const p = PLANS[name];
      const cells = [name, p.requestsPerMinute.toLocaleString("en-US"), `${p.logRetentionDays} days`, yesNo(p.export), yesNo(p.logApi), yesNo(p.webhooks), `$${p.benchmarkMaxSpendUsd}`];
      return `| ${cells.join(" | ")} |`;
    }),
  );
});
