// The burst control behind "read again" signals: first at once, the rest of a burst once at the end
// of the window, per key; nothing fires after dispose.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCoalescer } from '../../src-shared/coalesce.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('createCoalescer', () => {
  it('fires the first signal at once and the rest of a burst once at the end of the window, per key', () => {
    vi.useFakeTimers();
    const fired: string[] = [];
    const c = createCoalescer<string>((k) => fired.push(k), 100);
    for (let i = 0; i < 500; i++) c.signal('a');
    c.signal('b');
    expect(fired).toEqual(['a', 'b']);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['a', 'b', 'a']); // b had no rest of a burst
    c.signal('a'); // a new burst after the window: at once again
    expect(fired).toEqual(['a', 'b', 'a', 'a']);
    vi.advanceTimersByTime(100);
    expect(fired).toHaveLength(4);
  });

  it('a single signal fires exactly once', () => {
    vi.useFakeTimers();
    const fire = vi.fn();
    const c = createCoalescer<number>(fire, 50);
    c.signal(1);
    vi.advanceTimersByTime(1000);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('dispose drops what is pending', () => {
    vi.useFakeTimers();
    const fire = vi.fn();
    const c = createCoalescer<number>(fire, 50);
    c.signal(1);
    c.signal(1);
    c.dispose();
    vi.advanceTimersByTime(1000);
    expect(fire).toHaveBeenCalledTimes(1);
  });
});
