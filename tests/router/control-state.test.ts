// ControlState's list of requests in flight: what an administrator's kill reaches,
// what the status counts, and that a finished request leaves the list for good.
import { describe, expect, test } from "bun:test";
import { ControlState } from "../../src/core/control.ts";
import type { Abortable } from "../../src/core/router/scope.ts";

class Target implements Abortable {
  reasons: unknown[] = [];
  abort(reason?: unknown): void {
    this.reasons.push(reason);
  }
}

describe("ControlState", () => {
  test("a session's kill aborts that session's requests only, and refuses its new ones", () => {
    const control = new ControlState();
    const [a1, a2, b, anon] = [new Target(), new Target(), new Target(), new Target()];
    control.track("a", a1);
    control.track("b", b);
    control.track("a", a2);
    control.track(undefined, anon);
    expect(control.kill({ sessionKey: "a" })).toBe(2);
    expect([a1.reasons.length, a2.reasons.length, b.reasons.length, anon.reasons.length]).toEqual([1, 1, 0, 0]);
    expect((a1.reasons[0] as Error).message).toBe("session killed");
    expect(control.isRefused("a")).toBe(true);
    expect(control.isRefused("b")).toBe(false);
  });

  test("kill all reaches every request in flight, with or without a session", () => {
    const control = new ControlState();
    const targets = [new Target(), new Target(), new Target()];
    control.track("a", targets[0]!);
    control.track(undefined, targets[1]!);
    control.track("b", targets[2]!);
    expect(control.kill({ all: true })).toBe(3);
    expect(targets.map((t) => t.reasons.length)).toEqual([1, 1, 1]);
    expect(control.isRefused(undefined)).toBe(true);
    control.enable();
    expect(control.isRefused(undefined)).toBe(false);
  });

  test("an untracked request is out of the counts and out of reach; untracking twice changes nothing", () => {
    const control = new ControlState();
    const [first, middle, last] = [new Target(), new Target(), new Target()];
    const entries = [control.track("s", first), control.track(undefined, middle), control.track("t", last)];
    expect(control.snapshot()).toMatchObject({ inflight: 3, activeSessions: 2 });
    // Head, middle and tail of the list each unlink cleanly.
    control.untrack(entries[1]!);
    control.untrack(entries[1]!);
    expect(control.snapshot()).toMatchObject({ inflight: 2, activeSessions: 2 });
    control.untrack(entries[2]!);
    expect(control.snapshot()).toMatchObject({ inflight: 1, activeSessions: 1 });
    expect(control.kill({ all: true })).toBe(1);
    expect([first.reasons.length, middle.reasons.length, last.reasons.length]).toEqual([1, 0, 0]);
    control.untrack(entries[0]!);
    expect(control.snapshot()).toMatchObject({ inflight: 0, activeSessions: 0 });
    expect(control.kill({ all: true })).toBe(0);
  });

  test("a request aborted by a kill may untrack itself at once without upsetting the kill", () => {
    const control = new ControlState();
    const entries: ReturnType<ControlState["track"]>[] = [];
    let aborted = 0;
    for (let i = 0; i < 4; i++) {
      const at = i;
      entries.push(
        control.track("s", {
          abort: () => {
            aborted++;
            control.untrack(entries[at]!);
          },
        }),
      );
    }
    expect(control.kill({ sessionKey: "s" })).toBe(4);
    expect(aborted).toBe(4);
    expect(control.snapshot().inflight).toBe(0);
  });
});
