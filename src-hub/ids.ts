/** Server-made identifiers: a readable prefix plus a random UUID. */
import { randomUUID } from 'node:crypto';

export type IdPrefix = 'run' | 'apr' | 'task' | 'prm' | 'cli';

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomUUID().replace(/-/g, '')}`;
