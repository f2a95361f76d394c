// tap's `before` script (.taprc): bring the production build up to date (scripts/build.mjs --if-stale: the dashboard,
// the plugins' page bundles, then each package's dist/, only what changed) once, before any test file runs. Tests
// that run `npx quad` then find it built, instead of each building at once in parallel. A child process whose
// coverage tap does not record (its report would list the build scripts).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const env = { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0' };
const script = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));
const { status, signal } = spawnSync(process.execPath, [script, '--if-stale'], { stdio: 'inherit', env });
if (status !== 0) throw new Error(`scripts/build.mjs failed (${signal ?? `exit ${status}`})`);
