// The steps as a graph: the problems that make it no DAG (a duplicate name, a dependency on no step,
// a cycle), an order that puts every step after its dependencies, and the sinks (steps nothing depends on).

export interface Node {
  name: string;
  dependsOn: readonly string[];
}

/** Every problem with the graph, in words naming the steps; empty when it is a DAG. */
export function graphProblems(nodes: readonly Node[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const { name } of nodes) {
    if (names.has(name)) problems.push(`duplicate step name "${name}"`);
    names.add(name);
  }
  for (const { name, dependsOn } of nodes) {
    for (const dep of dependsOn) if (!names.has(dep)) problems.push(`step "${name}" depends on unknown step "${dep}"`);
  }
  if (problems.length) return problems;
  const cycle = findCycle(nodes);
  return cycle ? [`dependency cycle: ${cycle.map((n) => `"${n}"`).join(" → ")} (each step depends on the next)`] : [];
}

/** One cycle as the steps along it, each depending on the next, the first repeated at the end; undefined when there is none. */
function findCycle(nodes: readonly Node[]): string[] | undefined {
  const deps = new Map(nodes.map((n) => [n.name, n.dependsOn]));
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (name: string): string[] | undefined => {
    if (state.get(name) === "done") return undefined;
    if (state.get(name) === "open") return [...path.slice(path.indexOf(name)), name];
    state.set(name, "open");
    path.push(name);
    for (const dep of deps.get(name) ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    path.pop();
    state.set(name, "done");
    return undefined;
  };
  for (const { name } of nodes) {
    const found = visit(name);
    if (found) return found;
  }
  return undefined;
}

/** The steps in an order where each comes after its dependencies; ties keep declaration order. The graph must be a DAG. */
export function topologicalOrder(nodes: readonly Node[]): string[] {
  const order: string[] = [];
  const placed = new Set<string>();
  while (order.length < nodes.length) {
    const ready = nodes.filter((n) => !placed.has(n.name) && n.dependsOn.every((d) => placed.has(d)));
    if (ready.length === 0) throw new Error("topologicalOrder: the graph has a cycle");
    for (const n of ready) placed.add(n.name);
    order.push(...ready.map((n) => n.name));
  }
  return order;
}

/** Steps no other step depends on, in declaration order. */
export function sinks(nodes: readonly Node[]): string[] {
  const needed = new Set(nodes.flatMap((n) => n.dependsOn));
  return nodes.filter((n) => !needed.has(n.name)).map((n) => n.name);
}

/** Every step `name` depends on, directly or through others. */
export function ancestors(nodes: readonly Node[], name: string): Set<string> {
  const deps = new Map(nodes.map((n) => [n.name, n.dependsOn]));
  const seen = new Set<string>();
  const stack = [...(deps.get(name) ?? [])];
  while (stack.length) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(deps.get(next) ?? []));
  }
  return seen;
}
