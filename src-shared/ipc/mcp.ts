/**
 * The desk's MCP servers in Settings (local Hub only; docs/mcp.md#in-the-desk): the DTOs of the
 * IPC calls that list, add and refresh an MCP server and show and edit its tools' overlays, and the
 * one check of an add form's values that the renderer runs before sending and main runs again.
 *
 * Secrets (secret environment values, a bearer token) travel only from the renderer to main and on
 * to the Hub; no view here has a field that could carry one back.
 */
import { z } from 'zod';
import {
  ApprovalRuleSchema,
  McpToolAnnotationsSchema,
  McpToolNameSchema,
  McpServerViewSchema,
  McpToolViewSchema,
  SystemIdSchema,
  ToolOverlaySchema,
} from '../hub-api.js';

/** Why a value of the add form cannot be sent (worded by the renderer: `mcpForm.problem.<code>`). */
export const MCP_FORM_PROBLEM_CODES = [
  'system_id_invalid',
  'name_required',
  'command_required',
  'text_has_control_characters',
  'cwd_not_absolute',
  'env_name_invalid',
  'env_name_duplicate',
  'secret_value_too_short',
  'url_invalid',
  'url_scheme',
  'url_has_credentials',
  'too_many',
] as const;
export type McpFormProblemCode = (typeof MCP_FORM_PROBLEM_CODES)[number];

export const MAX_MCP_ARGS = 64;
export const MAX_MCP_ENV = 64;
/** A secret shorter than this could not be masked in the Hub's error texts without garbling them. */
export const MIN_MCP_SECRET_CHARS = 4;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export const McpEnvEntrySchema = z.strictObject({
  name: z.string().max(128),
  value: z.string().max(8192),
  /** A secret is stored by the Hub like a signing secret and never shown back (only its name). */
  secret: z.boolean(),
});
export type McpEnvEntry = z.infer<typeof McpEnvEntrySchema>;

export const McpStdioFormSchema = z.strictObject({
  transport: z.literal('stdio'),
  command: z.string().max(1024),
  args: z.array(z.string().max(4096)).max(MAX_MCP_ARGS),
  env: z.array(McpEnvEntrySchema).max(MAX_MCP_ENV),
  cwd: z.string().max(1024).nullable(),
});
export const McpHttpFormSchema = z.strictObject({
  transport: z.literal('streamable_http'),
  url: z.string().max(2048),
  /** Sent as `Authorization: Bearer …` by the Hub; never shown back. */
  bearer_token: z.string().min(1).max(4096).nullable(),
});

export const AddMcpServerFormSchema = z.strictObject({
  system_id: z.string().max(63),
  name: z.string().max(200),
  server: z.discriminatedUnion('transport', [McpStdioFormSchema, McpHttpFormSchema]),
});
export type AddMcpServerForm = z.infer<typeof AddMcpServerFormSchema>;

export interface McpFormProblem {
  /** The form control it belongs to: `system_id`, `name`, `command`, `args.2`, `env.0.name`, `url`, … */
  field: string;
  code: McpFormProblemCode;
}

