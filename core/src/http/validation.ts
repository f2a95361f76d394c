// Request validation: query strings, params and headers are text, so they are coerced to the schema's types
// ("2" -> 2); JSON bodies are already typed, so they are checked strictly (["x"] is not "x", 42 is not "42").
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats.default(ajv);
  return ajv;
}

export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const coercing = makeAjv({ coerceTypes: 'array' });
  const strict = makeAjv({ coerceTypes: false });
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema as object);
}
