// The agent list a renderer test's desk would read: shop B only (shop A's system was retired).
import type { Authorization } from '../../../src-shared/hub-api.js';

export const AGENT_LIST_WITHOUT_SHOP_A: Authorization[] = [
  {
    authorization_ref: 'auth-shop-b',
    hub_id: 'hub_1',
    system_id: 'shop-b',
    system_name: 'Shop B (coffee gear)',
    account: 'shop-b-operator',
    on_behalf_of: 'operator@demo.local',
    state: 'active',
    revision: 1,
    system_kind: 'http',
    system_retired_at: null,
  },
];
