/**
 * The table of environment variables of docs/configuration.md, generated from the settings
 * table (functions/settings/table.ts `SETTINGS`): name, meaning with its range, default, the
 * Lambdas that refuse to start without it, and the functions that read it.
 */
import type { Setting, SettingReader } from '../functions/settings/setting.js';
import { SETTINGS } from '../functions/settings/table.js';
import { formatCount } from '../functions/shared/format.js';
import { blockMarkers, cell, withBlock } from './generated-block.js';

export const SETTINGS_MARKERS = blockMarkers('settings-reference', 'functions/settings/table.ts');

const READER_NAMES: Record<SettingReader, string> = {
  export: 'export λ',
  'follow-up': 'follow-up λ',
  cli: 'CLI',
  insights: 'insights λ',
  'weekly-report': 'weekly report λ',
};

function rangeText(range: NonNullable<Setting<unknown>['range']>): string {
  return range.above ? `above ${range.min}, at most ${formatCount(range.max)}` : `${range.min}–${formatCount(range.max)}`;
}

/** The Markdown table of every variable. */
export function settingsReference(): string {
  const rows = Object.values(SETTINGS).map((s: Setting<unknown, string, SettingReader, SettingReader>) => {
    const meaning = s.range ? `${s.doc}, ${rangeText(s.range)}` : s.doc;
    const fallback = s.defaultDoc ?? `\`${s.default}\``;
    const readers = s.readBy.map((reader) => READER_NAMES[reader]).join(', ');
    const required = s.readBy
      .filter((reader) => s.requiredIn?.[reader] !== undefined)
      .map((reader) => READER_NAMES[reader])
      .join(', ');
    return `| \`${s.env}\` | ${cell(meaning)} | ${cell(fallback)} | ${required} | ${readers} |`;
  });
  return ['| name | meaning | default | required in | read by |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** docs/configuration.md with its table of variables regenerated. */
export function withSettingsReference(doc: string): string {
  return withBlock(doc, SETTINGS_MARKERS, settingsReference());
}
