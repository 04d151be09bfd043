// Administrative switches of the proxy: routing on/off and ending sessions.
// A killed session's in-flight requests are aborted and its new ones refused
// until routing is re-enabled.

import type { Abortable } from "./router/scope.ts";

export class ControlState {
  routingEnabled = true;
  private readonly killed = new Set<string>();
  private killedAll = false;
  private readonly inflight = new Map<string, Set<Abortable>>();
  private readonly anonymous = new Set<Abortable>();

  isRefused(sessionKey: string | undefined): boolean {
    return this.killedAll || (sessionKey !== undefined && this.killed.has(sessionKey));
  }

  /** Track a request until untrack() is called with the same arguments. */
  track(sessionKey: string | undefined, ac: Abortable): void {
    (sessionKey === undefined ? this.anonymous : this.setFor(sessionKey)).add(ac);
  }

  untrack(sessionKey: string | undefined, ac: Abortable): void {
    if (sessionKey === undefined) {
      this.anonymous.delete(ac);
      return;
    }
    const set = this.inflight.get(sessionKey);
    if (!set) return;
    set.delete(ac);
    if (set.size === 0) this.inflight.delete(sessionKey);
  }

  /** End one session or all; returns how many in-flight requests were aborted. */
  kill(target: { sessionKey: string } | { all: true }): number {
    const victims: Abortable[] = [];
    if ("all" in target) {
      this.killedAll = true;
      for (const set of this.inflight.values()) victims.push(...set);
      victims.push(...this.anonymous);
    } else {
      this.killed.add(target.sessionKey);
      victims.push(...(this.inflight.get(target.sessionKey) ?? []));
    }
    for (const ac of victims) ac.abort(new Error("session killed"));
    return victims.length;
  }

  enable(): void {
    this.routingEnabled = true;
    this.killed.clear();
    this.killedAll = false;
  }

  disable(): void {
    this.routingEnabled = false;
  }

  snapshot() {
    let inflight = this.anonymous.size;
    for (const s of this.inflight.values()) inflight += s.size;
    return {
      routingEnabled: this.routingEnabled,
      killedSessions: [...this.killed],
      killedAll: this.killedAll,
      inflight,
      activeSessions: this.inflight.size,
    };
  }

  private setFor(key: string): Set<Abortable> {
    let s = this.inflight.get(key);
    if (!s) this.inflight.set(key, (s = new Set()));
    return s;
  }
}
