// Uptime per UTC day as a row of bars (plain SVG): height and colour by the day's uptime %, an empty slot for a day
// without checks. Each bar has a title (day, uptime, checks) and the list of days is read out as a sentence.
import type { Day } from './common.js';

const H = 40;
const GAP = 2;

const colour = (pct: number) => (pct >= 99 ? 'var(--ok, #15803D)' : pct >= 90 ? '#D97706' : 'var(--danger, #B91C1C)');

export function DayBars({ days }: { days: readonly Day[] }) {
  const width = 12;
  const measured = days.filter((d) => d.uptime_pct !== null);
  const overall = measured.reduce((a, d) => a + d.up, 0) / Math.max(1, measured.reduce((a, d) => a + d.checks, 0)) * 100;
  const summary = measured.length === 0 ? `No checks in the last ${days.length} days.`
    : `${days.length} days: ${overall.toFixed(2)} % up over ${measured.length} days with checks; lowest ${Math.min(...measured.map((d) => d.uptime_pct!)).toFixed(2)} %.`;
  return (
    <figure className="q-chart" style={{ margin: '12px 0 0' }}>
      <figcaption className="q-chart-title">Uptime per day (UTC)</figcaption>
      <svg viewBox={`0 0 ${days.length * (width + GAP)} ${H}`} width="100%" aria-hidden="true" data-testid="day-bars" style={{ maxWidth: days.length * (width + GAP) * 1.5, display: 'block' }}>
        {days.map((d, i) => {
          const pct = d.uptime_pct;
          const h = pct === null ? 2 : Math.max(3, (H * pct) / 100);
          return (
            <rect key={d.day} x={i * (width + GAP)} y={H - h} width={width} height={h} rx="2" fill={pct === null ? 'var(--border, #E5E7EB)' : colour(pct)} data-day={d.day}>
              <title>{pct === null ? `${d.day}: no checks` : `${d.day}: ${pct} % of ${d.checks} checks up`}</title>
            </rect>
          );
        })}
      </svg>
      <p className="q-hint">{summary}</p>
    </figure>
  );
}
