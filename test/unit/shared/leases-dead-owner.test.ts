import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createLeases, newLeaseOwner } from '../../../functions/shared/pacing/leases.js';
import { createMemoryStore } from '../../../functions/shared/storage/shared-store.js';

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await once(child, 'exit');
  return child.pid as number;
}

describe('leases held by a process that died', () => {
  it('are taken over at once when the holder ran on this machine and its process is gone', async () => {
    const store = createMemoryStore();
    const killed = createLeases(store, { owner: `${hostname()}:${await deadPid()}:0a1b2c3d` });
    expect(await killed.tryAcquire('visitors/proj_a/2026-01-01')).toBeDefined();

    const rerun = createLeases(store, { owner: newLeaseOwner() });

    expect(await rerun.tryAcquire('visitors/proj_a/2026-01-01')).toBeDefined();
  });

  it('are left alone while the holder process on this machine is alive', async () => {
    const store = createMemoryStore();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)']);
    try {
      const live = createLeases(store, { owner: `${hostname()}:${child.pid}:0a1b2c3d` });
      expect(await live.tryAcquire('visitors/proj_a/2026-01-01')).toBeDefined();

      const other = createLeases(store, { owner: newLeaseOwner() });

      expect(await other.tryAcquire('visitors/proj_a/2026-01-01')).toBeUndefined();
    } finally {
      child.kill();
    }
  });

  it('are left alone when the holder ran elsewhere (another machine, a Lambda): only their expiry frees them', async () => {
    const store = createMemoryStore();
    for (const owner of [`another-host:${await deadPid()}:0a1b2c3d`, 'lambda:0f9e8d7c-request']) {
      const holder = createLeases(store, { owner });
      expect(await holder.tryAcquire(`unit/${owner}`)).toBeDefined();

      expect(await createLeases(store, { owner: newLeaseOwner() }).tryAcquire(`unit/${owner}`)).toBeUndefined();
    }
  });
});
