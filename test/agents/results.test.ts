/** The "now" line a tool's answer starts with: the clinic's local time, and the exact instant. */
import { describe, expect, it } from 'vitest';
import { nowLine } from '../../src/agents/results.js';

describe('nowLine', () => {
  it("states the clinic's local date and time, and moves with the minute and the zone", () => {
    const at = new Date('2026-03-29T00:59:30.000Z'); // 01:59 in Rome, a minute before summer time
    expect(nowLine('Europe/Rome', at)).toBe('Now at the clinic: domenica 29 marzo 2026 alle ore 01:59 (Europe/Rome; 2026-03-29T00:59:30.000Z).');
    // Same minute: the same local text, the exact instant still exact.
    expect(nowLine('Europe/Rome', new Date('2026-03-29T00:59:59.999Z'))).toContain('01:59 (Europe/Rome; 2026-03-29T00:59:59.999Z)');
    // The next minute is 03:00: the clocks went forward.
    expect(nowLine('Europe/Rome', new Date('2026-03-29T01:00:00.000Z'))).toContain('alle ore 03:00 (Europe/Rome;');
    // Another zone at the same instant has its own line.
    expect(nowLine('America/New_York', new Date('2026-03-29T01:00:00.000Z'))).toContain('sabato 28 marzo 2026 alle ore 21:00 (America/New_York;');
    expect(nowLine('Europe/Rome', new Date('2026-03-29T01:00:10.000Z'))).toContain('alle ore 03:00 (Europe/Rome;');
  });
});
