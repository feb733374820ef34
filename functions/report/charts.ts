/**
 * Charts drawn on the server as SVG strings (Apache ECharts' server-side SVG renderer, no DOM,
 * no JavaScript in the page). ECharts escapes every text it draws (`<` becomes `&lt;`), so user
 * text in labels cannot become markup. Each chart is disposed once rendered: a live ECharts
 * instance keeps a timer that stops the Node process from exiting.
 */
import { escapeHtml } from './page/template.js';

type ECharts = typeof import('echarts/core');

/** ECharts once loaded (`loadCharts`). */
let loaded: ECharts | undefined;

/**
 * Loads ECharts, once: about half a second of module loading that only a command drawing a
 * chart pays (the CLI's other commands, `export` above all, and the Lambdas that draw nothing
 * start without it). Every chart function needs it done.
 */
export async function loadCharts(): Promise<void> {
  if (loaded) return;
  const [core, charts, components, renderers] = await Promise.all([
    import('echarts/core'),
    import('echarts/charts'),
    import('echarts/components'),
    import('echarts/renderers'),
  ]);
  core.use([charts.BarChart, charts.LineChart, components.GridComponent, components.MarkLineComponent, renderers.SVGRenderer]);
  loaded = core;
}

/** Width of every chart, px; the page is laid out for it. */
export const CHART_WIDTH = 880;
/**
 * Width of the phone drawing of every chart, px: drawn at about the width a phone shows it
 * (360–430 px), its 12 px text stays at least 11 px on the screen; the wide drawing, shrunk to
 * a phone, would be 5 px.
 */
export const NARROW_CHART_WIDTH = 360;

export const COLORS = { human: '#2563eb', ai: '#d97706', bar: '#0f766e', bad: '#b91c1c', muted: '#64748b' } as const;

/** Axis labels inside the chart: the grid shrinks to fit them (ECharts 6's successor of `containLabel`). */
const CONTAIN_LABELS = { outerBoundsMode: 'same', outerBoundsContain: 'axisLabel' } as const;

