/** The connection limits' configuration (README, "Configuration"): documented defaults, overrides, named errors. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { serverTimeouts } from '../../src/http/connections.js';

describe('connection limits configuration', () => {
  it('defaults: 10 s headers, 30 s request, 72 s keep-alive, 120 s idle, 256 per address, 1 KiB/s over 20 s for uploads', () => {
    expect(loadConfig({}).connections).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 72_000,
      idleTimeoutMs: 120_000,
      maxPerAddress: 256,
      uploadMinBytesPerSecond: 1024,
      uploadRateWindowMs: 20_000,
    });
  });

  it('reads every variable, and 0 turns the per-address cap off', () => {
    const c = loadConfig({
      HEADERS_TIMEOUT_MS: '5000',
      REQUEST_TIMEOUT_MS: '60000',
      KEEP_ALIVE_TIMEOUT_MS: '65000',
      IDLE_TIMEOUT_MS: '90000',
      MAX_CONNECTIONS_PER_ADDRESS: '0',
      UPLOAD_MIN_BYTES_PER_SECOND: '4096',
      UPLOAD_RATE_WINDOW_MS: '10000',
    }).connections;
    expect(c).toEqual({
      headersTimeoutMs: 5000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 65_000,
      idleTimeoutMs: 90_000,
      maxPerAddress: 0,
      uploadMinBytesPerSecond: 4096,
      uploadRateWindowMs: 10_000,
    });
  });

  it('gives Node the timers, checked at least every second', () => {
    const options = serverTimeouts(loadConfig({}).connections);
    expect(options).toEqual({
      connectionTimeout: 120_000,
      keepAliveTimeout: 72_000,
      requestTimeout: 30_000,
      http: { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1000 },
    });
  });

  it('refuses a bad value naming the variable', () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '30s' })).toThrow(/REQUEST_TIMEOUT_MS/);
    expect(() => loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '-1' })).toThrow(/MAX_CONNECTIONS_PER_ADDRESS/);
  });
});
