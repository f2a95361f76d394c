// Processes the tests start, without tap's process-info loader. tap's runner (@tapjs/processinfo) adds its module
// loader to the NODE_OPTIONS of every process a test starts, whatever env the test gives it, to record which files
// each process loads (for coverage, which this suite does not collect: .taprc's disable-coverage). Node 20 runs
// such a loader on a thread of its own, a round trip per module: importing the core took 2.9 s of CPU with it and
// 1.8 s without, and a `quad` command little more than that import. `env -u` drops it again after tap has added it
// (`env` then runs the command in its own place: same process, same process group).

/** `command` run through `env -u NODE_OPTIONS`. */
export function withoutTapLoader(command: readonly string[]): [string, ...string[]] {
  return ['env', '-u', 'NODE_OPTIONS', ...command];
}
