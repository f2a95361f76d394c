// A monitor's state as a badge: up in the OK colour, down in the danger colour, pending and paused plain.
import { STATE_LABEL, type State } from './common.js';

const CLASS: Record<State, string> = { up: 'q-badge q-badge-on', down: 'q-badge q-badge-near', pending: 'q-badge', paused: 'q-badge' };

export function StateBadge({ state }: { state: State }) {
  return <span className={CLASS[state]} style={{ marginLeft: 0 }} data-state={state}>{STATE_LABEL[state]}</span>;
}
