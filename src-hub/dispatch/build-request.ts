/**
 * Turns a compiled operation and its (validated) flattened arguments into the HTTP request to send:
 * path params URL-encoded into the template, query params encoded in declaration order, body = JSON
 * of the body params ('' when there are none and the body is optional).
 */
import type { HttpOperation, McpOperation } from '../acc/types.js';

export interface BuiltRequest {
  method: string;
  pathWithQuery: string;
  body: string;
}

export class BuildRequestError extends Error {
  constructor(
    readonly code: 'path_param_missing' | 'path_param_invalid' | 'query_param_invalid',
    message: string,
  ) {
    super(message);
    this.name = 'BuildRequestError';
  }
}

function scalar(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return null;
}

/** What building an HTTP request needs of an operation. */
export type HttpRequestShape = Pick<
  HttpOperation,
  'method' | 'path_template' | 'path_params' | 'query_params' | 'body_params' | 'has_body'
> &
  Partial<Pick<HttpOperation, 'body_required'>>;

export function buildRequest(
  operation: HttpRequestShape | McpOperation,
  args: Record<string, unknown>,
): BuiltRequest {
  // an MCP tool is called over MCP (src-hub/mcp), never as an HTTP request
  if ('kind' in operation && operation.kind === 'mcp')
    throw new Error(`${operation.tool} is an MCP tool, not an HTTP operation`);
  const op = operation as HttpRequestShape;
  let path = op.path_template;
  for (const name of op.path_params) {
    const value = args[name];
    if (value === undefined || value === null)
      throw new BuildRequestError('path_param_missing', `path parameter ${name} is missing`);
    const text = scalar(value);
    if (text === null || text === '')
      throw new BuildRequestError('path_param_invalid', `path parameter ${name} must be a non-empty scalar`);
    const encoded = encodeURIComponent(text);
    // a function, so no `$` pattern in the replacement is ever read (encodeURIComponent leaves none)
    path = path.replaceAll(`{${name}}`, () => encoded);
  }
  if (op.query_params.length === 0)
    return { method: op.method.toUpperCase(), pathWithQuery: path, body: bodyOf(op, args) };

  const query = new URLSearchParams();
  for (const name of op.query_params) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      const text = scalar(v);
      if (text === null)
        throw new BuildRequestError(
          'query_param_invalid',
          `query parameter ${name} must be a scalar or a list of scalars`,
        );
      query.append(name, text);
    }
  }
  const qs = query.toString();
  return {
    method: op.method.toUpperCase(),
    pathWithQuery: qs ? `${path}?${qs}` : path,
    body: bodyOf(op, args),
  };
}

/** JSON of the body params ('' when there are none and the body is optional, or it has no body). */
function bodyOf(op: HttpRequestShape, args: Record<string, unknown>): string {
  if (!op.has_body) return '';
  const payload: Record<string, unknown> = {};
  for (const name of op.body_params) {
    if (args[name] !== undefined) payload[name] = args[name];
  }
  return Object.keys(payload).length > 0 || op.body_required ? JSON.stringify(payload) : '';
}
