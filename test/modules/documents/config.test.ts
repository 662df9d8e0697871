/** The documents' configuration (README, "Configuration"): defaults, the s3 and clamd choices, and named errors. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';

describe('documents configuration', () => {
  it('defaults to fs inside the data folder, 25 MiB, 30 days, no scanner', () => {
    const c = loadConfig({ DATA_DIR: '/srv/dcm/data/' }).documents;
    expect(c).toMatchObject({
      storage: 'fs',
      dir: '/srv/dcm/data/documents',
      s3: null,
      maxBytes: 25 * 1_048_576,
      retentionDays: 30,
      scanner: { kind: 'none' },
      publicUrl: null,
    });
  });

  it('chooses s3 with S3_ENDPOINT and clamd with CLAMD_URL', () => {
    const c = loadConfig({
      S3_ENDPOINT: 'https://s3.example.com',
      S3_BUCKET: 'docs',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      CLAMD_URL: 'tcp://clamav:3310',
      DOCUMENT_MAX_BYTES: '1048576',
      DOCUMENT_RETENTION_DAYS: '0',
    }).documents;
    expect(c.storage).toBe('s3');
    expect(c.s3).toMatchObject({ endpoint: 'https://s3.example.com', bucket: 'docs', region: 'us-east-1', forcePathStyle: true });
    expect(c.scanner).toEqual({ kind: 'clamd', host: 'clamav', port: 3310, timeoutMs: 30_000 });
    expect(c).toMatchObject({ maxBytes: 1_048_576, retentionDays: 0 });
  });

  it('names the variable of a bad value', () => {
    expect(() => loadConfig({ S3_ENDPOINT: 'https://s3.example.com' })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig({ CLAMD_URL: 'http://clamav:3310' })).toThrow(/CLAMD_URL/);
    expect(() => loadConfig({ DOCUMENT_MAX_BYTES: '25MB' })).toThrow(/DOCUMENT_MAX_BYTES/);
    expect(() => loadConfig({ PUBLIC_URL: 'api.example.com' })).toThrow(/PUBLIC_URL/);
  });
});
