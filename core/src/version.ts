// The running @quad/core version (from its package.json): reported in /health and checked against each
// manifest's `coreVersion` range at boot.
import { readFileSync } from 'node:fs';

export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
