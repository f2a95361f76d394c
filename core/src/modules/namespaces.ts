// Names a module owns: tables (from its entities and the `create table` statements of its SQL migrations), event
// kinds and settings. A plugin's names sit in its namespace (`<module>_*` tables or the module key itself,
// `<module>.*` events, `<MODULE>_*` settings) unless its manifest claims them; no two modules own one name.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UnderscoreNamingStrategy } from '@mikro-orm/core';
import type { Module } from './types.js';

export type NameKind = 'tables' | 'events' | 'settings';
export interface OwnedName { kind: NameKind; name: string; field: string }

const naming = new UnderscoreNamingStrategy();

/** The table an entity schema maps to (its tableName, or the name MikroORM derives from the entity name). */
export function entityTable(entity: unknown): string | undefined {
  const meta = (entity as { meta?: { tableName?: string; className?: string; name?: string } }).meta;
  if (!meta) return undefined;
  return meta.tableName ?? (meta.className ?? meta.name ? naming.classToTableName((meta.className ?? meta.name)!) : undefined);
}

const CREATE_TABLE = /\bcreate\s+(?:(?:global\s+|local\s+)?(?:temporary|temp)\s+|unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?(?:"?[a-z_][a-z0-9_]*"?\.)?"?([a-z_][a-z0-9_]*)"?/gi;

/** Tables created by the SQL files of a migrations folder (comments are skipped). */
export function migrationTables(folder: URL | string): { file: string; table: string }[] {
  const dir = folder instanceof URL ? fileURLToPath(folder) : folder;
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.sql')).sort().flatMap((file) => {
    const sql = readFileSync(`${dir}/${file}`, 'utf8').replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
    return [...sql.matchAll(CREATE_TABLE)].map((m) => ({ file, table: m[1]!.toLowerCase() }));
  });
}

/** Every table, event kind and setting the module owns by declaring or creating it (claims not included). */
export function ownedNames(mod: Module): OwnedName[] {
  const names: OwnedName[] = [];
  mod.entities.forEach((entity, i) => {
    const table = entityTable(entity);
    if (table) names.push({ kind: 'tables', name: table, field: `entities[${i}]` });
  });
  if (mod.migrations !== undefined) {
    for (const { file, table } of migrationTables(mod.migrations)) names.push({ kind: 'tables', name: table, field: `migrations/${file}` });
  }
  mod.events.forEach((kind, i) => names.push({ kind: 'events', name: kind, field: `events[${i}]` }));
  for (const key of Object.keys(mod.settings?.properties ?? {})) names.push({ kind: 'settings', name: key, field: `settings.${key}` });
  return names;
}

/** The names a module claims outside its namespace: its claims, and the tables it declares there. */
export function claimedNames(mod: Module): OwnedName[] {
  const claims = mod.claims ?? {};
  const tables = Object.keys(mod.tables).filter((name) => !mod.core && !inNamespace(mod.name, 'tables', name))
    .map((name) => ({ kind: 'tables' as const, name, field: `tables.${name}` }));
  return [...tables, ...(['events', 'settings'] as const).flatMap((kind) =>
    (claims[kind] ?? []).map((name, i) => ({ kind, name, field: `claims.${kind}[${i}]` })))];
}

/** A table the module's entities or migrations make that its `tables` does not declare, or null. */
export function undeclaredTable(mod: Module): OwnedName | null {
  return ownedNames(mod).find((o) => o.kind === 'tables' && !Object.hasOwn(mod.tables, o.name)) ?? null;
}

/** Is a name inside a module's namespace? */
export function inNamespace(module: string, kind: NameKind, name: string): boolean {
  if (kind === 'tables') return name === module || name.startsWith(`${module}_`);
  if (kind === 'events') return name.startsWith(`${module}.`);
  return name.startsWith(`${module.toUpperCase()}_`);
}

export const NAMESPACE_HINT: Record<NameKind, (module: string) => string> = {
  tables: (m) => `"${m}_*" (or "${m}")`,
  events: (m) => `"${m}.*"`,
  settings: (m) => `"${m.toUpperCase()}_*"`,
};

export const KIND_LABEL: Record<NameKind, string> = { tables: 'table', events: 'event kind', settings: 'setting' };
