// Response serializers: Fastify's own (fast-json-stringify), each compiled when its route first answers with its
// status, not when the app starts (see validatorCompiler in validation.ts: fast-json-stringify took as much of a start
// as ajv).
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** Fastify's serializer factory (schemaController.compilersFactory.buildSerializer), compiling on first use. */
export const lazySerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: ReturnType<typeof compile> | undefined;
    return (doc) => (serialize ??= compile(route))(doc);
  };
};
