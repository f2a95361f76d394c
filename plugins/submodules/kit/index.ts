// quad-submodule-kit: what a submodule package imports. A submodule package default-exports
// `defineSubmodule({...})` (or a list of them); the submodules module loads the packages named in
// SUBMODULES_PACKAGES at boot and refuses one whose content fails `submoduleProblems`, naming the package and field.
// A package may instead default-export `defineKitChoice({...})`: one submodule (campus) whose content is a kit —
// one folder per university — chosen by a deployment setting (SUBMODULES_CAMPUS_KIT), built in or an operator's own.
import type { SubmoduleCode } from './code.js';
import type { SubmoduleContent } from './schema.js';

export * from './schema.js';
export * from './code.js';
export { submoduleProblems, paramProblem, placeholders, choicesOf, codeOf, itemsOf } from './check.js';

/** A submodule's content with the code it carries (parsers and transforms), as defineSubmodule returns it. */
export type SubmoduleDecl = SubmoduleContent & { readonly code?: SubmoduleCode };

/**
 * Declare a submodule: plain content, typed, and optionally the small code its content names (`code.parsers`,
 * `code.transforms`: see code.ts). Nothing runs here; the check happens when the submodules module loads the package
 * (call `submoduleProblems(defineSubmodule(...))` in your own test to see the same problems earlier).
 */
export function defineSubmodule(content: SubmoduleContent, code?: SubmoduleCode): SubmoduleDecl {
  return Object.freeze(code ? { ...content, code: Object.freeze({ ...code }) } : content);
}

/** A submodule whose content is one of several kits, chosen by a deployment setting. */
export interface KitChoice {
  readonly kind: 'kit_choice';
  /** The submodule every kit declares (its `name`), e.g. campus. */
  readonly submodule: string;
  /** The setting that names the kit, e.g. SUBMODULES_CAMPUS_KIT (a setting of the submodules module). */
  readonly setting: string;
  /** The built-in kit used when the setting is unset. */
  readonly default: string;
  /** Built-in kits by name: each loads a module whose default export is `defineSubmodule(...)`. */
  readonly builtIn: Readonly<Record<string, () => Promise<{ default: unknown }>>>;
}

/**
 * Declare a submodule made of kits (a campus: one kit per university). The setting names a built-in kit, or a path
 * (`./kits/my-university`, relative to the working directory, or absolute) to a folder whose index.js or index.ts
 * default-exports `defineSubmodule({ name: <submodule>, ... }, code)`: an operator adds a university without code
 * changes elsewhere.
 */
export function defineKitChoice(choice: Omit<KitChoice, 'kind'>): KitChoice {
  return Object.freeze({ kind: 'kit_choice', ...choice });
}

export const isKitChoice = (value: unknown): value is KitChoice =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'kit_choice';
