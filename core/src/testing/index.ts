// @quad/core/testing: what a plugin's tests need, from one entry point. Plugin tests import nothing else of the
// core (test/plugin-api/import-graph.test.ts checks it).
//   const quad = await startTestApp(t, { plugins: ['./examples/hello-plugin'] });
import { withoutTapLoader } from './without-tap-loader.js';

export {
  startTestApp, captureLogs, type TestApp, type TestAppOptions, type TeardownHost, type OrgFields,
} from './test-app.js';
export { createTestDatabase, ADMIN_URL, databaseUrl } from './database.js';
export * from './fakes.js';
export * from './sign-in.js';
export * from './member-world.js';
export { roomInMinute } from './windows.js';
export { until } from './until.js';
export { withoutTapLoader };
export { allowAddressesForTests } from '../net/address-policy.js';
export { resolveWithDnsServerForTests } from '../net/safe-fetch.js';
/**
 * `.ts` when tests run the TypeScript sources (`npx tap file.ts`, through tsx), `.js` in the suite's compiled tree
 * (`npm test`, test/support/compiled-tree.mjs): the extension of a module a test loads by path at run time.
 */
export const CODE_EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/**
 * The command that runs the module `path` (without its extension; relative to the working directory it is given) as
 * a process of its own, from the code the tests run: plain node on the compiled `.js` under `npm test`, tsx on the
 * `.ts` (as `npm run dev` runs it) under `npx tap file.ts`; without tap's loader.
 */
export function moduleCommand(path: string, ...args: string[]): [string, ...string[]] {
  return withoutTapLoader([process.execPath, ...(CODE_EXT === '.ts' ? ['--import', 'tsx'] : []), `${path}${CODE_EXT}`, ...args]);
}
