// Processes a test starts from the code the tests run: plain node on the compiled `.js` under `npm test` (the
// suite's compiled tree, test/support/compiled-tree.mjs), node with tsx on the `.ts` under `npx tap file.ts`.
// Light on purpose: a test that only starts processes need not load the rest of @quad/core/testing.

/** `.ts` when tests run the TypeScript sources (through tsx), `.js` in the compiled tree: the extension of a module a test loads by path at run time. */
export const CODE_EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** `node <args>`, with tsx's loader when the tests run the TypeScript sources. */
export function nodeCommand(...args: string[]): [string, ...string[]] {
  return [process.execPath, ...(CODE_EXT === '.ts' ? ['--import', 'tsx'] : []), ...args];
}

/** The command that runs the module `path` (without its extension; relative to the working directory it is given). */
export const moduleCommand = (path: string, ...args: string[]) => nodeCommand(`${path}${CODE_EXT}`, ...args);
