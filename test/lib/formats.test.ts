import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { isDate, isEmail, isUuid, parseTimestamp } from '../../src/lib/formats.js';
import { toCanonicalPhone } from '../../src/lib/phone.js';

describe('input formats of spec 2.1', () => {
  it('uuid in any letter case, nothing else', () => {
    expect(isUuid('3f2b8c1e-9a4d-4e2b-8f1a-0c9d8e7f6a5b')).toBe(true);
    expect(isUuid('3F2B8C1E-9A4D-4E2B-8F1A-0C9D8E7F6A5B')).toBe(true);
    for (const bad of ['3f2b8c1e9a4d4e2b8f1a0c9d8e7f6a5b', '3f2b8c1e-9a4d-4e2b-8f1a-0c9d8e7f6a5', 'g f2b8c1e-9a4d-4e2b-8f1a-0c9d8e7f6a5b', '']) {
      expect(isUuid(bad), bad).toBe(false);
    }
  });

  it('timestamps: T, optional seconds and fraction, Z or ±hh:mm, real calendar dates', () => {
    expect(parseTimestamp('2026-03-02T09:30Z')?.toISOString()).toBe('2026-03-02T09:30:00.000Z');
    expect(parseTimestamp('2026-03-02T09:30:15+01:00')?.toISOString()).toBe('2026-03-02T08:30:15.000Z');
    expect(parseTimestamp('2026-03-02T09:30:15.123456-02:30')?.toISOString()).toBe('2026-03-02T12:00:15.123Z');
    expect(parseTimestamp('2024-02-29T00:00:00Z')).not.toBeNull();
    for (const bad of [
      '2025-02-29T00:00:00Z',
      '2026-04-31T10:00Z',
      '2026-03-02 09:30Z',
      '2026-03-02T09:30',
      '2026-03-02',
      '2026-03-02T24:00Z',
      '2026-03-02T09:60Z',
      '2026-03-02T09:30:61Z',
      '2026-13-01T00:00Z',
      '2026-03-02T09:30+0100',
      'yesterday',
    ]) {
      expect(parseTimestamp(bad), bad).toBeNull();
    }
  });

  it('dates YYYY-MM-DD, leap years honoured', () => {
    expect(isDate('2024-02-29')).toBe(true);
    expect(isDate('2000-02-29')).toBe(true);
    expect(isDate('1900-02-29')).toBe(false);
    expect(isDate('2023-02-29')).toBe(false);
    expect(isDate('2023-2-1')).toBe(false);
  });

  it('email: no leading dot, no two dots in a row, a 2+ letter top-level part', () => {
    for (const ok of ['mario.rossi@example.com', 'a+b@studio.dental.it', "o'neil@x.io"]) expect(isEmail(ok), ok).toBe(true);
    for (const bad of [
      '.mario@example.com',
      'mario..rossi@example.com',
      'mario@example.c',
      'mario@example',
      'mario@',
      '@example.com',
      'ma rio@example.com',
      'mario@exa..mple.com',
    ]) {
      expect(isEmail(bad), bad).toBe(false);
    }
  });

  it('phones to canonical E.164 whatever the format', () => {
    const forms = ['333 123 4567', '+39 333 1234567', '0039 333-123-4567', '(+39) 3331234567', '+393331234567'];
    for (const f of forms) expect(toCanonicalPhone(f, 'IT'), f).toBe('+393331234567');
    expect(toCanonicalPhone('02 1234 5678', 'IT')).toBe('+390212345678');
    expect(toCanonicalPhone('+44 20 7946 0958', 'IT')).toBe('+442079460958');
    for (const bad of ['abc', '12', 'anonymous']) expect(toCanonicalPhone(bad, 'IT'), bad).toBeNull();
  });
});

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      databaseUrl: null,
      dataDir: './data',
      redisUrl: null,
      adminToken: null,
      adminPort: null,
      adminHost: '127.0.0.1',
      logLevel: 'info',
      defaultPhoneRegion: 'IT',
      webhookAllowInsecure: false,
    });
  });

  it('stops on a bad value, naming the variable', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ PORT: 'eighty' }, 'PORT'],
      [{ PORT: '70000' }, 'PORT'],
      [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
      [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
      [{ DEFAULT_PHONE_REGION: 'XX' }, 'DEFAULT_PHONE_REGION'],
      [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
      [{ ADMIN_PORT: '3001' }, 'ADMIN_PORT'], // no back office to serve without a token
      [{ ADMIN_PORT: '3000', ADMIN_TOKEN: 'a-long-enough-admin-token' }, 'ADMIN_PORT'], // the same port as PORT
      [{ ADMIN_PORT: 'x', ADMIN_TOKEN: 'a-long-enough-admin-token' }, 'ADMIN_PORT'],
      [{ WEBHOOK_ALLOW_INSECURE: 'maybe' }, 'WEBHOOK_ALLOW_INSECURE'],
    ];
    for (const [env, name] of cases) {
      expect(() => loadConfig(env), name).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(name);
    }
    expect(loadConfig({ ADMIN_PORT: '3001', ADMIN_HOST: '10.0.0.5', ADMIN_TOKEN: 'a-long-enough-admin-token' })).toMatchObject({
      adminPort: 3001,
      adminHost: '10.0.0.5',
    });
  });
});
