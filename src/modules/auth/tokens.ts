/**
 * API key tokens: `dcm_live_<43 chars>` or `dcm_test_<43 chars>` (256 random bits, base64url).
 * Only the SHA-256 of a token is stored; a fast hash is right here because the token is
 * random and long, so there is nothing to brute-force.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { KeyKind } from '../../core/actor.js';

const TOKEN = /^dcm_(live|test)_[A-Za-z0-9_-]{43}$/;

export function generateToken(kind: KeyKind): string {
  return `dcm_${kind}_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The kind a well-formed token announces, or null for a malformed one. */
export function tokenKind(token: string): KeyKind | null {
  const m = TOKEN.exec(token);
  return m ? (m[1] as KeyKind) : null;
}

/** What lists show of a token: its kind and first characters. */
export function tokenPrefix(token: string): string {
  return token.slice(0, 16);
}
