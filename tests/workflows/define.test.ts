// Building a workflow (issue 39, item 2): what cannot run is refused when it is built, every problem
// named; the DAG's order, sinks and cycles as units.
import { describe, expect, test } from "bun:test";
import { graphProblems, sinks, topologicalOrder } from "../../src/core/workflows/dag.ts";
import { defineWorkflow, WorkflowDefinitionError } from "../../src/core/workflows/index.ts";
import type { StepDefinition } from "../../src/core/workflows/types.ts";
import { isRetryable } from "../../src/core/workflows/step.ts";
import { templateProblems } from "../../src/core/workflows/template.ts";

const step = (name: string, dependsOn: string[] = [], more: Partial<StepDefinition> = {}): StepDefinition => ({ name, model: "openai:gpt-4o-mini", dependsOn, userPrompt: "hi", ...more });

/** The problems defineWorkflow names for these steps. */
function problemsOf(steps: StepDefinition[]): string[] {
  try {
    defineWorkflow({ name: "w", steps });
  } catch (e) {
    expect(e).toBeInstanceOf(WorkflowDefinitionError);
    return (e as WorkflowDefinitionError).problems;
  }
  throw new Error("defineWorkflow accepted it");
}

describe("defineWorkflow refuses", () => {
  test("a cycle, naming the steps along it", () => {
    expect(problemsOf([step("a", ["c"]), step("b", ["a"]), step("c", ["b"]), step("d")])).toEqual(['dependency cycle: "a" → "c" → "b" → "a" (each step depends on the next)']);
    expect(problemsOf([step("self", ["self"])])).toEqual(['dependency cycle: "self" → "self" (each step depends on the next)']);
  });

  test("an unknown dependency and a duplicate name", () => {
    expect(problemsOf([step("a", ["ghost"]), step("b"), step("b")])).toEqual(['duplicate step name "b"', 'step "a" depends on unknown step "ghost"']);
  });

  test("the message names the workflow and each problem", () => {
    expect(() => defineWorkflow({ name: "w", steps: [step("a", ["nope"])] })).toThrow('workflow "w": step "a" depends on unknown step "nope"');
  });

  test("a model not <vendor>:<model>, bad retry settings, a schema the validator cannot check", () => {
    expect(problemsOf([step("a", [], { model: "gpt-4o" }), step("b", [], { retry: { maxRetries: -1, backoffMs: Number.NaN } }), step("c", [], { schema: { $ref: "#/nowhere" } })])).toEqual([
      'step "a": model "gpt-4o" is not <vendor>:<model>',
      'step "b": retry.maxRetries must be an integer >= 0',
      'step "b": retry.backoffMs must be a number >= 0',
      'step "c": schema /$ref: "#/nowhere" does not resolve within the schema',
    ]);
  });

  test("a template reading a step that is not a dependency, or a root other than input and steps", () => {
    expect(problemsOf([step("a"), step("b", [], { userPrompt: "{{steps.a.output}} {{env.HOME}}" })])).toEqual([
      'step "b": userPrompt: "{{steps.a.output}}" reads step "a", which is not among this step\'s dependencies',
      'step "b": userPrompt: "{{env.HOME}}" must begin with input or steps',
    ]);
    // A dependency's dependency may be read.
    expect(() => defineWorkflow({ name: "w", steps: [step("a"), step("b", ["a"]), step("c", ["b"], { systemPrompt: "{{steps.a.output.x}}" })] })).not.toThrow();
  });

  test("no name, no steps", () => {
    expect(() => defineWorkflow({ name: "", steps: [] })).toThrow('workflow "": a workflow needs a name; a workflow needs at least one step');
  });
});

describe("the graph", () => {
  const nodes = [
    { name: "fetch", dependsOn: [] },
    { name: "report", dependsOn: ["summary", "tags"] },
    { name: "summary", dependsOn: ["fetch"] },
    { name: "tags", dependsOn: ["fetch"] },
    { name: "audit", dependsOn: [] },
  ];

  test("each step comes after its dependencies; ties keep declaration order", () => {
    expect(topologicalOrder(nodes)).toEqual(["fetch", "audit", "summary", "tags", "report"]);
  });

  test("sinks are the steps nothing depends on", () => {
    expect(sinks(nodes)).toEqual(["report", "audit"]);
  });

  test("a DAG has no problems", () => {
    expect(graphProblems(nodes)).toEqual([]);
  });

  test("the finalOutput of several sinks is keyed by their names (see run.ts); of one, its output", () => {
    expect(defineWorkflow({ name: "w", steps: [step("a"), step("b", ["a"]), step("c")] }).sinks).toEqual(["b", "c"]);
  });
});

describe("template references", () => {
  test("only dotted paths under input or a readable step's output", () => {
    expect(templateProblems("{{input}} {{ input.a-b.c }} {{steps.x.output}}", new Set(["x"]))).toEqual([]);
    expect(templateProblems("{{steps.x}} {{input..a}} {{}}", new Set(["x"]))).toEqual([
      '"{{steps.x}}" must read steps.<name>.output',
      '"{{input..a}}" is not a dotted path',
      '"{{}}" is not a dotted path',
    ]);
  });
});

describe("which failures a step retries", () => {
  const failure = (status: number, code = "provider_error") => ({ status, code, message: "" });
  test("vendor 5xx, 429, 408 and a transport failure (502) are retryable; 4xx are not", () => {
    expect([500, 502, 503, 429, 408].map((s) => isRetryable(failure(s)))).toEqual([true, true, true, true, true]);
    expect([400, 401, 403, 404, 422].map((s) => isRetryable(failure(s)))).toEqual([false, false, false, false, false]);
  });
  test("the router's own refusals that a later call cannot fix are not, whatever their status", () => {
    expect(isRetryable(failure(500, "missing_api_key"))).toBe(false);
    expect(isRetryable(failure(429, "budget_exceeded"))).toBe(false);
    expect(isRetryable(failure(503, "provider_cooled_down"))).toBe(true);
  });
});
