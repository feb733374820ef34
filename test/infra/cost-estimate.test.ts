/**
 * The cost estimate of docs/deploy.md is the one scripts/cost-estimate.ts makes from the
 * synthesized stack (a stale table fails here until `npm run docs`), and its arithmetic holds:
 * every cell is its quantities times the prices the page states, and each total the sum of its
 * column.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRIC_PUBLISHERS } from '../../functions/shared/metric-names.js';
import {
  costOf,
  costTable,
  linesOf,
  PRICES,
  publishedMetrics,
  RESOURCE_TYPES,
  runsPerMonth,
  SIZES,
  stackFacts,
  withCostEstimate,
  type StackFacts,
} from '../../scripts/cost-estimate.js';
import { synthStack, synthTemplate } from '../helpers/synth.js';

let stack: StackFacts;
beforeAll(() => {
  stack = stackFacts();
});

/** The cells of a row of the table, the first two (service, what) dropped. */
const cellsOf = (row: string) =>
  row
    .split(' | ')
    .slice(2)
    .map((c) => c.replace(/\s*\|\s*$/, '').replace(/\*/g, ''));
const dollars = (text: string) => (text === '< $0.01' ? 0 : Number(text.replace('$', '')));

describe('the cost estimate of docs/deploy.md', () => {
  it('is the one generated from the stack (run `npm run docs` after changing either)', async () => {
    const doc = await readFile(new URL('../../docs/deploy.md', import.meta.url), 'utf8');

    expect(withCostEstimate(doc, stack) === doc, 'docs/deploy.md is stale: run `npm run docs`').toBe(true);
  });

  it("reads the stack's schedules: the export and the insights hourly, the report weekly", () => {
    expect(runsPerMonth('cron(5 * * * ? *)')).toBeCloseTo(24 * 30.4, 6);
    expect(runsPerMonth('cron(0 6 ? * MON *)')).toBeCloseTo(30.4 / 7, 6);
    expect(runsPerMonth('rate(1 hour)')).toBeCloseTo(24 * 30.4, 6);
    expect(stack.scheduled.map((s) => Math.round(s.runsPerMonth))).toEqual([730, 730, 4]);
    expect(stack.alarms).toBeGreaterThan(0);
  });

  it("adds up: each cell is its line's quantities times the unit prices, each total the sum of its column", () => {
    const table = costTable(stack).split('\n');
    const rows = table.filter((row) => row.startsWith('| ') && !row.startsWith('| service') && !row.startsWith('| **total'));
    const totals = cellsOf(table.find((row) => row.startsWith('| **total')) as string).map(dollars);

    SIZES.forEach((size, column) => {
      const lines = linesOf(stack, size);
      expect(rows).toHaveLength(lines.length);
      lines.forEach((line, i) => {
        const shown = dollars(cellsOf(rows[i] as string)[column] as string);
        const computed = Object.entries(line.quantities).reduce((sum, [name, q]) => sum + (q ?? 0) * PRICES[name as keyof typeof PRICES].usd, 0);
        // Shown to the cent: within half a cent of the product.
        expect(Math.abs(shown - computed), `${size.name}: ${line.service} ${line.what}`).toBeLessThanOrEqual(0.005 + 1e-9);
        expect(costOf(line)).toBeCloseTo(computed, 10);
      });
      const sum = lines.reduce((s, line) => s + costOf(line), 0);
      expect(Math.abs((totals[column] as number) - sum)).toBeLessThanOrEqual(0.005 + 1e-9);
    });
    // Larger sites cost more, never less.
    expect(totals[0]).toBeLessThan(totals[1] as number);
    expect(totals[1]).toBeLessThan(totals[2] as number);
  });
});

