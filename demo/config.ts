/**
 * The default demo description: which systems exist, their names, the accounts and authorization
 * references we suggest the Hub creates for them, and the on-behalf-of subject. Secrets are not
 * part of it: they are generated per launch (or passed in) and handed over in-process.
 */

export interface DemoSystemDescription {
  system_id: string;
  name: string;
  kind: 'shop' | 'inventory';
  shop_variant: 'A' | 'B' | null;
  /** Suggested account and authorization reference for the Hub's default configuration. */
  account: string;
  authorization_ref: string;
  spec_path: string;
}

export interface DemoDescription {
  on_behalf_of: string;
  client_name: string;
  systems: readonly DemoSystemDescription[];
}

export const DEMO_SPEC_PATH = '/.well-known/bailing/tools.json';

export const DEMO_CONFIG: DemoDescription = {
  on_behalf_of: 'operator@demo.local',
  client_name: 'bailing-desk',
  systems: [
    {
      system_id: 'shop-a',
      name: 'Shop A (homeware)',
      kind: 'shop',
      shop_variant: 'A',
      account: 'shop-a-operator',
      authorization_ref: 'auth-shop-a',
      spec_path: DEMO_SPEC_PATH,
    },
    {
      system_id: 'shop-b',
      name: 'Shop B (coffee gear)',
      kind: 'shop',
      shop_variant: 'B',
      account: 'shop-b-operator',
      authorization_ref: 'auth-shop-b',
      spec_path: DEMO_SPEC_PATH,
    },
    {
      system_id: 'inventory',
      name: 'Inventory',
      kind: 'inventory',
      shop_variant: null,
      account: 'inventory-operator',
      authorization_ref: 'auth-inventory',
      spec_path: DEMO_SPEC_PATH,
    },
  ],
};

export function demoSystem(systemId: 'shop-a' | 'shop-b' | 'inventory'): DemoSystemDescription {
  const found = DEMO_CONFIG.systems.find((s) => s.system_id === systemId);
  if (!found) throw new Error(`unknown demo system ${systemId}`);
  return found;
}
