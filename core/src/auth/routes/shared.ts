// Schemas and helpers shared by the sign-in routes.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AuthServices } from '../index.js';

export const ErrorBody = Type.Object({ error: Type.String(), reason: Type.Optional(Type.String()) }, { additionalProperties: true });
export const OrgParams = Type.Object({ org: Type.String({ description: 'org prefix or id' }) });

declare module 'fastify' {
  interface FastifyInstance {
    /** Sign-in services of the core (adapters, access checks, key pair). */
    auth: AuthServices;
  }
}

/** Session cookies are Secure wherever the service is served over https. */
export function secureCookies(app: FastifyInstance): boolean {
  return app.quad.settings.NODE_ENV === 'production';
}
