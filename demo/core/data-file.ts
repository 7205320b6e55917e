/** Where a demo system keeps its business data inside a data folder. */
import { join } from 'node:path';

export const demoDataFile = (dataDir: string, systemId: string): string =>
  join(dataDir, `${systemId}.sqlite`);
