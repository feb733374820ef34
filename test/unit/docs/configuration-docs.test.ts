/**
 * The settings table (functions/settings/config.ts `SETTINGS`) is the one place a variable is
 * written: docs/configuration.md's table is the one `npm run docs` generates from it, each
 * default is a value its own validator accepts, and each function parses only its own rows.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULTS, ENV_DEFAULTS, loadConfig, loadConfigFor } from '../../../functions/settings/config.js';
import { SETTINGS } from '../../../functions/settings/table.js';
import { SETTINGS_MARKERS, settingsReference, withSettingsReference } from '../../../scripts/settings-reference.js';
import { COST_MARKERS, costReference, withCostReference } from '../../../scripts/cost-reference.js';
import { DATASET_CATALOG, DATASET_NAMES, typicalPagesPerDay } from '../../../functions/warehouse/catalog.js';

const read = (relative: string) => readFile(new URL(`../../../${relative}`, import.meta.url), 'utf8');

describe('the table of variables of docs/configuration.md', () => {
  it('is the one generated from the settings table (run `npm run docs` after changing a variable)', async () => {
    const doc = await read('docs/configuration.md');

    expect(doc.includes(SETTINGS_MARKERS.begin) && doc.includes(SETTINGS_MARKERS.end), 'docs/configuration.md keeps its markers').toBe(true);
    expect(withSettingsReference(doc) === doc, 'docs/configuration.md is stale: run `npm run docs`').toBe(true);
  });

  it('names every variable once, in the order of the table, with the functions that read it', () => {
    const names = [...settingsReference().matchAll(/^\| `([A-Z0-9_]+)` \|.*\| ([^|]+) \|$/gm)].map((m) => [m[1], m[2]]);

    expect(names.map(([name]) => name)).toEqual(Object.values(SETTINGS).map((s) => s.env));
    expect(Object.fromEntries(names)).toMatchObject({ FOLLOWUP_STATE_TABLE: 'follow-up λ, CLI', EXPORT_HEAL_DAYS: 'export λ, CLI' });
  });
});

describe('the table of what a day costs, in docs/configuration.md', () => {
  it('is the one generated from the dataset catalog, its typical days included (run `npm run docs` after changing the catalog)', async () => {
    const doc = await read('docs/configuration.md');

    expect(doc.includes(COST_MARKERS.begin) && doc.includes(COST_MARKERS.end), 'docs/configuration.md keeps its markers').toBe(true);
    expect(withCostReference(doc) === doc, 'docs/configuration.md is stale: run `npm run docs`').toBe(true);
  });

  it('gives each dataset its requests and its typical day, the estimate of a unit nothing of whose dataset was exported, said to be a guess', () => {
    const table = costReference();

    for (const name of DATASET_NAMES) {
      const entry = DATASET_CATALOG[name];
      expect(table).toMatch(new RegExp(`^\\| \`${name}\` \\|.*\\| ${typicalPagesPerDay(entry)} \\|$`, 'm'));
    }
    expect(table).toContain('a guess');
    expect(table).toMatch(/\| `visitors` \| ⌈paths visited \/ 250⌉ \| 2,000 paths visited \| 8 \|/);
  });
});

describe('the settings table', () => {
  it('gives every variable a default its own validator accepts, and the same value loadConfig uses when it is unset', () => {
    const config = loadConfig({});

    for (const [field, value] of Object.entries(CONFIG_DEFAULTS)) {
      expect(config[field as keyof typeof config], field).toEqual(value);
    }
    expect(ENV_DEFAULTS.ANALYTICS_BUDGET).toBe('90/1h');
    expect(CONFIG_DEFAULTS.healDays).toBe(7);
  });

  it('a function reads only its own variables: a bad export variable does not stop the follow-up Lambda, and is named to the export', () => {
    const env = { EXPORT_HEAL_DAYS: 'many', FOLLOWUP_MAX_WAIT_HOURS: '2' };

    const followUp = loadConfigFor(env, 'follow-up');

    expect(followUp.followUpMaxWaitHours).toBe(2);
    expect('healDays' in followUp).toBe(false);
    expect(() => loadConfigFor(env, 'export')).toThrow(/^EXPORT_HEAL_DAYS must be a whole number from 0 to 31 \(got "many"\)/);
  });

  it('the CLI reads every variable', () => {
    expect(() => loadConfig({ FOLLOWUP_MAX_WAIT_HOURS: '0' })).toThrow(/^FOLLOWUP_MAX_WAIT_HOURS must be a number above 0/);
  });
});