/** Every TypeScript file under functions/, with its text. */
async function functionSources(): Promise<{ file: string; text: string }[]> {
  const root = new URL('../../functions/', import.meta.url);
  const files = (await readdir(root, { recursive: true })).filter((file) => file.endsWith('.ts'));
  return Promise.all(files.map(async (file) => ({ file, text: await readFile(new URL(file, root), 'utf8') })));
}

describe('the whole bill: what the estimate counts', () => {
  it('counts the alarms, dashboards, KMS keys, secrets, distributions, log groups and Glue objects of the synthesized template', () => {
    const template = synthTemplate({ projectIds: 'proj_a' });
    const count = (type: string) => Object.keys(template.findResources(type)).length;

    expect(stack).toMatchObject({
      alarms: count('AWS::CloudWatch::Alarm'),
      dashboards: count('AWS::CloudWatch::Dashboard'),
      kmsKeys: count('AWS::KMS::Key'),
      secrets: count('AWS::SecretsManager::Secret'),
      distributions: count('AWS::CloudFront::Distribution'),
      logGroups: count('AWS::Logs::LogGroup'),
      glueObjects: count('AWS::Glue::Database') + count('AWS::Glue::Table'),
    });
    expect(stack.alarms).toBeGreaterThan(5);
    const table = costTable(stack);
    expect(table).toContain(`${stack.dashboards} dashboard, ${stack.alarms} alarms, ${stack.customMetrics} custom metrics`);
    expect(table).toContain(`${stack.secrets} secrets`);
    expect(table).toContain(`${stack.kmsKeys} keys`);
    expect(table).toContain(`${stack.distributions} distribution(s)`);
  });

  it('prices every resource type the stack can synthesize, or says why it is free — with every option set', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { template } = synthStack({
      projectIds: 'proj_a',
      alarmEmail: 'ops@example.com',
      reportLinkPublicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    const types = new Set(Object.values(template.toJSON()['Resources'] as Record<string, { Type: string }>).map((r) => r.Type));

    expect([...types].filter((type) => RESOURCE_TYPES[type] === undefined)).toEqual([]);
    expect(types.has('AWS::CloudFront::Distribution')).toBe(true);
  });

  it('counts each custom metric the code publishes, by name and service, from the code', async () => {
    const sources = await functionSources();
    // Independently of publishedMetrics: the declared metrics whose key a function publishes (an addMetric or a count call naming it).
    const declared = METRIC_PUBLISHERS.flatMap((publisher) =>
      Object.entries(publisher.metrics).map(([key, name]) => ({ service: publisher.service, name, ref: `${publisher.group}.${key}` })),
    );
    const published = declared.filter((metric) =>
      sources.some(
        ({ file, text }) => !file.endsWith('metric-names.ts') && new RegExp(`\\b(addMetric|count)\\(\\s*${metric.ref.replace('.', '\\.')}\\b`).test(text),
      ),
    );

    expect(published.length).toBeGreaterThanOrEqual(20);
    expect(publishedMetrics()).toEqual(
      published.map(({ service, name }) => ({ service, name })).sort((a, b) => `${a.service}/${a.name}`.localeCompare(`${b.service}/${b.name}`)),
    );
    expect(stack.customMetrics).toBe(published.length);
    // Each at the list price: the CloudWatch line is its dashboards, alarms and metrics.
    const cloudWatch = linesOf(stack, SIZES[0] as (typeof SIZES)[number]).find((line) => line.service === 'CloudWatch');
    expect(costOf(cloudWatch as never)).toBeCloseTo(stack.dashboards * 3 + stack.alarms * 0.1 + published.length * 0.3, 6);
  });

  it('refuses to count metrics when a function adds a dimension (each dimension set is another metric)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'metrics-'));
    try {
      await writeFile(path.join(dir, 'handler.ts'), "metrics.addDimension('org', org);\nmetrics.addMetric(EXPORT_METRICS.requests, 'Count', 1);\n");

      expect(() => publishedMetrics(pathToFileURL(`${dir}/`))).toThrow(/handler\.ts calls addDimension/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
