// Server-made ids sort by creation time (the store's indexes keyed by them take new ids at their
// right edge) and still carry 80 random bits.
import { describe, expect, it } from 'vitest';
import { newId } from '../../src-hub/ids.js';

describe('newId', () => {
  it('a prefix, then 32 hex digits: the creation time in milliseconds and 80 random bits', () => {
    const id = newId('prm', 0x18c2b3d4e5f);
    expect(id).toMatch(/^prm_[0-9a-f]{32}$/);
    expect(id.slice(4, 16)).toBe('018c2b3d4e5f');
    const same = new Set(Array.from({ length: 1000 }, () => newId('prm', 1).slice(16)));
    expect(same.size).toBe(1000);
  });

  it('ids made later sort after earlier ones, whatever their random part', () => {
    const start = Date.UTC(2026, 11, 2);
    const ids = Array.from({ length: 500 }, (_, i) => newId('task', start + i * 7));
    expect([...ids].sort()).toEqual(ids);
    expect(newId('run') > newId('run', start)).toBe(true);
  });
});
