/**
 * `/assistant/caller-stats`' data: every assistant turn of the window (assistant.ts) is one
 * query; each day's turns are split into `web` (≈ 70–85 %), `api` and `other`, so `total` =
 * the window's turns. One row per window.
 */
import type { AssistantData } from './assistant.js';
import { mix, unit } from './hash.js';
import type { DatasetGenerator } from './windowed.js';

/** `GET /v1/analytics/{projectId}/assistant/caller-stats`. */
export interface CallerStats {
  readonly web: number;
  readonly api: number;
  readonly other: number;
  /** web + api + other. */
  readonly total: number;
}

export class CallerStatsData implements DatasetGenerator<CallerStats> {
  constructor(private readonly assistant: AssistantData) {}

  rowCount(): number {
    return 1;
  }

  row(projectId: string, days: readonly string[]): CallerStats {
    return this.callerStats(projectId, days);
  }

  /** Queries of the window by caller; `total` equals the assistant's rowCount. */
  callerStats(projectId: string, days: readonly string[]): CallerStats {
    let web = 0;
    let api = 0;
    let other = 0;
    for (const day of this.assistant.turnsByDay(projectId, days)) {
      const dayWeb = Math.round(day.count * (0.7 + 0.15 * unit(mix(day.key, 1))));
      const dayApi = Math.min(day.count - dayWeb, Math.round(day.count * (0.08 + 0.12 * unit(mix(day.key, 2)))));
      web += dayWeb;
      api += dayApi;
      other += day.count - dayWeb - dayApi;
    }
    return { web, api, other, total: web + api + other };
  }
}
