// Runtime seam: timers that must not keep the process alive, and a callback on
// the event loop's next turn. Node's and Bun's timers are objects with unref();
// Deno's are numbers it unrefs itself; setImmediate is not every runtime's.

type Timer = ReturnType<typeof setTimeout>;

const deno = (globalThis as { Deno?: { unrefTimer(id: number): void } }).Deno;

/** Lets the process exit while `timer` is still armed. */
export function unrefTimer(timer: Timer): void {
  const t = timer as unknown as number | { unref(): unknown };
  if (typeof t === "object") t.unref();
  else deno?.unrefTimer(t);
}

/** Runs `run` on the next turn of the event loop, after pending I/O. */
export const nextTurn: (run: () => void) => void =
  typeof globalThis.setImmediate === "function" ? (run) => void setImmediate(run) : (run) => void setTimeout(run, 0);
