/**
 * Patients (spec 2.3, 4.2, 4.11): creation with duplicate and concurrency rules, reads, lookup
 * by phone and the bulk import. The back-office changes are in back-office.ts; every statement
 * is in store.ts, which answers in outcomes that become errors here, once.
 */
import type { Db, Transaction } from '../../db/transaction.js';
import { findScoped } from '../../db/scoped.js';
import { recordEvent } from '../../events/record.js';
import { BULK_EVENT_THRESHOLD, recordSkipped } from '../../events/skipped.js';
import { seesFacility } from '../auth/index.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { can, type Actor } from '../../core/actor.js';
import { toCanonicalPhone } from '../../lib/phone.js';
import { lookupQueryIssues, patientBodyIssues } from './checks.js';
import { checkFacility } from './facility.js';
import { CLINICAL_FIELDS, type PatientInput, type PatientLookup, type PatientUpdate, type PatientView } from './schema.js';
import {
  draftOf,
  findDuplicate,
  findPatientByPhone,
  inCreationTransaction,
  insertImported,
  insertPatient,
  planLimitFor,
  type Draft,
  type Duplicate,
  type PlanLimit,
} from './store.js';
import { addNameTerms } from './search-store.js';
import { eventData, patientView, type PatientRow } from './view.js';

/** Phone to E.164; null when absent (or not a phone: patientBodyIssues names it). */
export function canonicalPhone(value: string | null | undefined, region: string): string | null {
  return value === undefined || value === null ? null : toCanonicalPhone(value, region);
}

function requireClinicalWrite(actor: Actor, input: PatientUpdate): void {
  const sent = CLINICAL_FIELDS.filter((f) => input[f] !== undefined);
  if (sent.length > 0 && !can(actor, 'clinical:write')) throw new ApiError('insufficient_scope', { requiredScopes: ['clinical:write'] });
}

/**
 * `409 duplicate_patient`. The rule is clinic-wide, but the id is told only to a key that sees
 * that patient: a key limited to facilities learns nothing of the others (`patientId: null`).
 */
function duplicatePatient(actor: Actor, duplicate: Duplicate, more: { index?: number } = {}): ApiError {
  const patientId = seesFacility(actor, duplicate.facilityId) ? duplicate.patientId : null;
  return ApiError.conflict('duplicate_patient', { patientId, ...more }, 'Esiste già un paziente con lo stesso nome e lo stesso telefono o email.');
}

function planLimitReached(limit: PlanLimit): ApiError {
  return ApiError.forbidden('plan_limit', { patientLimit: limit.limit }, 'Il piano dello studio ha raggiunto il numero massimo di pazienti.');
}

async function prepareCreate(trx: Transaction, actor: Actor, input: PatientInput, path = ''): Promise<Draft> {
  const issues = patientBodyIssues(input, actor, path);
  const phone = canonicalPhone(input.phone, actor.region);
  const facilityId = await checkFacility(trx, actor, input.facilityId, issues, `${path}facilityId`);
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  return draftOf(actor.clinicId, facilityId, phone, input);
}

/**
 * Creates a patient inside the actor's transaction (also used by lead conversion): duplicate,
 * concurrency and plan-limit rules, then `patient.created` (store.ts insertPatient says how, in
 * two statements). Every refusal throws, and the transaction's rollback takes the insert with it.
 * `commits`: the insert's statement carries the COMMIT (src/db/then-commit.ts).
 */
export async function createPatientInTransaction(
  trx: Transaction,
  actor: Actor,
  input: PatientInput,
  { commits = false }: { commits?: boolean } = {},
): Promise<PatientRow> {
  requireClinicalWrite(actor, input);
  const draft = await prepareCreate(trx, actor, input);
  const outcome = await insertPatient(trx, actor.clinicId, actor.log, draft, { commits });
  switch (outcome.kind) {
    case 'created':
      return outcome.row;
    case 'concurrent':
      throw ApiError.conflict('concurrent_request', {}, 'Un’altra richiesta sta creando la stessa persona: rileggi e riprova.');
    case 'duplicate':
      throw duplicatePatient(actor, outcome);
    case 'plan_limit':
      throw planLimitReached(outcome);
  }
}

