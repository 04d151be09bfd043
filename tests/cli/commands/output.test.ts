// Terminal detection, colour rules, tables and money formatting of src/cli/output.ts.
import { describe, expect, test } from "bun:test";
import { formatUsd, renderTable, startSpinner, styleFor, terminalFor, visibleLength } from "../../../src/cli/output.ts";

const tty = { isTTY: true };
const pipe = { isTTY: false };

describe("terminalFor", () => {
  test("a terminal gets colour, a spinner and questions", () => {
    expect(terminalFor({ stdin: tty, stdout: tty, stderr: tty }, {})).toEqual({ colour: true, spinner: true, interactive: true });
  });

  test("NO_COLOR turns colour off but keeps the spinner", () => {
    expect(terminalFor({ stdin: tty, stdout: tty, stderr: tty }, { NO_COLOR: "1" })).toMatchObject({ colour: false, spinner: true });
    // An empty NO_COLOR does not count (no-color.org).
    expect(terminalFor({ stdin: tty, stdout: tty, stderr: tty }, { NO_COLOR: "" }).colour).toBe(true);
  });

  test("piped stdout: no colour, no spinner, no questions", () => {
    expect(terminalFor({ stdin: tty, stdout: pipe, stderr: tty }, {})).toEqual({ colour: false, spinner: false, interactive: false });
  });

  test("piped stdin: no questions", () => {
    expect(terminalFor({ stdin: pipe, stdout: tty, stderr: tty }, {}).interactive).toBe(false);
  });
});

describe("styleFor", () => {
  test("colours only when the terminal allows", () => {
    expect(styleFor({ colour: true, spinner: false, interactive: false }).red("x")).toBe("\x1b[31mx\x1b[39m");
    expect(styleFor({ colour: false, spinner: false, interactive: false }).red("x")).toBe("x");
  });
});

describe("renderTable", () => {
  test("pads columns to the widest visible cell, ignoring colour codes, and right-aligns numbers", () => {
    const s = styleFor({ colour: true, spinner: false, interactive: false });
    const out = renderTable([{ title: "NAME" }, { title: "USD", align: "right" }, { title: "NOTE" }], [[s.green("a"), "1.5", "x"], ["longer", "10", ""]], s);
    const lines = out.trimEnd().split("\n").map((l) => l.replace(/\x1b\[[0-9;]*m/g, ""));
    expect(lines).toEqual(["NAME    USD  NOTE", "a       1.5  x", "longer   10"]);
  });

  test("visibleLength does not count escape codes", () => {
    expect(visibleLength("\x1b[1mbold\x1b[22m")).toBe(4);
  });
});

describe("formatUsd", () => {
  test("four decimals under a dollar, two above", () => {
    expect(formatUsd(0.00371)).toBe("$0.0037");
    expect(formatUsd(12.5)).toBe("$12.50");
  });
});

describe("startSpinner", () => {
  test("draws on a terminal and clears its line when stopped", () => {
    const written: string[] = [];
    const spinner = startSpinner({ colour: false, spinner: true, interactive: false }, "working", (s) => written.push(s));
    spinner.stop();
    expect(written[0]).toContain("working");
    expect(written.at(-1)).toBe("\r\x1b[2K");
  });

  test("writes nothing when not on a terminal", () => {
    const written: string[] = [];
    startSpinner({ colour: false, spinner: false, interactive: false }, "working", (s) => written.push(s)).stop();
    expect(written).toEqual([]);
  });
});
