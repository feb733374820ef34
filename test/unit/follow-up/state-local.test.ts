import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalStateStore } from '../../../functions/follow-up/state-local.js';
import type { StateDraft } from '../../../functions/follow-up/state.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'followup-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const common = { requestId: 'req-1', projectId: 'p', jobId: 'j', promptLength: 1, promptSha256: 'x', failures: 0, attempts: 0, expiresAt: 0 };
const claimed = (owner = 'o'): StateDraft => ({ ...common, phase: 'claimed', owner, leaseExpiresAt: 0, pendingSince: 0, before: { status: 'completed', prLink: null } });
const pending = (): StateDraft => ({ ...common, phase: 'pending', pendingSince: 0 });

describe('local state store', () => {
  it('lets exactly one of many concurrent creators claim a request', async () => {
    const store = createLocalStateStore(dir);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.put(claimed(`o${i}`), undefined)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await store.get('req-1'))?.version).toBe(1);
  });

  it('updates only from the expected version', async () => {
    const store = createLocalStateStore(dir);
    await store.put(claimed(), undefined);
    const [a, b] = await Promise.all([store.put(pending(), 1), store.put(claimed('other'), 1)]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await store.put(pending(), 1)).toBeUndefined();
    expect((await store.get('req-1'))?.version).toBe(2);
  });

  it('leaves no temp or lock files after won and lost writes', async () => {
    const store = createLocalStateStore(dir);
    await store.put(claimed(), undefined);
    await store.put(claimed('late'), undefined);
    await store.put(pending(), 1);
    await store.put(pending(), 7);
    expect(await readdir(dir)).toEqual(['req-1.json']);
  });
});