const TEXT = { color: '#1e293b', fontFamily: 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif', fontSize: 12 } as const;

function renderAt(option: Record<string, unknown>, width: number, height: number): string {
  if (!loaded) throw new Error('charts.ts: await loadCharts() before drawing a chart');
  const chart = loaded.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, textStyle: TEXT, ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** The chart drawn twice: for a wide screen and for a phone; the page's style shows one (`.chart-wide`, `.chart-narrow`). */
function render(option: Record<string, unknown>, height: number, narrowHeight = height): string {
  return `<div class="chart-wide">${renderAt(option, CHART_WIDTH, height)}</div><div class="chart-narrow">${renderAt(option, NARROW_CHART_WIDTH, narrowHeight)}</div>`;
}

export interface LineSeries {
  readonly name: string;
  readonly color: string;
  /** One value per category; null draws a gap (a day without data). */
  readonly values: readonly (number | null)[];
  /** Drawn faint and dashed, without points: a comparison (the previous period), not the data. */
  readonly faint?: boolean;
}

/** Points are marked on a line of at most this many categories (more would crowd it). */
const MAX_MARKED_POINTS = 45;

/** Whether a series' points are marked: not a faint one (a comparison), nor over many days. */
function marksPoints(series: LineSeries, categories: number): boolean {
  return !series.faint && categories <= MAX_MARKED_POINTS;
}

/**
 * Whether a series draws anything: a line needs two neighbouring values; a value between gaps
 * shows only where points are marked (a previous period with one day exported draws nothing).
 */
export function isDrawn(series: LineSeries, categories: number): boolean {
  const lone = series.values.some((v) => v !== null);
  const line = series.values.some((v, i) => v !== null && series.values[i + 1] !== undefined && series.values[i + 1] !== null);
  return line || (lone && marksPoints(series, categories));
}

/**
 * The legend of the series drawn, as HTML above the chart: it wraps like text at any width and
 * overlaps nothing (ECharts' own legend, drawn into a fixed band, ran into the axis on a phone).
 */
function legendOf(series: readonly LineSeries[]): string {
  const items = series.map(
    (s) =>
      `<li data-color="${escapeHtml(s.color.toLowerCase())}" data-dashed="${s.faint === true}"><span class="key${s.faint ? ' faint' : ''}" style="border-top-color:${escapeHtml(s.color)}"></span>${escapeHtml(s.name)}</li>`,
  );
  return `<ul class="chart-legend">${items.join('')}</ul>`;
}

/** A vertical mark on one category of a line chart: a pull request merged that day. */
export interface ChartMark {
  /** The category (day) it stands on, as the chart's axis names it. */
  readonly category: string;
  /** Its label (`merged`). */
  readonly label: string;
}

/** Lines over categories (days), with a legend of the lines drawn, and a small marked line on each of `marks`' days. */
export function lineChart(categories: readonly string[], series: readonly LineSeries[], height = 320, marks: readonly ChartMark[] = []): string {
  const drawn = series.filter((s) => isDrawn(s, categories.length));
  const shown = marks.filter((m) => categories.includes(m.category));
  return `${legendOf(drawn)}${render(
    {
      grid: { left: 16, right: 24, top: 12, bottom: 8, ...CONTAIN_LABELS },
      xAxis: { type: 'category', data: [...categories], boundaryGap: false, axisLabel: { hideOverlap: true } },
      yAxis: { type: 'value', minInterval: 1 },
      series: drawn.map((s, i) => ({
        name: s.name,
        type: 'line',
        data: [...s.values],
        color: s.color,
        showSymbol: marksPoints(s, categories.length),
        symbolSize: 5,
        lineStyle: s.faint ? { width: 1.5, type: 'dashed', opacity: 0.45 } : { width: 2 },
        connectNulls: false,
        // The merges on the first line only: one mark a day, not one per line.
        ...(i === 0 && shown.length > 0
          ? {
              markLine: {
                silent: true,
                symbol: 'none',
                lineStyle: { type: 'dotted', color: COLORS.muted, width: 1 },
                label: { formatter: '{b}', fontSize: 10, color: COLORS.muted },
                data: shown.map((m) => ({ xAxis: m.category, name: m.label })),
              },
            }
          : {}),
      })),
    },
    height,
  )}`;
}

export interface Bar {
  /** Shown on the axis (already shortened for display). */
  readonly label: string;
  readonly value: number;
  /** Shown at the end of the bar. */
  readonly note: string;
}

/** Horizontal bars, the first one on top; height grows with the number of bars. */
export function barChart(bars: readonly Bar[], color: string): string {
  const height = 40 + bars.length * 30;
  return render(
    {
      // Slack on the left: without a canvas, ECharts estimates label widths and may come short.
      grid: { left: 56, right: 150, top: 8, bottom: 8, ...CONTAIN_LABELS },
      xAxis: { type: 'value', minInterval: 1, axisLabel: { hideOverlap: true } },
      yAxis: { type: 'category', inverse: true, data: bars.map((b) => b.label), axisTick: { show: false } },
      series: [
        {
          type: 'bar',
          data: bars.map((b) => b.value),
          color,
          barMaxWidth: 20,
          label: { show: true, position: 'right', formatter: ({ dataIndex }: { dataIndex: number }) => bars[dataIndex]?.note ?? '', ...TEXT },
        },
      ],
    },
    height,
  );
}

/** Vertical bars over categories (days), e.g. requests per day. */
export function columnChart(categories: readonly string[], values: readonly number[], color: string, height = 240): string {
  return render(
    {
      grid: { left: 16, right: 24, top: 16, bottom: 8, ...CONTAIN_LABELS },
      xAxis: { type: 'category', data: [...categories], axisLabel: { hideOverlap: true } },
      yAxis: { type: 'value', minInterval: 1 },
      series: [{ type: 'bar', data: [...values], color, barMaxWidth: 18 }],
    },
    height,
  );
}
