import { describe, expect, it } from 'vitest';
import { EXPORT_METRICS, EXPORT_SERVICE, FOLLOWUP_METRICS, FOLLOWUP_SERVICE, METRICS_NAMESPACE } from '../../functions/shared/metric-names.js';
import { synthStack, synthTemplate } from '../helpers/synth.js';

type Resource = { Type: string; Properties: Record<string, any> };

const template = synthTemplate({ projectIds: 'proj_a' });
const resources = template.toJSON().Resources as Record<string, Resource>;

/** The dashboard body as JSON, CloudFormation tokens replaced by placeholders. */
function dashboardBody(): { widgets: { type: string; properties: Record<string, any> }[] } {
  const dashboards = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
  expect(dashboards).toHaveLength(1);
  const body = dashboards[0]!.Properties.DashboardBody;
  const parts: unknown[] = body['Fn::Join'][1];
  const text = parts.map((part) => (typeof part === 'string' ? part : `TOKEN_${Object.keys(part as object)[0]}`)).join('');
  return JSON.parse(text);
}

/** Every metric array of every graph widget: [namespace, name, dim, value, …, options?]. */
function widgetMetrics(): { title: string; metric: unknown[] }[] {
  return dashboardBody()
    .widgets.filter((w) => w.type === 'metric' && Array.isArray(w.properties.metrics))
    .flatMap((w) => (w.properties.metrics as unknown[][]).map((metric) => ({ title: String(w.properties.title), metric })));
}

/** What the functions publish, by service: the same constants their handlers use. */
const PUBLISHED: Record<string, readonly string[]> = {
  [EXPORT_SERVICE]: Object.values(EXPORT_METRICS),
  [FOLLOWUP_SERVICE]: Object.values(FOLLOWUP_METRICS),
};

describe('operations dashboard', () => {
  it('has graphs for units, requests against the budget, backlog, missing days, budget waits, follow-ups, queues, errors and duration', () => {
    const titles = dashboardBody().widgets.map((w) => w.properties.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Alarms',
        'Export units per hour',
        'Analytics requests per hour vs the budget',
        'Backlog and missing days',
        'Budget waits and 429s',
        'Follow-ups: sent, deferred, uncertain, dead-lettered',
        'Queues: follow-up dead letters, export failures',
        'Function errors',
        'Function duration (max)',
      ]),
    );
  });

  it('reads only custom metrics that a function publishes, in the namespace and with the service dimension it uses', () => {
    const custom = widgetMetrics().filter(({ metric }) => metric[0] === METRICS_NAMESPACE);
    expect(custom.length).toBeGreaterThanOrEqual(12);
    for (const { title, metric } of custom) {
      const [, name, dimension, service] = metric as [string, string, string, string];
      expect(dimension, `${title}: ${name}`).toBe('service');
      expect(PUBLISHED[service], `${title}: service ${service}`).toBeDefined();
      expect(PUBLISHED[service], `${title}: ${service} publishes no ${name}`).toContain(name);
    }
  });

  it('shows every export metric the function publishes somewhere', () => {
    const shown = new Set(widgetMetrics().map(({ metric }) => metric[1]));
    // The Iceberg statements' failures only with tableFormat=iceberg (the default template names no Iceberg part).
    for (const name of Object.values(EXPORT_METRICS)) if (name !== EXPORT_METRICS.icebergFailed) expect(shown, name).toContain(name);
    expect(shown).not.toContain(EXPORT_METRICS.icebergFailed);
  });

  it('draws the budget as a line on the requests graph', () => {
    const widget = dashboardBody().widgets.find((w) => w.properties.title === 'Analytics requests per hour vs the budget');
    expect(widget?.properties.annotations.horizontal).toEqual([expect.objectContaining({ value: 90, label: 'budget 90/1h' })]);
    // 30 per 30 minutes is 60 an hour.
    const { template: other } = synthStack({ projectIds: 'p', budget: '30/30m' });
    expect(JSON.stringify(other.toJSON())).toContain('\\"value\\":60,\\"label\\":\\"budget 30/30m\\"');
  });

  it('watches both functions and both queues by reference', () => {
    const standard = widgetMetrics().filter(({ metric }) => metric[0] !== METRICS_NAMESPACE);
    const namespaces = new Set(standard.map(({ metric }) => metric[0]));
    expect([...namespaces].sort()).toEqual(['AWS/Lambda', 'AWS/SQS']);
  });

  it('outputs the dashboard address', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(JSON.stringify(outputs.DashboardUrl?.Value)).toContain('#dashboards:name=');
  });
});

describe('alarm descriptions', () => {
  const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');

  it('each name its cause, a first step and its runbook entry in docs/operations.md', () => {
    expect(alarms.length).toBeGreaterThanOrEqual(7);
    for (const alarm of alarms) {
      const description = String(alarm.Properties.AlarmDescription);
      expect(description, description).toMatch(/First step: /);
      expect(description, description).toMatch(/Runbook: docs\/operations\.md → Runbook: [A-Za-z]+\./);
    }
  });

  it('point at runbook entries that exist in docs/operations.md', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const runbook = readme.slice(readme.indexOf('## Runbook'));
    for (const alarm of alarms) {
      const entry = /Runbook: [A-Za-z]+$/.exec(String(alarm.Properties.AlarmDescription).replace(/\.$/, ''))?.[0].split(': ')[1];
      expect(entry).toBeDefined();
      expect(runbook, `docs/operations.md has no runbook entry "${entry}"`).toMatch(new RegExp(`^- \\*\\*${entry}\\*\\*`, 'm'));
    }
  });

  it('only watch custom metrics that a function publishes', () => {
    for (const alarm of alarms.filter((a) => a.Properties.Namespace === METRICS_NAMESPACE)) {
      const service = alarm.Properties.Dimensions[0].Value as string;
      expect(PUBLISHED[service]).toContain(alarm.Properties.MetricName);
    }
  });
});
