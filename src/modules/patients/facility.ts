/**
 * The `facilityId` rule shared by patients, leads and calls: a key limited to facilities
 * must send one, and a sent one must be a facility of the clinic that the key sees.
 * Either failure is a `400 invalid_request` naming `facilityId` (it is input, not a path).
 */
import type { Transaction } from '../../db/transaction.js';
import type { TenantScope } from '../../db/tenant.js';
import type { ValidationIssue } from '../../core/errors.js';
import { facilityOfClinic } from '../facilities/index.js';

export async function checkFacility(
  trx: Transaction,
  scope: TenantScope,
  facilityId: string | null | undefined,
  issues: ValidationIssue[],
  path = 'facilityId',
): Promise<string | null> {
  if (facilityId === undefined || facilityId === null) {
    if (scope.facilityIds !== null) issues.push({ path, message: 'campo obbligatorio per una chiave limitata a delle sedi' });
    return null;
  }
  const id = facilityId.toLowerCase();
  if (scope.facilityIds !== null && !scope.facilityIds.includes(id)) {
    issues.push({ path, message: 'sede non accessibile con questa chiave' });
    return null;
  }
  if (!(await facilityOfClinic(trx, scope.clinicId, id))) {
    issues.push({ path, message: 'sede inesistente' });
    return null;
  }
  return id;
}
