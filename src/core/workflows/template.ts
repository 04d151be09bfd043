// Prompt templates: `{{input.a.b}}` reads the run's input, `{{steps.<name>.output.x}}` a completed
// step's output. References are checked when the workflow is built (a root other than input or
// steps, a step that is not a dependency); a path the data lacks fails the step at run time rather
// than putting "undefined" in a prompt. A string is inserted as it is, any other value as JSON.

const REFERENCE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const PATH = /^[A-Za-z_$][\w$-]*(?:\.[\w$-]+)*$/;

export interface Reference {
  /** As written between the braces, e.g. `steps.fetch.output.title`. */
  text: string;
  path: string[];
}

export function referencesOf(template: string): Reference[] {
  return [...template.matchAll(REFERENCE)].map((m) => ({ text: m[1]!, path: m[1]!.split(".") }));
}

/** What is wrong with a template's references for a step that may read `readable` steps' outputs. */
export function templateProblems(template: string, readable: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const { text, path } of referencesOf(template)) {
    const [root, step, field] = path;
    if (!PATH.test(text)) problems.push(`"{{${text}}}" is not a dotted path`);
    else if (root === "steps" && (step === undefined || field !== "output")) problems.push(`"{{${text}}}" must read steps.<name>.output`);
    else if (root === "steps" && !readable.has(step!)) problems.push(`"{{${text}}}" reads step "${step}", which is not among this step's dependencies`);
    else if (root !== "steps" && root !== "input") problems.push(`"{{${text}}}" must begin with input or steps`);
  }
  return problems;
}

export class TemplateError extends Error {
  override name = "TemplateError";
}

/** The template with each reference replaced; throws a TemplateError naming the first reference the data lacks. */
export function render(template: string, data: { input: unknown; steps: Record<string, { output?: unknown }> }): string {
  return template.replace(REFERENCE, (_, text: string) => {
    const value = lookup(data, text.split("."));
    if (value === undefined) throw new TemplateError(`template variable {{${text}}} has no value`);
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}

function lookup(root: unknown, path: string[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
