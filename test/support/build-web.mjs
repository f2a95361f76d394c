// tap's `before` script (.taprc): build the dashboard and the plugins' page bundles when their sources changed
// (scripts/build-web.mjs), in a child process whose coverage tap does not record (its report would list the build
// scripts).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const env = { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0' };
const script = fileURLToPath(new URL('../../scripts/build-web.mjs', import.meta.url));
const { status, signal } = spawnSync(process.execPath, [script], { stdio: 'inherit', env });
if (status !== 0) throw new Error(`scripts/build-web.mjs failed (${signal ?? `exit ${status}`})`);
