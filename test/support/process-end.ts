// Work for the end of the test process rather than of one file (closing a browser every file of the process
// shares): run after the last file of a group (test-groups.mjs, which sets the list), or, when a file runs alone,
// when its tests have ended.
import tap from 'tap';

const GROUP_END = Symbol.for('quad.test-group.end');

export function atProcessEnd(fn: () => unknown): void {
  const groupEnd = (globalThis as { [GROUP_END]?: Array<() => unknown> })[GROUP_END];
  if (groupEnd) groupEnd.push(fn);
  else tap.teardown(fn);
}
