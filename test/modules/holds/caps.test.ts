/** The hold caps as pure rules (src/modules/holds/caps.ts): each answers its refusal or null. */
import { describe, expect, it } from 'vitest';
import { HOLD_LIFE_SECONDS, keyLimitRefusal, lifeRefusal, shareRefusal } from '../../../src/modules/holds/caps.js';

const window = { from: new Date('2030-01-07T08:00:00Z'), to: new Date('2030-01-08T08:00:00Z') };
const slot = (hour: number) => ({
  start: `2030-01-07T${String(hour).padStart(2, '0')}:00:00.000Z`,
  end: `2030-01-07T${String(hour).padStart(2, '0')}:30:00.000Z`,
  doctorId: null,
  chairId: null,
});

describe('hold caps', () => {
  it('refuses a key past its count of live holds, naming the limit and the next expiry', () => {
    const next = new Date('2030-01-07T09:00:00Z');
    expect(keyLimitRefusal(9, 10, next)).toBeNull();
    expect(keyLimitRefusal(10, 10, next)).toEqual({ kind: 'limit_key', limit: 10, nextExpiresAt: next });
  });

  it('counts the key’s own holds among the window’s slots, so they do not shrink its share', () => {
    const free = [9, 10, 11, 12].map(slot);
    const held = [Date.parse(slot(13).start), Date.parse(slot(14).start)];
    // 6 slots in the window: a third is 2, and the key holds 2 already.
    expect(shareRefusal(free, held, window)).toEqual({ kind: 'limit_calendar', limit: 2, held: 2, slots: 6, window });
    // The same 6 slots, one of them held: room for one more.
    expect(shareRefusal([...free, slot(13)], held.slice(1), window)).toBeNull();
    // Never fewer than one.
    expect(shareRefusal([slot(9)], [], window)).toBeNull();
  });

  it('refuses a renewal once the holder’s total life is over', () => {
    const first = new Date('2030-01-07T09:00:00Z');
    const deadline = new Date(first.getTime() + HOLD_LIFE_SECONDS * 1000);
    expect(lifeRefusal(null, new Date('2030-01-07T10:00:00Z'))).toBeNull();
    expect(lifeRefusal(first, new Date(deadline.getTime() - 1))).toBeNull();
    expect(lifeRefusal(first, deadline)).toEqual({ kind: 'life_exceeded', firstHeldAt: first, deadline });
  });
});
