/**
 * Settings' "Demo data" (the embedded default's demo shops and inventory): where their business
 * data is kept, whether each system's file can be used, and what a reset did. Strict objects, no
 * secret; states from src-shared/states.ts (DEMO_DATA_STATES), worded by the renderer.
 */
import { z } from 'zod';
import { DEMO_DATA_STATES } from '../states.js';

const SystemIdSchema = z.string().min(1).max(64);

export const DemoDataSystemViewSchema = z.strictObject({
  system_id: SystemIdSchema,
  name: z.string().max(200),
  state: z.enum(DEMO_DATA_STATES),
  /** Why the file cannot be used (a SQLite or errno code, or the failed check), for the technical detail. */
  detail: z.string().max(100).nullable(),
  seeded_at: z.string().max(40).nullable(),
  reset_at: z.string().max(40).nullable(),
});

export const DemoDataViewSchema = z.strictObject({
  /** False when this launch has no embedded demo systems (a remote Hub): Settings shows no reset. */
  available: z.boolean(),
  /** The folder of the data files. */
  dir: z.string().max(4096).nullable(),
  systems: z.array(DemoDataSystemViewSchema).max(16),
});
export type DemoDataView = z.infer<typeof DemoDataViewSchema>;

export const DemoDataResetViewSchema = z.strictObject({
  systems: z
    .array(
      DemoDataSystemViewSchema.extend({
        /** False when this system's data could not be reset (`state` says what is wrong). */
        reset: z.boolean(),
        /** An unusable file kept aside under this name (never deleted). */
        set_aside: z.string().max(300).nullable(),
      }),
    )
    .max(16),
});
export type DemoDataResetView = z.infer<typeof DemoDataResetViewSchema>;

/** The reset asks for an explicit confirmation in its payload too (a stray call resets nothing). */
export const DemoDataResetRequestSchema = z.strictObject({ confirm: z.literal(true) });
