/** The malware scanner: `none` (default) or `clamd` (CLAMD_URL). */
import type { Readable } from 'node:stream';

export type ScanOutcome = { infected: false } | { infected: true; signature: string };

/** The scanner did not answer (down, timed out, broken reply): the document waits and is retried. */
export class ScannerUnavailableError extends Error {}

export interface Scanner {
  readonly kind: 'none' | 'clamd';
  scan(bytes: Readable): Promise<ScanOutcome>;
}

export const noScanner: Scanner = {
  kind: 'none',
  async scan(bytes) {
    bytes.destroy();
    return { infected: false };
  },
};
