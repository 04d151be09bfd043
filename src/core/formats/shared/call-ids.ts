// Gemini and Ollama tool calls usually carry no id, while the IR pairs every
// tool_result with its tool_use by id. These helpers invent the ids and, in the
// other direction, recover the function name a result answers. Format-neutral:
// the Ollama codec uses them too. Fresh ids (`call_…`, `resp_…`) are random, so a
// history never repeats one: prefixedId in src/core/ids.ts.
import type { ToolResultBlock, ToolUseBlock } from "../../ir.ts";

/**
 * Allocates ids for the calls of one conversation or response and pairs each
 * id-less result with the oldest unanswered call of the same function name
 * (or, when the result names no function, the oldest unanswered call).
 * The default ids `call_<n>` are stable, so decoding a conversation twice gives
 * the same ids (which keeps prompt caches and logs comparable).
 */
export class CallIds {
  private n = 0;
  private readonly unanswered: Array<{ id: string; name: string }> = [];

  constructor(private readonly fresh: (n: number) => string = (n) => `call_${n}`) {}

  call(name: string, id?: string): string {
    const callId = id || this.fresh(this.n++);
    this.unanswered.push({ id: callId, name });
    return callId;
  }

  /** The id of the call a result answers, and that call's name when the result lacks one. */
  result(name: string, id?: string): { id: string; name: string } {
    const at = this.unanswered.findIndex((c) => (id ? c.id === id : !name || c.name === name));
    const call = at === -1 ? undefined : this.unanswered.splice(at, 1)[0];
    return { id: id || call?.id || this.fresh(this.n++), name: name || call?.name || "" };
  }
}

/** Remembers tool_use names in conversation order to name the results that follow. */
export class ToolNames {
  private readonly byId = new Map<string, string>();

  note(block: ToolUseBlock): void {
    this.byId.set(block.id, block.name);
  }

  of(block: ToolResultBlock): string | undefined {
    return block.name ?? this.byId.get(block.toolUseId);
  }
}
