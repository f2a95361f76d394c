// quad-submodule-kit: what a submodule package imports. A submodule package default-exports
// `defineSubmodule({...})` (or a list of them); the submodules module loads the packages named in
// SUBMODULES_PACKAGES at boot and refuses one whose content fails `submoduleProblems`, naming the package and field.
import type { SubmoduleContent } from './schema.js';

export * from './schema.js';
export { submoduleProblems, paramProblem, placeholders } from './check.js';

/**
 * Declare a submodule: plain content, typed. Nothing runs here; the check happens when the submodules module loads
 * the package (call `submoduleProblems(content)` in your own test to see the same problems earlier).
 */
export function defineSubmodule(content: SubmoduleContent): SubmoduleContent {
  return Object.freeze(content);
}
