// How much of a limit is used: a bar with a mark at 80 % (where a limit counts as near), and the numbers in words.
// `<UsageBar label="Webhooks" use={17} value={20} />`; a value of null is "no limit" (no bar). `near` (the API's
// `near_limit`) says whether to mark it; default: use ≥ 80 % of the value.

/** Use at or above this share of the value is "near the limit" (the API's `near_limit` says the same). */
export const NEAR_LIMIT = 0.8;

export function UsageBar({ label, use, value, near: given }: { label: string; use: number; value: number | null; near?: boolean }) {
  if (value === null) return <span className="q-usage-text">{use.toLocaleString()} used · no limit</span>;
  const share = value === 0 ? (use > 0 ? 1 : 0) : Math.min(use / value, 1);
  const near = given ?? use >= NEAR_LIMIT * value;
  return (
    <div className="q-usage" data-near={near}>
      <div className="q-usage-bar" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={value} aria-valuenow={Math.min(use, value)}
        aria-valuetext={`${use} of ${value}${near ? ', near the limit' : ''}`}>
        <div className="q-usage-fill" style={{ width: `${share * 100}%` }} />
        <div className="q-usage-mark" style={{ left: `${NEAR_LIMIT * 100}%` }} title="80 %" />
      </div>
      <span className="q-usage-text">{use.toLocaleString()} / {value.toLocaleString()}{near && <span className="q-badge q-badge-near">Near limit</span>}</span>
    </div>
  );
}
