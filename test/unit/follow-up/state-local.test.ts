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

const draft = (extra: Partial<StateDraft> = {}): StateDraft => ({
  requestId: 'req-1', phase: 'claimed', projectId: 'p', jobId: 'j', promptLength: 1, promptSha256: 'x', failures: 0, attempts: 0, polls: 0, expiresAt: 0, ...extra,
});

describe('local state store', () => {
  it('lets exactly one of many concurrent creators claim a request', async () => {
    const store = createLocalStateStore(dir);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.put(draft({ owner: `o${i}` }), undefined)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await store.get('req-1'))?.version).toBe(1);
  });

  it('updates only from the expected version', async () => {
    const store = createLocalStateStore(dir);
    await store.put(draft(), undefined);
    const [a, b] = await Promise.all([store.put(draft({ phase: 'sent' }), 1), store.put(draft({ phase: 'pending' }), 1)]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await store.put(draft(), 1)).toBeUndefined();
    expect((await store.get('req-1'))?.version).toBe(2);
  });

  it('deletes only from the expected version and leaves no temp or lock files', async () => {
    const store = createLocalStateStore(dir);
    await store.put(draft(), undefined);
    expect(await store.delete('req-1', 7)).toBe(false);
    expect(await store.delete('req-1', 1)).toBe(true);
    expect(await store.get('req-1')).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });
});
