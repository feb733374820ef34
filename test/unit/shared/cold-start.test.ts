/** A Lambda entry point built on its first invocation, once, and again after a failed build. */
import { describe, expect, it } from 'vitest';
import { builtOnFirstUse } from '../../../functions/shared/cold-start.js';

describe('builtOnFirstUse', () => {
  it('builds nothing until the first invocation, then once for every invocation after it', async () => {
    let builds = 0;
    const handler = builtOnFirstUse(() => {
      builds += 1;
      return async (event: number) => event * 2;
    });
    expect(builds).toBe(0);

    expect(await Promise.all([handler(1), handler(2)])).toEqual([2, 4]);
    expect(await handler(3)).toBe(6);
    expect(builds).toBe(1);
  });

  it('a build that fails fails its invocation and is tried again on the next one', async () => {
    let builds = 0;
    const handler = builtOnFirstUse(async () => {
      builds += 1;
      if (builds === 1) throw new Error('the secret could not be read');
      return async () => 'ok';
    });

    await expect(handler()).rejects.toThrow('the secret could not be read');
    expect(await handler()).toBe('ok');
    expect(await handler()).toBe('ok');
    expect(builds).toBe(2);
  });

  it('a build that throws at once is a rejected invocation, not a thrown one', async () => {
    const handler = builtOnFirstUse((): (() => Promise<void>) => {
      throw new Error('EXPORT_STATE_TABLE is not set');
    });
    const invocation = handler();
    expect(invocation).toBeInstanceOf(Promise);
    await expect(invocation).rejects.toThrow('EXPORT_STATE_TABLE is not set');
  });
});