/**
 * POST /patients: the creation in one transaction whose last statement commits it (one round
 * trip fewer); where that statement refuses to commit, the creation runs again the usual way,
 * which answers the duplicate, the limit or records the event as it always did.
 */
export async function createPatient(db: Db, actor: Actor, input: PatientInput): Promise<{ view: PatientView; version: number }> {
  requireClinicalWrite(actor, input);
  const row = await inCreationTransaction(db, (trx, commits) => createPatientInTransaction(trx, actor, input, { commits }));
  return { view: patientView(row, can(actor, 'clinical:read')), version: row.version };
}

export async function getPatient(db: Db, actor: Actor, id: string): Promise<{ view: PatientView; version: number }> {
  const row = await findScoped(db, 'patients', actor, id);
  return { view: patientView(row, can(actor, 'clinical:read')), version: row.version };
}

/** The lookup of the API (spec): the patient with this phone, as findPatientByPhone finds it. */
export async function lookupPatient(db: Db, actor: Actor, phone: string): Promise<PatientLookup> {
  const canonical = toCanonicalPhone(phone, actor.region);
  if (!canonical) throw ApiError.invalid('query', lookupQueryIssues({ phone }, actor));
  const row = await findPatientByPhone(db, actor, canonical);
  if (!row) return { found: false, patient: null };
  return { found: true, patient: { id: row.id, name: `${row.first_name ?? ''} ${row.last_name ?? ''}`.trim() } };
}

/**
 * Back office: creates a list of patients in one transaction, all or none. A duplicate
 * (in the clinic or twice in the list) is `409 duplicate_patient` with its position in
 * `details.index`. More than 50 creations record one `events.skipped` (reason `bulk_import`)
 * instead of one `patient.created` each.
 */
export async function importPatients(db: Db, actor: Actor, inputs: PatientInput[]): Promise<{ ids: string[]; eventsSkipped: boolean }> {
  for (const input of inputs) requireClinicalWrite(actor, input);
  return db.transaction().execute(async (trx) => {
    const clinicId = actor.clinicId;
    const issues: ValidationIssue[] = [];
    const drafts: Draft[] = [];
    for (const [i, input] of inputs.entries()) {
      try {
        drafts.push(await prepareCreate(trx, actor, input, `patients.${i}.`));
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_request') issues.push(...((error.details?.issues as ValidationIssue[]) ?? []));
        else throw error;
      }
    }
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    const seen = new Map<string, number>();
    for (const [i, p] of drafts.entries()) {
      for (const k of [p.phone && `p:${p.nameKey}:${p.phone}`, p.email && `e:${p.nameKey}:${p.email}`]) {
        if (!k) continue;
        if (seen.has(k)) throw ApiError.conflict('duplicate_in_list', { index: i, firstIndex: seen.get(k) }, 'La lista contiene due volte la stessa persona.');
        seen.set(k, i);
      }
      const duplicate = await findDuplicate(trx, clinicId, p);
      if (duplicate) throw duplicatePatient(actor, duplicate, { index: i });
    }
    const limit = await planLimitFor(trx, clinicId, drafts.length);
    if (limit) throw planLimitReached(limit);
    const bulk = drafts.length > BULK_EVENT_THRESHOLD;
    const ids: string[] = [];
    // One sorted insert of all names: concurrent imports then never lock names in opposite orders.
    await addNameTerms(
      trx,
      clinicId,
      inputs.flatMap((i) => [i.firstName, i.lastName]),
    );
    for (const p of drafts) {
      const created = await insertImported(trx, p);
      ids.push(created.id);
      if (!bulk) await recordEvent(trx, { log: actor.log, clinicId, type: 'patient.created', facilityId: created.facility_id, data: eventData(created) });
    }
    if (bulk) await recordSkipped(trx, clinicId, 'patient.created', { reason: 'bulk_import', count: drafts.length });
    return { ids, eventsSkipped: bulk };
  });
}
