// Latency of the latest checks as a plain SVG line (no chart library): one point per check, oldest on the left,
// failed checks marked in the danger colour on the bottom edge. Screen readers get a one-sentence summary; the
// checks table below the chart holds every value.
import { useId } from 'react';
import type { Check } from './common.js';

const W = 640;
const H = 160;
const PAD = { left: 44, right: 8, top: 10, bottom: 20 };

/** One sentence for the figure: how many checks, latency range and failures. */
export function latencySummary(checks: readonly Check[]): string {
  const answered = checks.filter((c) => c.status !== null);
  const failed = checks.filter((c) => !c.ok).length;
  if (checks.length === 0) return 'No checks yet.';
  if (answered.length === 0) return `${checks.length} checks, none answered.`;
  const values = answered.map((c) => c.latency_ms);
  const avg = Math.round(values.reduce((a, b) => a + b, 0) / values.length);
  return `${checks.length} checks: latency ${Math.min(...values)}–${Math.max(...values)} ms, average ${avg} ms; ${failed} failed.`;
}

export function LatencyChart({ checks }: { checks: readonly Check[] }) {
  const captionId = useId();
  const summaryId = useId();
  const points = [...checks].reverse();
  const answered = points.filter((c) => c.status !== null);
  const top = Math.max(10, ...answered.map((c) => c.latency_ms));
  const x = (i: number) => PAD.left + (points.length <= 1 ? (W - PAD.left - PAD.right) / 2 : (i * (W - PAD.left - PAD.right)) / (points.length - 1));
  const y = (ms: number) => PAD.top + (H - PAD.top - PAD.bottom) * (1 - ms / top);
  const line = points.map((c, i) => (c.status === null ? null : `${x(i).toFixed(1)},${y(c.latency_ms).toFixed(1)}`)).filter(Boolean).join(' ');
  return (
    <figure className="q-chart" aria-labelledby={captionId} aria-describedby={summaryId} style={{ margin: 0 }}>
      <figcaption id={captionId} className="q-chart-title">Latency of the last {checks.length} checks (ms)</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-hidden="true" data-testid="latency-chart" style={{ maxWidth: W, display: 'block' }}>
        <line x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} stroke="var(--border, #E5E7EB)" />
        <line x1={PAD.left} x2={W - PAD.right} y1={y(top)} y2={y(top)} stroke="var(--border, #E5E7EB)" strokeDasharray="4 4" />
        <text x={PAD.left - 6} y={y(top) + 4} textAnchor="end" fontSize="11" fill="currentColor">{top}</text>
        <text x={PAD.left - 6} y={y(0) + 4} textAnchor="end" fontSize="11" fill="currentColor">0</text>
        {line && <polyline points={line} fill="none" stroke="var(--accent, #6B7280)" strokeWidth="2" strokeLinejoin="round" />}
        {points.map((c, i) => (c.ok
          ? <circle key={c.id} cx={x(i)} cy={y(c.latency_ms)} r="2.5" fill="var(--accent, #6B7280)" />
          : <circle key={c.id} cx={x(i)} cy={c.status === null ? y(0) : y(c.latency_ms)} r="4" fill="var(--danger, #B91C1C)" data-failed="true" />))}
      </svg>
      <p id={summaryId} className="q-hint">{latencySummary(checks)}</p>
    </figure>
  );
}
