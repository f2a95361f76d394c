// Outage controls shared by the fakes of outside services: a service nobody answers at (every connection closed
// before an answer: a network error, no HTTP status) and a service slower than any timeout (requests held unanswered
// until released). Attach to the fake's HTTP server; its handler awaits `gate(path)` before answering.
import type { Server } from 'node:http';

export interface OutageControls {
  /** True while connections are closed as soon as they open. */
  readonly unreachable: boolean;
  /** While on, every connection is closed as soon as it opens (kept-alive ones at their next request). */
  setUnreachable(on: boolean): void;
  /** While on, requests (only those whose path matches `only`, when given) wait; off answers them as usual. */
  hold(on: boolean, only?: RegExp): void;
  /** Requests held and not answered yet. */
  readonly holding: number;
  /** Resolves when a request for `path` may be answered: at once unless held. */
  gate(path: string): Promise<void>;
  /** Let every held request go and hold no more (the fake is closing). */
  releaseAll(): void;
}

export function outageControls(server: Server): OutageControls {
  let unreachable = false;
  let holdOnly: { only?: RegExp } | null = null;
  const held = new Set<() => void>();
  const release = () => {
    for (const go of [...held]) go();
  };
  server.on('connection', (socket) => {
    if (unreachable) socket.destroy();
  });
  return {
    get unreachable() {
      return unreachable;
    },
    setUnreachable(on) {
      unreachable = on;
      if (on) server.closeIdleConnections();
    },
    hold(on, only) {
      holdOnly = on ? { only } : null;
      if (!on) release();
    },
    get holding() {
      return held.size;
    },
    async gate(path) {
      if (!holdOnly || (holdOnly.only && !holdOnly.only.test(path))) return;
      await new Promise<void>((resolve) => {
        const go = () => { held.delete(go); resolve(); };
        held.add(go);
      });
    },
    releaseAll() {
      holdOnly = null;
      release();
    },
  };
}
