// Where the CLI keeps its sign-in and its SSH key: $PODHOST_HOME, else $XDG_CONFIG_HOME/podhost, else
// ~/.config/podhost. The folder is 0700 and the config file 0600: it holds a token that gets certificates.
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface CliConfig {
  /** The Quad service's base URL, e.g. https://quad.example.org */
  server: string;
  /** The org's prefix. */
  org: string;
  /** The CLI token (plat_…), while signed in. */
  token?: string;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PODHOST_HOME) return env.PODHOST_HOME;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'podhost');
}

const configFile = (dir: string) => join(dir, 'config.json');

export async function readConfig(dir: string): Promise<CliConfig | null> {
  try {
    return JSON.parse(await readFile(configFile(dir), 'utf8')) as CliConfig;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`${configFile(dir)} is not readable JSON: delete it and sign in again`);
  }
}

export async function writeConfig(dir: string, config: CliConfig): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = configFile(dir);
  // Written 0600 from the start (mode applies only to a new file; chmod covers one made before).
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
}

export async function removeConfigToken(dir: string): Promise<boolean> {
  const config = await readConfig(dir);
  if (!config?.token) return false;
  const { token: _dropped, ...rest } = config;
  await writeConfig(dir, rest);
  return true;
}

export async function removeFile(path: string): Promise<void> {
  await rm(path, { force: true });
}