function urlProblem(text: string): McpFormProblemCode | null {
  let u: URL;
  try {
    u = new URL(text.trim());
  } catch {
    return 'url_invalid';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'url_scheme';
  if (u.username !== '' || u.password !== '') return 'url_has_credentials';
  return null;
}

/** Every problem of an add form's values (empty: it may be sent). Pure; bounded by the schema's sizes. */
export function mcpFormProblems(form: AddMcpServerForm): McpFormProblem[] {
  const out: McpFormProblem[] = [];
  if (!SystemIdSchema.safeParse(form.system_id).success)
    out.push({ field: 'system_id', code: 'system_id_invalid' });
  if (form.name.trim() === '') out.push({ field: 'name', code: 'name_required' });
  else if (CONTROL.test(form.name)) out.push({ field: 'name', code: 'text_has_control_characters' });
  const s = form.server;
  if (s.transport === 'stdio') {
    if (s.command.trim() === '') out.push({ field: 'command', code: 'command_required' });
    else if (CONTROL.test(s.command)) out.push({ field: 'command', code: 'text_has_control_characters' });
    s.args.forEach((a, i) => {
      if (a.includes('\u0000')) out.push({ field: `args.${i}`, code: 'text_has_control_characters' });
    });
    if (s.cwd !== null) {
      if (CONTROL.test(s.cwd)) out.push({ field: 'cwd', code: 'text_has_control_characters' });
      else if (!s.cwd.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(s.cwd))
        out.push({ field: 'cwd', code: 'cwd_not_absolute' });
    }
    const seen = new Set<string>();
    s.env.forEach((e, i) => {
      if (!ENV_NAME.test(e.name)) out.push({ field: `env.${i}.name`, code: 'env_name_invalid' });
      else if (seen.has(e.name)) out.push({ field: `env.${i}.name`, code: 'env_name_duplicate' });
      seen.add(e.name);
      if (e.value.includes('\u0000'))
        out.push({ field: `env.${i}.value`, code: 'text_has_control_characters' });
      else if (e.secret && e.value.length < MIN_MCP_SECRET_CHARS)
        out.push({ field: `env.${i}.value`, code: 'secret_value_too_short' });
    });
  } else {
    const why = urlProblem(s.url);
    if (why) out.push({ field: 'url', code: why });
    if (s.bearer_token !== null && s.bearer_token.length < MIN_MCP_SECRET_CHARS)
      out.push({ field: 'bearer_token', code: 'secret_value_too_short' });
    else if (s.bearer_token !== null && CONTROL.test(s.bearer_token))
      out.push({ field: 'bearer_token', code: 'text_has_control_characters' });
  }
  return out;
}

/** The contract's input: the form's shape, and main refuses any value the form would have flagged. */
export const AddMcpServerInputSchema = AddMcpServerFormSchema.superRefine((form, ctx) => {
  for (const p of mcpFormProblems(form))
    ctx.addIssue({ code: 'custom', path: p.field.split('.'), message: p.code });
});

/** The secret values of a form (to mask them in any text that comes back from the Hub). */
export function mcpFormSecrets(form: AddMcpServerForm): string[] {
  const s = form.server;
  if (s.transport === 'stdio') return s.env.filter((e) => e.secret && e.value !== '').map((e) => e.value);
  return s.bearer_token ? [s.bearer_token] : [];
}

// ---------- views ----------

/**
 * An MCP server as Settings lists it: the Hub's view of the server (McpServerViewSchema, without
 * its default timeout), strict at every level, with the system's id, name and what the desk adds.
 */
export const McpServerItemSchema = McpServerViewSchema.omit({ default_timeout_ms: true })
  .extend({
    system_id: z.string(),
    name: z.string(),
    server_info: McpServerViewSchema.shape.server_info.unwrap().strict().nullable(),
    tool_count: z.number().int(),
    /** The last reasons the Hub recorded about the server's tool list (empty when none). */
    problems: z.array(
      z.strictObject({
        code: z.string().max(100),
        tool: z.string().nullable(),
        message: z.string().max(2000),
      }),
    ),
    refreshed_at: z.string().nullable(),
    /** This desk's authorization for the server (its tools in conversations and tasks), if any. */
    authorization_ref: z.string().nullable(),
  })
  .strict();
export type McpServerItem = z.infer<typeof McpServerItemSchema>;

/*
 * The overlay and tool views below are the Hub's schemas (src-shared/hub-api.ts) made strict at
 * every level: an unknown field in an overlay the renderer sends is refused, not dropped, and no
 * field outside them can reach the renderer.
 */
const overlay = ToolOverlaySchema.shape;
const OverlayApprovalInputSchema = overlay.approval
  .unwrap()
  .extend({ when: z.array(ApprovalRuleSchema.strict()).max(20).optional() })
  .strict();

/** A tool's overlay as the desk edits it (strict: an unknown field is refused, not dropped). */
export const McpOverlayInputSchema = ToolOverlaySchema.extend({
  approval: OverlayApprovalInputSchema.optional(),
  rate_limit: overlay.rate_limit.unwrap().unwrap().strict().nullable().optional(),
}).strict();
export type McpOverlayInput = z.infer<typeof McpOverlayInputSchema>;

const governed = McpToolViewSchema.shape.governed;
export const McpToolItemSchema = McpToolViewSchema.extend({
  annotations: McpToolAnnotationsSchema.strict(),
  overlay: McpOverlayInputSchema.nullable(),
  governed: governed.extend({ rate_limit: governed.shape.rate_limit.unwrap().strict().nullable() }).strict(),
}).strict();
export type McpToolItem = z.infer<typeof McpToolItemSchema>;

export const McpSystemRefSchema = z.strictObject({ system_id: SystemIdSchema });

/** A server removed from the desk: the Hub retired it (its history stays on the Hub). */
export const McpServerRemovedSchema = z.strictObject({ system_id: z.string(), retired_at: z.string() });
export type McpServerRemoved = z.infer<typeof McpServerRemovedSchema>;
export const McpToolRefSchema = z.strictObject({ system_id: SystemIdSchema, tool: McpToolNameSchema });
