/** Patients in the back office (spec 4.11): update, archive and erase; their statements are in store.ts. */
import { forgetPatientDocuments, purgePatientDocuments, type DocumentsDeps } from '../documents/index.js';
import { findScoped } from '../../db/scoped.js';
import type { Db } from '../../db/transaction.js';
import { recordEvent } from '../../events/record.js';
import { ApiError } from '../../core/errors.js';
import { can, type Actor } from '../../core/actor.js';
import { assertVersion, versionMismatch } from '../../core/version.js';
import { checkFacility } from './facility.js';
import type { PatientInput, PatientUpdate, PatientView } from './schema.js';
import { canonicalPhone } from './service.js';
import { patientBodyIssues } from './checks.js';
import { archiveRow, eraseRows, updateRow } from './store.js';
import { eventData, normalizeAddress, patientView, type PatientRow } from './view.js';

const FIELD_COLUMNS: Record<keyof PatientInput, keyof PatientRow> = {
  firstName: 'first_name',
  lastName: 'last_name',
  email: 'email',
  phone: 'phone',
  dateOfBirth: 'date_of_birth',
  gender: 'gender',
  taxCode: 'tax_code',
  address: 'address',
  facilityId: 'facility_id',
  referralSource: 'referral_source',
  allergies: 'allergies',
  medications: 'medications',
  conditions: 'conditions',
  notes: 'notes',
};

const erased = () => ApiError.conflict('patient_erased', {}, 'Il paziente è stato cancellato.');

/**
 * Back office: changes the sent fields (null clears one). `patient.updated` lists in
 * `data.changedFields` the fields whose value really changed; nothing changed records no event.
 */
export async function updatePatient(
  db: Db,
  actor: Actor,
  id: string,
  input: PatientUpdate,
  expectedVersion: number | null,
): Promise<{ view: PatientView; version: number }> {
  const row = await db.transaction().execute(async (trx) => {
    const current = await findScoped(trx, 'patients', actor, id);
    if (current.erased_at) throw erased();
    assertVersion(expectedVersion, current.version);
    const issues = patientBodyIssues(input, actor);
    const phone = input.phone === undefined ? undefined : canonicalPhone(input.phone, actor.region);
    const facilityId = input.facilityId === undefined ? undefined : await checkFacility(trx, actor, input.facilityId, issues);
    if (issues.length > 0) throw ApiError.invalid('body', issues);

    const next: Record<string, unknown> = {};
    const changed: Array<keyof PatientInput> = [];
    for (const [field, column] of Object.entries(FIELD_COLUMNS) as Array<[keyof PatientInput, keyof PatientRow]>) {
      if (input[field] === undefined) continue;
      let value: unknown = input[field];
      if (field === 'phone') value = phone;
      if (field === 'facilityId') value = facilityId;
      if (field === 'address') value = normalizeAddress(input.address);
      if (JSON.stringify(value ?? null) === JSON.stringify(current[column] ?? null)) continue;
      changed.push(field);
      next[column] = field === 'address' ? (value === null ? null : JSON.stringify(value)) : (value ?? null);
    }
    if (changed.length === 0) return current;
    const updated = await updateRow(trx, current, next, {
      firstName: (input.firstName ?? current.first_name) as string | null,
      lastName: (input.lastName ?? current.last_name) as string | null,
      taxCode: input.taxCode === undefined ? current.tax_code : input.taxCode,
    });
    if (!updated) throw versionMismatch();
    await recordEvent(trx, {
      log: actor.log,
      clinicId: actor.clinicId,
      type: 'patient.updated',
      facilityId: updated.facility_id,
      data: { ...eventData(updated), changedFields: changed },
    });
    return updated;
  });
  return { view: patientView(row, can(actor, 'clinical:read')), version: row.version };
}

/** Back office: archives an active patient (`isActive` false, `archivedAt`); 409 `already_archived` otherwise. */
export async function archivePatient(db: Db, actor: Actor, id: string): Promise<{ view: PatientView; version: number }> {
  const row = await db.transaction().execute(async (trx) => {
    const current = await findScoped(trx, 'patients', actor, id);
    if (current.erased_at) throw erased();
    if (!current.is_active) throw ApiError.conflict('already_archived', {}, 'Il paziente è già archiviato.');
    const updated = await archiveRow(trx, current.id, new Date());
    await recordEvent(trx, {
      log: actor.log,
      clinicId: actor.clinicId,
      type: 'patient.archived',
      facilityId: updated.facility_id,
      data: { ...eventData(updated), reason: 'archived' },
    });
    return updated;
  });
  return { view: patientView(row, can(actor, 'clinical:read')), version: row.version };
}

/**
 * Back office: erases a patient for good. Every personal and clinical field becomes null;
 * the id, facility and timestamps stay so that appointments, calls and leads still link to
 * it. The free text of its appointments (title, reason, notes, clinical and completion
 * notes) and the summary and transcript of its calls are cleared too, its documents lose their
 * titles and file names and their bytes are purged (with `documents`). 409 `already_erased`
 * when done before.
 */
export async function erasePatient(db: Db, actor: Actor, id: string, documents?: DocumentsDeps): Promise<{ view: PatientView; version: number }> {
  const row = await db.transaction().execute(async (trx) => {
    const current = await findScoped(trx, 'patients', actor, id);
    if (current.erased_at) throw ApiError.conflict('already_erased', {}, 'Il paziente è già stato cancellato.');
    const updated = await eraseRows(trx, current, new Date());
    await recordEvent(trx, {
      log: actor.log,
      clinicId: actor.clinicId,
      type: 'patient.archived',
      facilityId: updated.facility_id,
      data: { ...eventData(updated), reason: 'erased' },
    });
    await forgetPatientDocuments(trx, actor, current.id);
    return updated;
  });
  // The documents' bytes go at once, after the commit (storage is no part of the transaction; the purge job finishes what a crash interrupts).
  if (documents) await purgePatientDocuments(documents, actor, row.id);
  return { view: patientView(row, can(actor, 'clinical:read')), version: row.version };
}
