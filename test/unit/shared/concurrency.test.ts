/** `eachAtOnce` and `gate` (functions/shared/concurrency.ts): the bound, the order, and how a failure or a stop ends the work. */
import { describe, expect, it } from 'vitest';
import { eachAtOnce, gate } from '../../../functions/shared/concurrency.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('eachAtOnce', () => {
  it('runs every item, in order, never more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await eachAtOnce(
      Array.from({ length: 20 }, (_, i) => i),
      3,
      async (item) => {
        started.push(item);
        running += 1;
        most = Math.max(most, running);
        await tick();
        running -= 1;
      },
    );
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(3);
  });

  it('after the first failure starts nothing more, aborts the runs in flight, and rejects with that failure once they ended', async () => {
    const started: number[] = [];
    let inFlight = 0;
    const aborted: number[] = [];
    const done = eachAtOnce(
      Array.from({ length: 50 }, (_, i) => i),
      4,
      async (item, signal) => {
        started.push(item);
        inFlight += 1;
        try {
          if (item === 5) throw new Error('item 5 failed');
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, 50);
            signal.addEventListener('abort', () => {
              clearTimeout(timer);
              aborted.push(item);
              reject(new Error('aborted'));
            });
          });
        } finally {
          inFlight -= 1;
        }
      },
    );
    await expect(done).rejects.toThrow('item 5 failed');
    expect(inFlight, 'nothing in flight once it rejected').toBe(0);
    expect(Math.max(...started)).toBeLessThan(9);
    expect(aborted.length).toBeGreaterThan(0);
  });

  it("stops at the caller's signal with its reason", async () => {
    const stop = new AbortController();
    const started: number[] = [];
    const done = eachAtOnce(
      Array.from({ length: 10 }, (_, i) => i),
      1,
      async (item) => {
        started.push(item);
        if (item === 2) stop.abort(new Error('stopped by the user'));
        await tick();
      },
      { signal: stop.signal },
    );
    await expect(done).rejects.toThrow('stopped by the user');
    expect(started).toEqual([0, 1, 2]);
  });

  it('does nothing for no items, and runs one at a time for a limit under 1', async () => {
    await eachAtOnce([], 4, async () => {
      throw new Error('never');
    });
    const order: number[] = [];
    await eachAtOnce([1, 2, 3], 0, async (item) => {
      order.push(item);
    });
    expect(order).toEqual([1, 2, 3]);
  });
});

describe('gate', () => {
  it('holds callers that do not know of each other to the bound, in the order they asked, each run getting its own result', async () => {
    const through = gate(2);
    let running = 0;
    let most = 0;
    const started: string[] = [];
    const run = (name: string) =>
      through(async () => {
        started.push(name);
        running += 1;
        most = Math.max(most, running);
        await tick();
        running -= 1;
        return name.toUpperCase();
      });
    // Two groups of callers, each with its own bound of three: the gate's two hold for all.
    const results = await Promise.all([
      eachAtOnce(['a', 'b', 'c'], 3, async (name) => void (await run(name))),
      eachAtOnce(['d', 'e', 'f'], 3, async (name) => void (await run(name))),
      run('g'),
    ]);
    expect(most).toBe(2);
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(results[2]).toBe('G');
  });

  it('gives the slot of a failed run to the next caller and passes the failure to its own caller', async () => {
    const through = gate(1);
    const failed = through(async () => {
      await tick();
      throw new Error('broken');
    });
    const next = through(async () => 'ran');
    await expect(failed).rejects.toThrow('broken');
    await expect(next).resolves.toBe('ran');
    // No slot leaked: a third run still starts.
    await expect(through(async () => 'again')).resolves.toBe('again');
  });
});
