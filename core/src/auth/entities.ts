// Credential tables (see migrations/0002_auth.sql). Machine tokens are org-owned; the rest belong to people.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { defineOrgEntity } from '../db/org-owned.js';

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.integer().primary().autoincrement(),
    chatUserId: p.string().nullable().unique(),
    username: p.string().nullable(),
    email: p.string().nullable().unique(),
    studentId: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export interface IntegrationLimits { repos?: string[]; tools?: string[] }

export const MachineToken = defineOrgEntity({
  name: 'MachineToken',
  tableName: 'machine_tokens',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string(),
    kind: p.string(),
    scopes: p.array(),
    limits: p.json<Record<string, IntegrationLimits>>().default('{}'),
    tokenHash: p.string().unique().hidden(),
    tokenPrefix: p.string(),
    createdBy: p.string(),
    memberChatUserId: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
  },
});

export const AppToken = defineEntity({
  name: 'AppToken',
  tableName: 'app_tokens',
  properties: {
    id: p.integer().primary().autoincrement(),
    jti: p.string().unique(),
    chatUserId: p.string(),
    username: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
  },
});

export type UserEntity = InferEntity<typeof User>;
export type MachineTokenEntity = InferEntity<typeof MachineToken>;
export type AppTokenEntity = InferEntity<typeof AppToken>;
export const authEntities = [User, MachineToken, AppToken];
