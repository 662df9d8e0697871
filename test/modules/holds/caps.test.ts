/** The hold caps as pure rules (src/modules/holds/caps.ts): each answers its refusal or null. */
import { describe, expect, it } from 'vitest';
import { HOLD_LIFE_SECONDS, holderlessRefusal, keyLimitRefusal, lifeRefusal } from '../../../src/modules/holds/caps.js';

describe('hold caps', () => {
  it('refuses a key past its count of live holds, naming the limit and the next expiry', () => {
    const next = new Date('2030-01-07T09:00:00Z');
    expect(keyLimitRefusal(9, 10, next)).toBeNull();
    expect(keyLimitRefusal(10, 10, next)).toEqual({ kind: 'limit_key', limit: 10, nextExpiresAt: next });
  });

  it('refuses a second hold without holderRef on a calendar while the first lives at another time, and renews the same time', () => {
    const nine = new Date('2030-01-07T09:00:00Z');
    const ten = new Date('2030-01-07T10:00:00Z');
    const live = { start: nine, expiresAt: new Date('2030-01-07T08:05:00Z') };
    expect(holderlessRefusal(true, live, ten)).toEqual({ kind: 'limit_calendar', heldStart: nine, expiresAt: live.expiresAt });
    expect(holderlessRefusal(true, live, nine)).toBeNull();
    expect(holderlessRefusal(true, null, ten)).toBeNull();
    // A holder (holderRef sent) replaces its own hold, wherever it was.
    expect(holderlessRefusal(false, live, ten)).toBeNull();
  });

  it('refuses a renewal once the holder’s total life is over', () => {
    const first = new Date('2030-01-07T09:00:00Z');
    const deadline = new Date(first.getTime() + HOLD_LIFE_SECONDS * 1000);
    expect(lifeRefusal(null, new Date('2030-01-07T10:00:00Z'))).toBeNull();
    expect(lifeRefusal(first, new Date(deadline.getTime() - 1))).toBeNull();
    expect(lifeRefusal(first, deadline)).toEqual({ kind: 'life_exceeded', firstHeldAt: first, deadline });
  });
});
