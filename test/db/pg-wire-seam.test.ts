/**
 * The seam around the wire-level speed-ups (src/db/pg-client.ts): they use private parts of `pg`,
 * so the pool checks those parts first and runs `pg`'s plain protocol when one is missing, and
 * DB_WIRE_SPEEDUPS=off chooses the plain protocol on purpose. Whichever client runs, a write is
 * the same write: .ci/run runs the write paths' tests on PostgreSQL with the speed-ups off too.
 */
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { missingWireParts, pgClientClass, poolClient } from '../../src/db/pg-client.js';
import { StatementNames } from '../../src/db/prepared-statements.js';
import { loadConfig } from '../../src/config.js';
import pkg from '../../package.json' with { type: 'json' };

/** A copy of `pg` whose Query lacks one method, as an upgrade that renamed it would. */
function pgWithout(method: string): typeof pg {
  class Query extends (pg.Query as unknown as new (config: unknown) => object) {}
  Object.defineProperty(Query.prototype, method, { value: undefined });
  return { ...pg, Query, Client: pg.Client, Connection: (pg as unknown as { Connection: unknown }).Connection } as unknown as typeof pg;
}

describe('the pg wire seam', () => {
  it('pins pg to the exact version whose private parts the pool client was written against', () => {
    expect(pkg.dependencies.pg).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('finds every part it needs in the pinned pg', () => {
    expect(missingWireParts(pg)).toEqual([]);
  });

  it('names a missing part, runs the plain protocol, and says so once per process', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const broken = pgWithout('_getRows');
      expect(missingWireParts(broken)).toEqual(['Query.prototype._getRows']);
      expect(pgClientClass(broken, new StatementNames(), true)).toBe(pg.Client);
      expect(pgClientClass(pgWithout('handleCommandComplete'), new StatementNames(), true)).toBe(pg.Client);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toContain('Query.prototype._getRows');
    } finally {
      warn.mockRestore();
    }
  });

  it('runs the wrapped client when on and the parts are there, the plain one when DB_WIRE_SPEEDUPS=off', () => {
    const wrapped = pgClientClass(pg, new StatementNames(), true);
    expect(wrapped).not.toBe(pg.Client);
    expect(Object.getPrototypeOf(wrapped)).toBe(Object.getPrototypeOf(poolClient(pg)));
    expect(pgClientClass(pg, new StatementNames(), false)).toBe(pg.Client);
    expect(loadConfig({ DB_WIRE_SPEEDUPS: 'off' }).dbWireSpeedUps).toBe(false);
    expect(loadConfig({}).dbWireSpeedUps).toBe(true);
  });
});
