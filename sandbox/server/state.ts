/**
 * What the pieces of the sandbox share for its lifetime: its clock, its real delays, the
 * data, the request budget, the agent jobs, the armed faults and the request log.
 * `startSandbox` builds one `SandboxState`; the analytics and agent routes, the control API
 * and the `Sandbox` object work on it.
 */
import type { AgentStore } from '../agent.js';
import type { Datasets } from '../generators/registry.js';
import type { RequestBudget } from './budget.js';
import type { FaultQueue } from './faults.js';
import type { RequestLog } from './http.js';

export interface SandboxState {
  readonly clock: SandboxClock;
  readonly delays: Delays;
  readonly data: Datasets;
  readonly budget: RequestBudget;
  readonly agent: AgentStore;
  readonly faults: FaultQueue;
  readonly requests: RequestLog;
  /** Every answer as after the service's next change (`SandboxOptions.drift`). */
  readonly drift: boolean;
}

/** The sandbox's clock: the `now` option plus an offset that the control API moves. */
export class SandboxClock {
  private offset = 0;

  constructor(private readonly base: () => number) {}

  /** The sandbox's time, epoch ms (a bound function: pass it where a `now` is wanted). */
  readonly now = (): number => this.base() + this.offset;

  /** What has been added to the `now` option, ms. */
  get offsetMs(): number {
    return this.offset;
  }

  advance(ms: number): void {
    this.offset += ms;
  }

  /** Moves the clock so that `now()` is `target`, epoch ms. */
  moveTo(target: number): void {
    this.offset += target - this.now();
  }
}

/** Real delays (latency, `slow` faults) that `close()` cuts short. */
export class Delays {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();
  private stopped = false;

  /** Waits `ms` (not at all when ≤ 0 or closed); a bound function. */
  readonly sleep = (ms: number): Promise<void> =>
    ms <= 0 || this.stopped
      ? Promise.resolve()
      : new Promise((resolve) => {
          const timer = setTimeout(() => {
            this.pending.delete(timer);
            resolve();
          }, ms);
          this.pending.set(timer, resolve);
        });

  get closed(): boolean {
    return this.stopped;
  }

  /** Wakes every pending delay; later ones end at once. */
  close(): void {
    this.stopped = true;
    for (const [timer, wake] of this.pending) {
      clearTimeout(timer);
      wake();
    }
    this.pending.clear();
  }
}
