// A daily series as a line chart, drawn by uPlot (small, no dependencies, canvas; README "Dashboard" says why).
// uPlot (and the chart's style) loads on first use, in its own chunk, so pages without charts never fetch it. The canvas is hidden from
// screen readers: the figure's caption names the series, a sentence sums it up, and a table holds every value.
import { useEffect, useId, useRef, useState } from 'react';
import type uPlot from 'uplot';
import { Table } from './table.js';

let loading: Promise<typeof uPlot> | null = null;
const loadUPlot = () => (loading ??= Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css'), import('./line-chart.css')]).then(([m]) => m.default));

/** Seconds since the epoch of 00:00 UTC of a `YYYY-MM-DD` day (uPlot's time axis counts seconds). */
const daySeconds = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000;

/** One sentence a screen reader (or anyone) can take in instead of the lines. */
export function summarize(dates: readonly string[], values: readonly number[]): string {
  if (values.length === 0) return 'No values.';
  const total = values.reduce((a, b) => a + b, 0);
  let top = 0;
  values.forEach((v, i) => { if (v > values[top]!) top = i; });
  const fmt = (n: number) => n.toLocaleString('en');
  return `${dates.length} days from ${dates[0]} to ${dates.at(-1)}: total ${fmt(total)}, highest ${fmt(values[top]!)} on ${dates[top]}, last day ${fmt(values.at(-1)!)}.`;
}

/**
 * `<LineChart title="Points awarded" dates={['2026-01-01', …]} values={[3, …]} />`: one value per day, oldest
 * first. The line wears the org's accent.
 */
export function LineChart({ title, dates, values, height = 160 }: { title: string; dates: readonly string[]; values: readonly number[]; height?: number }) {
  const captionId = useId();
  const summaryId = useId();
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let chart: uPlot | null = null;
    let observer: ResizeObserver | null = null;
    let gone = false;
    loadUPlot().then((UPlot) => {
      if (gone) return;
      const accent = getComputedStyle(el).getPropertyValue('--accent').trim() || '#6B7280';
      chart = new UPlot({
        width: Math.max(el.clientWidth, 200), height,
        legend: { show: false },
        cursor: { y: false },
        scales: { x: { time: true } },
        axes: [{ stroke: '#4B5563', grid: { stroke: '#E5E7EB' } }, { stroke: '#4B5563', grid: { stroke: '#E5E7EB' }, size: 44 }],
        series: [{}, { label: title, stroke: accent, width: 2, fill: /^#[0-9a-f]{6}$/i.test(accent) ? `${accent}1f` : undefined, points: { show: dates.length <= 31 } }],
      }, [dates.map(daySeconds), [...values]], el);
      observer = new ResizeObserver(() => chart?.setSize({ width: Math.max(el.clientWidth, 200), height }));
      observer.observe(el);
    }, () => setFailed(true));
    return () => {
      gone = true;
      observer?.disconnect();
      chart?.destroy();
    };
  }, [title, dates, values, height]);

  return (
    <figure className="q-chart" aria-labelledby={captionId} aria-describedby={summaryId}>
      <figcaption id={captionId} className="q-chart-title">{title}</figcaption>
      <div ref={box} className="q-chart-canvas" aria-hidden="true" style={{ minHeight: height }} />
      {failed && <p className="q-hint">The chart could not be drawn; the values are in the table below.</p>}
      <p id={summaryId} className="q-hint">{summarize(dates, values)}</p>
      <details className="q-chart-data">
        <summary>Values of {title}</summary>
        <Table caption={`${title} per day`} rows={dates.map((date, i) => ({ date, value: values[i] ?? 0 }))} rowKey={(r) => r.date}
          columns={[{ header: 'Day (UTC)', cell: 'date' }, { header: 'Value', cell: (r) => r.value.toLocaleString('en'), numeric: true }]} />
      </details>
    </figure>
  );
}
