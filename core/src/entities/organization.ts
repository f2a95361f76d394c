// An org: one Discord server, its officer role, its module switches and settings.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p.integer().primary().autoincrement(),
    prefix: p.string().unique(),
    name: p.string(),
    discordGuildId: p.string().nullable().unique(),
    officerRoleId: p.string().nullable(),
    description: p.text().default(''),
    pointsPerMessage: p.integer().default(1),
    pointsCooldownSeconds: p.integer().default(60),
    /** Module switches: `{ store: true }`; core modules are always on whatever this says. */
    modules: p.json<Record<string, boolean>>().default('{}'),
    /** Org config store (e.g. `dashboard.resolved`, module settings). */
    config: p.json<Record<string, unknown>>().default('{}'),
    /** May publish shared content (submodules); set by the superadmin. */
    publisher: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type OrganizationEntity = InferEntity<typeof Organization>;
