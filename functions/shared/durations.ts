/**
 * The one duration formatter: every wait, window and countdown the project prints goes through
 * `formatDuration`, in the style that fits where it is read.
 *
 * | style      | for                                   | examples                         |
 * |------------|---------------------------------------|----------------------------------|
 * | `precise`  | budget waits, plans (the default)     | `1 h 05 min`, `3 min 20 s`, `12 s` |
 * | `retry`    | a retry's pause (seconds to minutes)  | `0.3 s`, `12 s`, `5 min`         |
 * | `coarse`   | long limits (minutes to days)         | `6 min`, `1.5 h`, `24 h`         |
 * | `clock`    | a countdown that ticks                | `12:34`, `1:02:03`               |
 * | `window`   | a budget window, as `ANALYTICS_BUDGET` writes it | `1h`, `30m`, `20s`, `1d` |
 *
 * Durations come from outside too (a `Retry-After` of 10^26 ms, a date far away): from two days
 * on they are written in days, and from `MAX_SHOWN_MS` on (or when not finite) as
 * `over 999 days` — never `1.6666666666666665e+21 min`. A negative duration is 0.
 */

export type DurationStyle = 'precise' | 'retry' | 'coarse' | 'clock' | 'window';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The longest duration written as a number; anything longer (or not finite) is `over 999 days`. */
export const MAX_SHOWN_MS = 999 * DAY;

/** `ms` (milliseconds, ≥ 0) as text in `style`. @default style 'precise' */
export function formatDuration(rawMs: number, style: DurationStyle = 'precise'): string {
  if (!(rawMs <= MAX_SHOWN_MS)) return Number.isNaN(rawMs) ? '0 s' : 'over 999 days';
  const ms = Math.max(0, rawMs);
  if (ms >= 2 * DAY && style !== 'window') return days(ms);
  switch (style) {
    case 'precise': {
      const seconds = Math.ceil(ms / SECOND);
      const h = Math.floor(seconds / 3600);
      const m = Math.floor((seconds % 3600) / 60);
      const s = seconds % 60;
      if (h > 0) return `${h} h ${pad(m)} min`;
      if (m > 0) return `${m} min ${pad(s)} s`;
      return `${s} s`;
    }
    case 'retry':
      if (ms < 10 * SECOND) return `${(ms / SECOND).toFixed(1)} s`;
      if (ms < 2 * MINUTE) return `${Math.round(ms / SECOND)} s`;
      return `${Math.round(ms / MINUTE)} min`;
    case 'coarse': {
      // Never "0 min" or "0 h": a wait as people write it.
      const minutes = ms / MINUTE;
      if (minutes < 60) return `${Math.max(1, Math.round(minutes))} min`;
      return `${Math.round((minutes / 60) * 10) / 10} h`;
    }
    case 'clock': {
      const seconds = Math.ceil(ms / SECOND);
      const h = Math.floor(seconds / 3600);
      const m = Math.floor((seconds % 3600) / 60);
      const s = pad(seconds % 60);
      return h > 0 ? `${h}:${pad(m)}:${s}` : `${m}:${s}`;
    }
    case 'window':
      for (const [unit, size] of [
        ['d', DAY],
        ['h', HOUR],
        ['m', MINUTE],
      ] as const) {
        if (ms % size === 0) return `${ms / size}${unit}`;
      }
      return `${Math.round(ms / SECOND)}s`;
  }
}

/** Two days or more: whole days and hours, `3 d 04 h`. */
function days(ms: number): string {
  const hours = Math.ceil(ms / HOUR);
  return `${Math.floor(hours / 24)} d ${pad(hours % 24)} h`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
