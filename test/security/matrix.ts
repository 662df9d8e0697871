/**
 * The security matrix (DESIGN convention 6): one case per /v1 route, each file in
 * test/security/cases/ contributing its module's cases. matrix.test.ts runs, for every
 * case: no key (401 unauthenticated), bad key (401 api_key_invalid), revoked key
 * (401 api_key_revoked), each required scope missing (403 insufficient_scope naming
 * exactly the missing ones), and for routes on one resource: a key of another clinic
 * and a key limited to another facility (404 not_found). It also fails when a /v1 route
 * has no case, so a new route cannot skip it.
 */
import type { Scope } from '../../src/modules/auth/scopes.js';
import type { Tenant } from '../helpers/factories.js';
import type { TestServer } from '../helpers/server.js';

export interface PreparedCall {
  /** Path with real ids, e.g. `/v1/facilities/<id>`. */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface MatrixCase {
  /** The route's operationId. */
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Exactly the scopes this call needs (with the body `prepare` returns). */
  scopes: Scope[];
  /**
   * Creates what the call needs in the tenant's clinic, in the tenant's first facility
   * (`tenant.facilityIds[0]`), and returns the call. Called once per check, so it may
   * create fresh rows each time (creations must not collide with earlier checks).
   */
  prepare(server: TestServer, tenant: Tenant): Promise<PreparedCall>;
  /**
   * The call names one resource of the tenant (a path id): a key of another clinic and a
   * key limited to the tenant's second facility must get 404. False for lists and
   * creations, whose isolation is tested in their own files.
   */
  resource: boolean;
  /** Status the full-scope key gets (sanity check that the case is real). Default: any 2xx. */
  okStatus?: number;
}
