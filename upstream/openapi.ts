import { z } from 'zod';
import { createSchema, listParamsSchema, type EntityDef } from '../shared/entity/define.ts';

/** OpenAPI 3.1 document of the generic resources, generated from the same zod schemas that validate them. */
export function openApiDocument(entities: readonly EntityDef[]) {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  const envelope = (ref: unknown) => ({
    type: 'object',
    required: ['success', 'data', 'error'],
    properties: { success: { type: 'boolean' }, data: ref, error: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/Error' }] } },
  });
  const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
  schemas.Error = {
    type: 'object',
    properties: { message: { type: 'string', description: 'error code' }, cause: { type: 'string' }, fields: { type: 'object', additionalProperties: { type: 'string' } } },
  };
  schemas.Paginator = { type: 'object', properties: { page: { type: 'integer' }, page_size: { type: 'integer' }, count: { type: 'integer' }, total_pages: { type: 'integer' } } };
  for (const def of entities) {
    const name = def.name.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
    const input = z.toJSONSchema(createSchema(def), { io: 'input', unrepresentable: 'any' });
    schemas[`${name}Input`] = input;
    schemas[name] = {
      allOf: [
        { $ref: `#/components/schemas/${name}Input` },
        { type: 'object', properties: { id: { type: 'integer' }, version: { type: 'integer' }, created_at: { type: 'string' }, updated_at: { type: 'string' } } },
      ],
    };
    const ref = { $ref: `#/components/schemas/${name}` };
    const params = z.toJSONSchema(listParamsSchema(def), { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
    const query = Object.entries(params.properties ?? {})
      .filter(([key]) => key !== 'filters')
      .map(([key, schema]) => ({ name: key, in: 'query', schema }));
    const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }];
    paths[`/api/${def.name}/`] = {
      get: { summary: `List ${def.name}`, parameters: query, responses: { 200: json(envelope({ type: 'object', properties: { results: { type: 'array', items: ref }, paginator: { $ref: '#/components/schemas/Paginator' } } })) } },
      post: { summary: `Create`, requestBody: json({ $ref: `#/components/schemas/${name}Input` }), responses: { 201: json(envelope(ref)), 400: json(envelope({ type: 'null' })) } },
    };
    paths[`/api/${def.name}/{id}/`] = {
      get: { parameters: id, responses: { 200: json(envelope(ref)), 404: json(envelope({ type: 'null' })) } },
      put: { parameters: id, requestBody: json({ allOf: [{ $ref: `#/components/schemas/${name}Input` }, { type: 'object', required: ['version'], properties: { version: { type: 'integer' } } }] }), responses: { 200: json(envelope(ref)), 409: json(envelope({ type: 'null' })) } },
      patch: { parameters: id, responses: { 200: json(envelope(ref)), 409: json(envelope({ type: 'null' })) } },
      delete: { parameters: id, responses: { 200: json(envelope({ type: 'object' })), 409: json(envelope({ type: 'null' })) } },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Bike Buddy marketplace API (reference implementation)', version: '1.0.0' },
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
