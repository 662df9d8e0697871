/**
 * Who acts: the identity an API key gives a request (spec 5), the same in every process.
 * Built by src/modules/auth/authenticate.ts; services read it, never the HTTP request.
 */

/** `dcm_live_…` or `dcm_test_…` (src/modules/auth/tokens.ts). */
export type KeyKind = 'live' | 'test';

export interface AuthContext {
  keyId: string;
  kind: KeyKind;
  clinicId: string;
  organizationId: string;
  /** A test clinic: nothing is sent outside (spec 1.4). */
  testMode: boolean;
  scopes: ReadonlySet<string>;
  /** null: every facility of the clinic. Lower-case ids. */
  facilityIds: readonly string[] | null;
  aiEnabled: boolean;
  /** The clinic's IANA time zone (`clinics.timezone`), read with the key: local dates need no query. */
  timeZone: string;
}
