/**
 * The page's style: no width from 360 px up scrolls sideways — every column visible from 821 px,
 * below that tables become stacked cards with each value labelled, a long one showing its top 5
 * rows and a "show all" toggle (so a tablet's page is no longer than a phone's); on a phone
 * (≤ 640 px) charts show their narrow drawing, bars put their label above them, nothing needs hover (definitions are footnotes); dark mode from prefers-color-scheme;
 * print without backgrounds or cut sections.
 */
export const STYLE = `
:root { color-scheme: light dark; --text: #1e293b; --muted: #64748b; --line: #e2e8f0; --bg: #f8fafc; --panel: #fff; --chip: #e0e7ff; --link: #1d4ed8;
  --good: #15803d; --bad: #b91c1c; --bar: #0f766e; --ai: #d97706; }
@media (prefers-color-scheme: dark) {
  :root { --text: #e2e8f0; --muted: #94a3b8; --line: #334155; --bg: #0f172a; --panel: #1e293b; --chip: #312e81; --link: #93c5fd;
    --good: #4ade80; --bad: #f87171; --bar: #2dd4bf; --ai: #fbbf24; }
  figure.chart { background: #f8fafc; border-radius: 6px; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--link); }
header, main, footer { max-width: 1180px; margin: 0 auto; padding: 0 16px; }
header { padding-top: 24px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 0 0 4px; }
h3 { font-size: 15px; margin: 16px 0 8px; }
.meta, .note, footer, .muted { color: var(--muted); font-size: 13px; }
.action { margin: 0 0 12px; font-size: 13px; }
.fill pre { margin: 8px 0; padding: 8px 10px; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; }
.project { display: inline-block; background: var(--chip); border-radius: 4px; padding: 0 6px; margin-right: 2px; }
section { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; margin: 16px 0; }
.cards { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; min-width: 0; }
.card .label { color: var(--muted); font-size: 12px; }
.card .value { font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
.def { display: inline-block; margin-left: 4px; width: 16px; height: 16px; line-height: 16px; text-align: center; border-radius: 50%; background: var(--line); color: var(--muted); font-size: 11px; text-decoration: none; vertical-align: 1px; }
.delta { font-size: 12px; }
.delta.good, .tone-good { color: var(--good); } .delta.bad, .tone-bad { color: var(--bad); } .delta.flat, .tone-flat { color: var(--muted); }
.tag.new { font-size: 11px; border: 1px solid currentColor; border-radius: 3px; padding: 0 4px; }
figure.chart { margin: 0; }
.chart-legend { list-style: none; margin: 0 0 4px; padding: 0; color: #1e293b; display: flex; flex-wrap: wrap; gap: 2px 16px; font-size: 12px; }
.chart-legend li { display: inline-flex; align-items: center; gap: 6px; white-space: nowrap; }
.chart-legend .key { display: inline-block; width: 18px; border-top: 2px solid; }
.chart-legend .key.faint { border-top-style: dashed; opacity: 0.6; }
figure.chart svg { display: block; width: 100%; height: auto; }
.chart-narrow { display: none; }
@media (max-width: 640px) { .chart-wide { display: none; } .chart-narrow { display: block; } }
table.data { width: 100%; border-collapse: collapse; margin-top: 8px; font-size: 13px; table-layout: auto; }
table.data th, table.data td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.data th { font-size: 12px; font-weight: 600; white-space: normal; }
table.data .num { text-align: right; font-variant-numeric: tabular-nums; }
table.data td.num { white-space: nowrap; }
table.data td:first-child { overflow-wrap: break-word; word-break: normal; min-width: 12ch; }
.table-wrap { width: 100%; }
.path, .term { overflow-wrap: anywhere; }
.empty { color: var(--muted); font-style: italic; }
.quote { font-style: italic; }
ul.comments { margin: 0; padding-left: 16px; max-width: 36ch; }
.bars { list-style: none; margin: 8px 0; padding: 0; }
.bars li { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr) auto; gap: 8px; align-items: center; padding: 2px 0; }
.bar-label { overflow-wrap: break-word; font-size: 13px; min-width: 0; }
.bar-track { background: var(--line); border-radius: 3px; height: 12px; overflow: hidden; }
.bar { display: block; height: 100%; background: var(--bar); }
.bars.bad .bar { background: var(--bad); } .bars.ai .bar { background: var(--ai); }
.bar-value { font-size: 12px; color: var(--muted); font-variant-numeric: tabular-nums; white-space: nowrap; }
.movers { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 12px; margin-top: 12px; }
.movers ul { margin: 0; padding-left: 16px; font-size: 13px; }
.movers li { overflow-wrap: anywhere; } .mover-group { min-width: 0; }
.more-toggle, .more-label { display: none; }
.calendar-wrap { width: 100%; }
table.calendar { border-collapse: separate; border-spacing: 2px; font-size: 10px; width: 100%; table-layout: fixed; }
table.calendar th { font-weight: normal; color: var(--muted); text-align: left; padding: 0 4px 0 0; white-space: nowrap; overflow: visible; }
table.calendar thead th { text-align: left; padding: 0; }
table.calendar tbody th, table.calendar thead th:first-child { width: 112px; }
table.calendar td { height: 16px; border-radius: 3px; min-width: 2px; }
table.calendar td.anomaly { color: #fff; font-weight: 700; text-align: center; font-size: 11px; line-height: 16px; }
.s-complete { background: #16a34a; } .s-provisional { background: #86efac; } .s-drift { background: #7c3aed; } .s-partial { background: #f59e0b; }
.s-missing { background: #cbd5e1; } .s-failed { background: #dc2626; }
.s-expired { background: repeating-linear-gradient(45deg, #cbd5e1 0 3px, #64748b 3px 6px); }
.legend { margin-right: 12px; font-size: 12px; white-space: nowrap; } .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; }
.problems { font-size: 13px; }
dl.definitions { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; font-size: 13px; }
dl.definitions dt { font-weight: 600; } dl.definitions dd { margin: 0; }
dl.definitions dt:target, dl.definitions dt:target + dd { background: var(--chip); }
footer { padding-bottom: 24px; }
@media (max-width: 900px) { .cards { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
@media (max-width: 820px) {
  table.data thead { display: none; }
  table.data, table.data tbody, table.data tr, table.data td { display: block; width: 100%; }
  table.data tr { border-bottom: 1px solid var(--line); padding: 6px 0; }
  table.data td { border: 0; padding: 2px 0; display: flex; justify-content: space-between; gap: 12px; text-align: right; min-width: 0; }
  table.data td::before { content: attr(data-label); color: var(--muted); text-align: left; flex: 0 0 auto; }
  table.data td:first-child { display: block; text-align: left; font-weight: 600; }
  table.data td:first-child::before { content: none; }
  table.data .num { white-space: normal; }
  table.data td.wide { display: block; text-align: left; }
  table.data td.wide::before { display: block; }
  ul.comments { max-width: none; text-align: left; }
  /* A long table keeps its top rows wherever its rows stack (phone and tablet); the rest is a tap away (no script). */
  .more-toggle:not(:checked) + .table-wrap tbody tr:nth-child(n+6) { display: none; }
  .more-label { display: inline-block; margin-top: 4px; color: var(--link); text-decoration: underline; cursor: pointer; font-size: 13px; }
  .more-toggle:checked + .table-wrap + .more-label { display: none; }
}
@media (max-width: 640px) {
  section { padding: 12px; border-radius: 0; margin: 12px -16px; }
  .bars li { grid-template-columns: minmax(0, 1fr) auto; }
  .bar-label { grid-column: 1 / -1; }
  .movers { grid-template-columns: 1fr; }
  dl.definitions { grid-template-columns: 1fr; }
  dl.definitions dd { margin-bottom: 8px; }
}
@media print {
  :root { --bg: #fff; --panel: #fff; --text: #000; }
  body { font-size: 11px; }
  section { break-inside: avoid; border: 0; padding: 8px 0; }
  .def { display: none; }
  a { color: inherit; text-decoration: none; }
}
`;
