// Choosing a submodule's kit (defineKitChoice in the kit package; the campus submodule): the setting the choice names
// (SUBMODULES_CAMPUS_KIT) gives a built-in kit's name or the path of a kit folder, whose index.js (or index.ts, which
// Node runs by stripping its types) default-exports `defineSubmodule({ name: <the submodule>, ... }, code)`. An
// operator adds a university by adding a folder and pointing the setting at it; nothing else changes. A kit that
// cannot be found, loaded or checked stops the boot with one line naming the setting, the kit and the field.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { KitChoice, SubmoduleDecl } from 'quad-submodule-kit';
import { checked, SubmoduleConfigError } from './content-check.js';
import type { SubmodulesSettings } from './settings.js';

type CatalogSettings = Pick<SubmodulesSettings, 'SUBMODULES_CAMPUS_KIT'>;

/** The settings a kit choice may name, with their values in force. */
function settingOf(choice: KitChoice, settings: CatalogSettings): string | undefined {
  if (choice.setting !== 'SUBMODULES_CAMPUS_KIT') {
    throw new SubmoduleConfigError(`Submodule "${choice.submodule}": its kit setting ${choice.setting} is not a setting of the submodules module (SUBMODULES_CAMPUS_KIT)`);
  }
  return settings.SUBMODULES_CAMPUS_KIT;
}

const isPath = (value: string) => value.startsWith('.') || isAbsolute(value);

/** The entry file of a kit folder: index.js when there is one (a built or JavaScript kit), else index.ts. */
function kitEntry(folder: string): string | null {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return null;
  for (const file of ['index.js', 'index.ts']) if (existsSync(join(folder, file))) return join(folder, file);
  return null;
}

/** The kit the setting names, loaded and checked. */
export async function loadKit(choice: KitChoice, settings: CatalogSettings, baseDir = process.cwd()): Promise<{ kit: string; content: SubmoduleDecl }> {
  const kit = settingOf(choice, settings)?.trim() || choice.default;
  const where = (problem: string) => `${choice.setting}: kit "${kit}": ${problem}`;
  let module: { default?: unknown };
  try {
    if (isPath(kit)) {
      const folder = resolve(baseDir, kit);
      const entry = kitEntry(folder);
      if (!entry) throw new SubmoduleConfigError(where(`no kit folder at ${folder} (a folder with index.js or index.ts)`));
      module = await import(pathToFileURL(entry).href);
    } else {
      const load = choice.builtIn[kit];
      if (!load) {
        throw new SubmoduleConfigError(where(`not a built-in ${choice.submodule} kit (built in: ${Object.keys(choice.builtIn).join(', ')}); name a kit folder by path, e.g. ./kits/${kit}`));
      }
      module = await load();
    }
  } catch (err) {
    if (err instanceof SubmoduleConfigError) throw err;
    throw new SubmoduleConfigError(where(`cannot be imported: ${(err as Error).message}`));
  }
  if (module.default === undefined) throw new SubmoduleConfigError(where('default export: must be defineSubmodule({...})'));
  const content = checked(module.default, where);
  if (content.name !== choice.submodule) {
    throw new SubmoduleConfigError(where(`name: a ${choice.submodule} kit declares name "${choice.submodule}" (got "${content.name}")`));
  }
  return { kit, content };
}
