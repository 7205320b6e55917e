/** Builds the OpenAPI 3.1 document a demo system publishes at /.well-known/bailing/tools.json. */
import type { DemoOperationDef, JsonSchema } from './operation.js';

const ErrorSchema: JsonSchema = {
  type: 'object',
  properties: { error: { type: 'string' }, message: { type: 'string' } },
  required: ['error', 'message'],
};

export function buildOpenApi(input: {
  systemId: string;
  name: string;
  version: string;
  description: string;
  operations: DemoOperationDef[];
}): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = { Error: ErrorSchema };
  for (const op of input.operations) {
    const parameters = [
      ...op.pathParams.map((p) => ({
        name: p.name,
        in: 'path',
        required: true,
        description: p.description,
        schema: p.schema,
      })),
      ...op.queryParams.map((p) => ({
        name: p.name,
        in: 'query',
        required: p.required,
        description: p.description,
        schema: p.schema,
      })),
    ];
    const operation: Record<string, unknown> = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      parameters,
      responses: {
        '200': {
          description: 'OK',
          content: {
            'application/json': { schema: { $ref: `#/components/schemas/${op.response.schemaName}` } },
          },
        },
        default: {
          description: 'Error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
      'x-agent-capability': op.capability,
    };
    schemas[op.response.schemaName] = op.response.schema;
    if (op.body) {
      schemas[op.body.schemaName] = op.body.schema;
      operation.requestBody = {
        required: op.body.required,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${op.body.schemaName}` } } },
      };
    }
    const byMethod = (paths[op.path] ??= {});
    byMethod[op.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: input.name, version: input.version, description: input.description },
    'x-bailing-system': { system_id: input.systemId, name: input.name },
    paths,
    components: {
      schemas,
      securitySchemes: {
        bailingSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'x-bailing-signature',
          description:
            'sha256= + hex HMAC-SHA256(secret, `${ts}.${METHOD}.${pathWithQuery}.${sha256hex(body)}.${onBehalfOf}.${jobId}`)',
        },
      },
    },
    security: [{ bailingSignature: [] }],
  };
}
