/**
 * One writer per unit: a run leases a unit before its first request and holds the lease until
 * its manifest is written; another run skips the unit (or waits) while the lease is held.
 *
 * A lease expires after `ttlMs` unless renewed, so a run that crashed or timed out frees its
 * units for the next run without anyone cleaning up. Each acquisition carries its own random
 * token: a lease that expired and was taken over — even by a run with the same owner name —
 * can no longer be renewed or released through the old handle, which is how a slow run learns
 * (LeaseLostError) that it must stop writing the unit.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ConfigError } from '../errors.js';
import { LeaseLostError } from './errors.js';
import { checkStoreKey, type SharedStore } from '../storage/shared-store.js';

export interface Lease {
  readonly key: string;
  readonly owner: string;
  /** Extends the lease by ttl; throws LeaseLostError when it expired and another owner took it (or it is gone). */
  renew(): Promise<void>;
  /** Gives it up; no error when it is already gone or another's. */
  release(): Promise<void>;
}

export interface LeaseHolder {
  readonly owner: string;
  readonly expiresAt: number;
}

export interface Leases {
  /** Takes the lease on `key` when free or expired; undefined when another owner holds it now. */
  tryAcquire(key: string): Promise<Lease | undefined>;
  /** Who holds `key` now, if anyone (for status output). */
  holder(key: string): Promise<LeaseHolder | undefined>;
}

/** The stored lease document. */
interface LeaseDoc {
  readonly owner: string;
  /** Epoch ms; the lease is free from this instant on. */
  readonly expiresAt: number;
  /** Random per acquisition: tells this acquisition from a later one by the same owner. */
  readonly token: string;
}

const DEFAULT_TTL_MS = 10 * 60_000;

/**
 * How long past its expiry another owner's lease still counts as held: runs of one deployment
 * read each other's times with their own clocks (a laptop sharing the Lambda's ledger), and a
 * clock a little fast must not take a unit another run is still writing. Clocks further off
 * are corrected or refused from the API's `Date` header (clock-skew.ts).
 */
export const LEASE_SKEW_TOLERANCE_MS = 2 * 60_000;

/**
 * Lease documents live under `lease/<key>` in the store. owner: e.g. `${hostname}:${pid}:${random}`. ttlMs default 10 minutes.
 *
 * A lease whose holder ran on this machine and whose process is gone (killed, crashed) is free
 * at once rather than after its expiry: otherwise a re-run right after a `kill -9` would skip
 * the unit for ten minutes. Holders elsewhere (another machine, a Lambda) only expire.
 */
export function createLeases(
  store: SharedStore,
  options: { owner: string; ttlMs?: number; now?: () => number; isHolderGone?: (owner: string) => boolean },
): Leases {
  const { owner } = options;
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  const now = options.now ?? Date.now;
  if (owner.trim() === '') throw new ConfigError('a lease owner must not be empty: use newLeaseOwner()');
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new ConfigError(`lease ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
  const docKey = (key: string) => checkStoreKey(`lease/${key}`);
  const isHolderGone = options.isHolderGone ?? isLocalProcessGone;
  const isLive = (doc: LeaseDoc | undefined, at: number): doc is LeaseDoc =>
    doc !== undefined && doc.expiresAt + LEASE_SKEW_TOLERANCE_MS > at && !isHolderGone(doc.owner);

  function handle(key: string, storeKey: string, token: string): Lease {
    return {
      key,
      owner,
      async renew() {
        const outcome = await store.update<LeaseDoc, { readonly ours: boolean; readonly holder?: string }>(storeKey, (current) =>
          // Still ours, even past its expiry: nobody took it, so nobody else has written the unit.
          current?.token === token
            ? { value: { ...current, expiresAt: now() + ttlMs }, result: { ours: true } }
            : { value: current, result: current ? { ours: false, holder: current.owner } : { ours: false } },
        );
        if (!outcome.ours) {
          const what = outcome.holder === undefined ? 'is gone' : `expired and is now held by ${outcome.holder}`;
          throw new LeaseLostError(`The lease on ${key} ${what}: stop writing this unit; the run holding it (or a later one) finishes it`);
        }
      },
      async release() {
        await store.update<LeaseDoc, void>(storeKey, (current) => ({
          value: current?.token === token ? undefined : current,
          result: undefined,
        }));
      },
    };
  }

  return {
    async tryAcquire(key) {
      const storeKey = docKey(key);
      const token = randomBytes(8).toString('hex');
      const won = await store.update<LeaseDoc, boolean>(storeKey, (current) => {
        const at = now();
        if (isLive(current, at) && current.owner !== owner) return { value: current, result: false };
        return { value: { owner, expiresAt: at + ttlMs, token }, result: true };
      });
      return won ? handle(key, storeKey, token) : undefined;
    },

    async holder(key) {
      const doc = await store.get<LeaseDoc>(docKey(key));
      return isLive(doc, now()) ? { owner: doc.owner, expiresAt: doc.expiresAt } : undefined;
    },
  };
}

/**
 * Whether `owner` (as made by `newLeaseOwner`) is a process of this machine that no longer
 * exists. Anything else — another host, a Lambda's owner, a live process — is not gone.
 */
export function isLocalProcessGone(owner: string): boolean {
  const match = /^(.+):(\d+):[0-9a-f]+$/.exec(owner);
  if (!match || match[1] !== hostname()) return false;
  const pid = Number(match[2]);
  return pid !== process.pid && !isProcessAlive(pid);
}

/** Whether a process with this id exists on this machine (signal 0 checks without sending; EPERM: it exists but is another user's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** `<hostname>:<pid>:<random>`: names the run in status output; unique even across machines. */
export function newLeaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}
