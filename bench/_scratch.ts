import { createSandboxData } from '../sandbox/index.js';
const d = createSandboxData();
for (const ds of ['assistant','searches','feedback'] as const) {
  const t = performance.now();
  let bytes = 0, n = 0;
  for (const r of d.iterateRows(ds, 'proj_synth_20000', '2026-01-15')) { bytes += JSON.stringify(r).length; n++; }
  console.log(ds, n, bytes / n, (performance.now() - t).toFixed(0), 'ms');
}
