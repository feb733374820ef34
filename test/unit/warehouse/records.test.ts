/** The anomaly marks' files: written merged by figure, read back through their schema. */
import { describe, expect, it } from 'vitest';
import type { Destination } from '../../../functions/shared/storage/destination.js';
import { type AnomalyFound, anomaliesKey, describeMark, readAnomalies, recordAnomalies, rewriteAnomalies } from '../../../functions/warehouse/records.js';

/** A bucket of bytes by key: the two calls the records make of a destination. */
function memoryDestination(): Pick<Destination, 'get' | 'put' | 'delete'> & { files: Map<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>();
  return {
    files,
    delete: async (key) => {
      files.delete(key);
    },
    get: async (key) => files.get(key),
    put: async (key, body) => {
      files.set(key, typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
    },
  };
}

const found: AnomalyFound = { projectId: 'proj_a', day: '2026-11-20', figure: 'human', value: 50, usual: 505, direction: 'drop' };

describe('anomaly marks', () => {
  it('keeps a file per day and project under _insights/anomalies', () => {
    expect(anomaliesKey('2026-11-20', 'proj_a')).toBe('_insights/anomalies/dt=2026-11-20/proj_a.json');
  });

  it('reads back what it wrote, with the dataset and label of the figure', async () => {
    const destination = memoryDestination();
    await recordAnomalies(destination, [found]);
    const marks = await readAnomalies(destination, ['2026-11-20'], ['proj_a']);
    expect(marks).toEqual([{ ...found, dataset: 'visitors', label: 'human visitors' }]);
    expect(describeMark(marks[0]!)).toBe('human visitors 50 vs usual 505 (10 %)');
  });

  it('merges by figure: writing again changes nothing, another figure is added', async () => {
    const destination = memoryDestination();
    await recordAnomalies(destination, [found]);
    await recordAnomalies(destination, [found, { ...found, figure: 'views', value: 900, usual: 300, direction: 'rise' }]);
    const marks = await readAnomalies(destination, ['2026-11-20'], ['proj_a']);
    expect(marks.map((mark) => [mark.figure, mark.dataset, mark.direction])).toEqual([
      ['human', 'visitors', 'drop'],
      ['views', 'views', 'rise'],
    ]);
  });

  it('skips the entries that are not marks, keeps the others as they are', async () => {
    const destination = memoryDestination();
    const good = {
      projectId: 'proj_a',
      day: '2026-11-20',
      figure: 'someday',
      dataset: 'visitors',
      label: 'x',
      value: 1,
      usual: 2,
      direction: 'rise',
      extra: true,
    };
    const entries = [good, { ...good, usual: 0 }, { ...good, direction: 'sideways' }, { ...good, value: '1' }, { ...good, label: undefined }, null, 'mark'];
    destination.files.set(anomaliesKey('2026-11-20', 'proj_a'), Buffer.from(JSON.stringify(entries)));
    expect(await readAnomalies(destination, ['2026-11-20'], ['proj_a'])).toEqual([good]);
  });

  it('reads nothing from a file that is absent, not JSON or not an array', async () => {
    const destination = memoryDestination();
    destination.files.set(anomaliesKey('2026-11-20', 'proj_a'), Buffer.from('{not json'));
    destination.files.set(anomaliesKey('2026-11-21', 'proj_a'), Buffer.from('{"projectId":"proj_a"}'));
    expect(await readAnomalies(destination, ['2026-11-20', '2026-11-21', '2026-11-22'], ['proj_a'])).toEqual([]);
  });

  it("rewrites a checked day's marks from what the check found: a fixed figure loses its mark, an unchecked one keeps it", async () => {
    const destination = memoryDestination();
    const views: AnomalyFound = { ...found, figure: 'views', value: 900, usual: 300, direction: 'rise' };
    await recordAnomalies(destination, [found, views]);
    // A re-export fixed the day's visitors: checked again, human visitors is no anomaly now.
    await rewriteAnomalies(destination, [{ projectId: 'proj_a', day: '2026-11-20', figures: ['human'] }], []);
    expect((await readAnomalies(destination, ['2026-11-20'], ['proj_a'])).map((mark) => mark.figure)).toEqual(['views']);
    // Then views too: no mark is left, and no file.
    await rewriteAnomalies(destination, [{ projectId: 'proj_a', day: '2026-11-20', figures: ['views'] }], []);
    expect(await readAnomalies(destination, ['2026-11-20'], ['proj_a'])).toEqual([]);
    expect(destination.files.has(anomaliesKey('2026-11-20', 'proj_a'))).toBe(false);
    // A day checked again that is still an anomaly keeps (rewrites) its mark.
    await rewriteAnomalies(destination, [{ projectId: 'proj_a', day: '2026-11-20', figures: ['human'] }], [found]);
    expect((await readAnomalies(destination, ['2026-11-20'], ['proj_a'])).map((mark) => mark.value)).toEqual([50]);
  });
});
