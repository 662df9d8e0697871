/**
 * Patients (spec 2.3, 4.2, 4.11): creation with duplicate and concurrency rules, reads,
 * lookup by phone, and the back-office update, archive, erase and bulk import.
 */
import { forgetPatientDocuments, purgePatientDocuments, type DocumentsDeps } from '../documents/service.js';
import { randomUUID } from 'node:crypto';
import { sql, type InsertObject, type RawBuilder, type Selectable } from 'kysely';
import { findScoped } from '../../db/scoped.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { DB } from '../../db/schema.js';
import type { Address, PatientsTable } from '../../db/tables/core.js';
import { facilityVisible } from '../../db/tenant.js';
import { assertSameEventData, recordEvent, recordEventIn } from '../../events/record.js';
import type { EventData } from './events.js';
import { seesFacility } from '../auth/authenticate.js';
import { BULK_EVENT_THRESHOLD, recordSkipped } from '../../events/skipped.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { can, type Actor } from '../../core/actor.js';
import { assertVersion, versionMismatch } from '../../core/version.js';
import { toCanonicalPhone } from '../../lib/phone.js';
import { checkFacility } from './facility.js';
import { CLINICAL_FIELDS, type AddressInput, type PatientInput, type PatientLookup, type PatientUpdate, type PatientView } from './schema.js';
import { lookupKeys, normalizeEmail, normalizeName, normalizeTaxCode } from './normalize.js';
import { lastStatement, withCommitInLast } from '../../db/then-commit.js';
import { prepared } from '../../db/prepared-statements.js';

type PatientRow = Selectable<PatientsTable>;

export { CLINICAL_FIELDS, GENDERS, REFERRAL_SOURCES } from './schema.js';

export function patientView(row: PatientRow, clinicalRead: boolean): PatientView {
  const view: PatientView = {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    dateOfBirth: row.date_of_birth,
    gender: row.gender as PatientView['gender'],
    taxCode: row.tax_code,
    address: row.address ?? null,
    facilityId: row.facility_id,
    referralSource: row.referral_source as PatientView['referralSource'],
    isActive: row.is_active,
    archivedAt: row.archived_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  if (clinicalRead) {
    view.allergies = row.allergies;
    view.medications = row.medications;
    view.conditions = row.conditions;
    view.notes = row.notes;
  }
  return view;
}

/** Event `data` of the patient events: ids, state and timestamps, never personal data (spec 6.2). */
function eventData(row: Pick<PatientRow, 'id' | 'facility_id' | 'is_active' | 'archived_at' | 'created_at' | 'updated_at'>): EventData<'patient.created'> {
  return {
    id: row.id,
    facilityId: row.facility_id,
    isActive: row.is_active,
    archivedAt: row.archived_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function normalizeAddress(a: AddressInput | null | undefined): Address | null {
  if (!a) return null;
  return { street: a.street ?? null, city: a.city ?? null, zip: a.zip ?? null, country: a.country ?? null };
}

/** The search and duplicate-check columns of a name and tax code (dmetaphone is computed by the database). */
export function searchColumns(firstName: string | null, lastName: string | null, taxCode: string | null) {
  const first = normalizeName(firstName);
  const last = normalizeName(lastName);
  const full = `${first} ${last}`.trim();
  return {
    first_norm: first || null,
    last_norm: last || null,
    full_norm: full || null,
    phon_first: first ? sql<string>`dmetaphone(${first})` : null,
    phon_last: last ? sql<string>`dmetaphone(${last})` : null,
    tax_code_norm: normalizeTaxCode(taxCode),
  };
}

/** The vocabulary rows of some names: their terms, sorted, and each term's lookup keys, in that order. */
interface Vocabulary {
  terms: string[];
  keys: string[];
  /** The term of each key. */
  of: string[];
}

function vocabularyOf(names: Array<string | null | undefined>): Vocabulary | null {
  const terms = [...new Set(names.map((n) => normalizeName(n)).filter((n) => n.length > 0))].sort();
  if (terms.length === 0) return null;
  const keys: string[] = [];
  const of: string[] = [];
  for (const term of terms) {
    for (const key of lookupKeys(term)) {
      keys.push(key);
      of.push(term);
    }
  }
  return { terms, keys, of };
}

/**
 * The CTEs that add a vocabulary (see migration 0010): `name_terms` inserts the terms the
 * clinic lacks and returns them, `name_keys` the keys of those terms only. Rows go in sorted
 * order (terms, then keys in the order of their terms), so concurrent writers never take two
 * names in opposite orders. `when`: a condition on the statement's other CTEs (e.g. that the
 * patient was inserted); no row is added when it is false.
 */
function vocabularyCtes(clinicId: string, v: Vocabulary, when: RawBuilder<boolean> = sql<boolean>`true`) {
  return sql`name_terms AS (
      INSERT INTO patient_name_terms (clinic_id, term, phon)
      SELECT ${clinicId}::uuid, t, dmetaphone(t) FROM unnest(${v.terms}::text[]) WITH ORDINALITY AS x(t, n) WHERE ${when} ORDER BY n
      ON CONFLICT DO NOTHING RETURNING term
    ), name_keys AS (
      INSERT INTO patient_name_keys (clinic_id, key, term)
      SELECT ${clinicId}::uuid, k, t FROM unnest(${v.keys}::text[], ${v.of}::text[]) WITH ORDINALITY AS x(k, t, n)
      WHERE t IN (SELECT term FROM name_terms) ORDER BY n
      ON CONFLICT DO NOTHING
    )`;
}

/**
 * Adds names to the clinic's search vocabulary and their deletion keys (see migration 0010), in
 * one statement. Takes the database handle too: the vocabulary only grows (ON CONFLICT DO
 * NOTHING), so a bulk load (bench/search.ts) may add terms outside a patient's transaction.
 */
export async function addNameTerms(trx: Db, clinicId: string, names: Array<string | null | undefined>): Promise<void> {
  const vocabulary = vocabularyOf(names);
  if (!vocabulary) return;
  await sql`WITH ${vocabularyCtes(clinicId, vocabulary)} SELECT 1`.execute(trx);
}

/** Phone to E.164, or an issue naming the field. */
export function canonicalPhoneOrIssue(value: string | null | undefined, region: string, path: string, issues: ValidationIssue[]): string | null {
  if (value === undefined || value === null) return null;
  const canonical = toCanonicalPhone(value, region);
  if (!canonical) issues.push({ path, message: 'non è un numero di telefono valido' });
  return canonical;
}

function requireClinicalWrite(actor: Actor, input: PatientUpdate): void {
  const sent = CLINICAL_FIELDS.filter((f) => input[f] !== undefined);
  if (sent.length > 0 && !can(actor, 'clinical:write')) throw new ApiError('insufficient_scope', { requiredScopes: ['clinical:write'] });
}

/** A 64-bit advisory lock key for "someone is creating this person in this clinic". */
function personLockKey(clinicId: string, kind: 'phone' | 'email', value: string) {
  return sql<string>`hashtextextended(${`${clinicId}:${kind}:${value}`}, 0)`;
}

interface Draft {
  values: InsertObject<DB, 'patients'>;
  /** The `patient.created` data of the row `values` writes (a new patient is active, not archived). */
  eventData: EventData<'patient.created'>;
  phone: string | null;
  email: string | null;
  nameKey: string;
}

async function prepareCreate(trx: Transaction, actor: Actor, input: PatientInput, path = ''): Promise<Draft> {
  const issues: ValidationIssue[] = [];
  const phone = canonicalPhoneOrIssue(input.phone, actor.region, `${path}phone`, issues);
  const facilityId = await checkFacility(trx, actor, input.facilityId, issues, `${path}facilityId`);
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  const now = new Date();
  const id = randomUUID();
  const email = normalizeEmail(input.email);
  return {
    phone,
    email,
    nameKey: `${normalizeName(input.firstName)} ${normalizeName(input.lastName)}`,
    eventData: eventData({ id, facility_id: facilityId, is_active: true, archived_at: null, created_at: now, updated_at: now }),
    values: {
      id,
      clinic_id: actor.clinicId,
      facility_id: facilityId,
      first_name: input.firstName,
      last_name: input.lastName,
      email: input.email ?? null,
      phone,
      date_of_birth: input.dateOfBirth ?? null,
      gender: input.gender ?? null,
      tax_code: input.taxCode ?? null,
      address: input.address ? JSON.stringify(normalizeAddress(input.address)) : null,
      referral_source: input.referralSource ?? null,
      allergies: input.allergies ?? null,
      medications: input.medications ?? null,
      conditions: input.conditions ?? null,
      notes: input.notes ?? null,
      created_at: now,
      updated_at: now,
      ...searchColumns(input.firstName, input.lastName, input.taxCode ?? null),
    },
  };
}

/**
 * The rule's query: the oldest not erased patient with the same normalized name and the same
 * phone or email (at least one of them given). One lookup per contact, each naming every column
 * of its index (clinic and phone, clinic and email), joined by UNION ALL: the creation's statement
 * is prepared (src/db/prepared-statements.ts), and a plan made without the values then finds
 * those indexes the cheapest. With `phone = … OR lower(email) = …` the leads' prepared plan read
 * the clinic's rows by one index and filtered them.
 */
function duplicateQuery(trx: Db, clinicId: string, p: Pick<Draft, 'phone' | 'email' | 'nameKey'>) {
  const sameName = trx
    .selectFrom('patients')
    .select(['id', 'facility_id', 'created_at'])
    .where('clinic_id', '=', clinicId)
    .where('erased_at', 'is', null)
    .where('full_norm', '=', p.nameKey.trim());
  const byPhone = p.phone ? sameName.where('phone', '=', p.phone) : null;
  const byEmail = p.email ? sameName.where(sql`lower(email)`, '=', p.email) : null;
  const found = byPhone && byEmail ? byPhone.unionAll(byEmail) : (byPhone ?? byEmail ?? sameName.where(sql<boolean>`false`));
  return trx.selectFrom(found.as('found')).select(['id', 'facility_id']).orderBy('created_at').limit(1);
}

/**
 * An existing, not erased patient with the same normalized name and the same phone or email.
 * The rule is clinic-wide, but the id is told only to a key that sees that patient: a key
 * limited to facilities learns nothing of the others (`patientId: null`).
 */
function duplicateOf(actor: Actor, row: { id: string; facility_id: string | null } | undefined): { patientId: string | null } | null {
  if (!row) return null;
  return { patientId: seesFacility(actor, row.facility_id) ? row.id : null };
}

async function findDuplicate(trx: Transaction, actor: Actor, p: Pick<Draft, 'phone' | 'email' | 'nameKey'>): Promise<{ patientId: string | null } | null> {
  if (!p.phone && !p.email) return null;
  return duplicateOf(actor, await duplicateQuery(trx, actor.clinicId, p).executeTakeFirst());
}

const planLimitLock = (clinicId: string) => sql`hashtextextended(${`${clinicId}:patient_limit`}, 0)`;
const activePatients = (clinicId: string) => sql<string>`(SELECT count(*) FROM patients WHERE clinic_id = ${clinicId} AND is_active)`;

function planLimitReached(patientLimit: number): ApiError {
  return ApiError.forbidden('plan_limit', { patientLimit }, 'Il piano dello studio ha raggiunto il numero massimo di pazienti.');
}

async function checkPlanLimit(trx: Transaction, clinicId: string, adding: number): Promise<void> {
  const clinic = await trx.selectFrom('clinics').select('patient_limit').where('id', '=', clinicId).executeTakeFirstOrThrow();
  if (clinic.patient_limit === null) return;
  // Serializes creations of one clinic while it has a limit, so two of them cannot both pass the count.
  await sql`SELECT pg_advisory_xact_lock(${planLimitLock(clinicId)})`.execute(trx);
  const { rows } = await sql<{ n: string }>`SELECT ${activePatients(clinicId)} AS n`.execute(trx);
  if (Number(rows[0]!.n) + adding > clinic.patient_limit) throw planLimitReached(clinic.patient_limit);
}

async function insertPatient(trx: Transaction, draft: Draft, addTerms = true): Promise<PatientRow> {
  const row = await trx.insertInto('patients').values(draft.values).returningAll().executeTakeFirstOrThrow();
  if (addTerms) await addNameTerms(trx, row.clinic_id, [row.first_name, row.last_name]);
  return row;
}

/**
 * Creates a patient inside the actor's transaction (also used by lead conversion):
 * duplicate, concurrency and plan-limit rules, then `patient.created`.
 *
 * Two statements before the event (issue 20; each round trip cost more than the work it did):
 * 1. the locks: this person's phone and email (tried: another transaction holding one is
 *    creating the same person now) and, while the clinic has a patient limit, the clinic's
 *    limit lock (waited for: creations of a limited clinic are serialized, so two of them
 *    cannot both pass the count); with the limit itself;
 * 2. the insert of the patient and its names, with the duplicate search and the count of active
 *    patients in the same statement. Every part of a statement reads the snapshot taken when it
 *    starts, after the locks of statement 1: the search and the count see what the holders of
 *    those locks committed, and not the row being inserted. A duplicate or a reached limit
 *    throws, and the transaction rolls the insert back: a refused creation writes nothing.
 *
 * `commits`: statement 2 is the transaction's last and carries its COMMIT (src/db/then-commit.ts):
 * it fails instead, and nothing is written, where this function would throw or record the event
 * another way after it (a duplicate, the limit reached, an event not inserted). createPatient
 * then runs the creation again without it.
 */
export async function createPatientInTransaction(
  trx: Transaction,
  actor: Actor,
  input: PatientInput,
  { commits = false }: { commits?: boolean } = {},
): Promise<PatientRow> {
  requireClinicalWrite(actor, input);
  const draft = await prepareCreate(trx, actor, input);
  const clinicId = actor.clinicId;
  const tries = [draft.phone && personLockKey(clinicId, 'phone', draft.phone), draft.email && personLockKey(clinicId, 'email', draft.email)]
    .filter((k) => !!k)
    .map((k) => sql<boolean>`pg_try_advisory_xact_lock(${k})`);
  const { rows: locked } = await prepared(sql<{ ok: boolean; patient_limit: number | null }>`
    SELECT ${tries.length > 0 ? sql.join(tries, sql` AND `) : sql`true`} AS ok, c.patient_limit,
           CASE WHEN c.patient_limit IS NOT NULL THEN (SELECT true FROM pg_advisory_xact_lock(${planLimitLock(clinicId)})) END AS limit_locked
    FROM clinics c WHERE c.id = ${clinicId}`).execute(trx);
  const gate = locked[0];
  if (!gate) throw new Error(`createPatient: unknown clinic ${clinicId}`);
  if (!gate.ok) throw ApiError.conflict('concurrent_request', {}, 'Un’altra richiesta sta creando la stessa persona: rileggi e riprova.');

  const vocabulary = vocabularyOf([input.firstName, input.lastName]);
  const searchesDuplicate = !!(draft.phone || draft.email);
  // The event is recorded by the insert's own statement: a duplicate or the plan's limit then
  // throws, and the transaction's rollback takes the event with it.
  const event = recordEventIn(trx, { log: actor.log, clinicId, type: 'patient.created', facilityId: draft.eventData.facilityId, data: draft.eventData });
  type Written = PatientRow & { dup_id: string | null; dup_facility_id: string | null; active_patients: string | null; event_outcome: string };
  const ctes = sql`
    WITH created AS (${trx.insertInto('patients').values(draft.values).returningAll()})
    ${searchesDuplicate ? sql`, dup AS (${duplicateQuery(trx, clinicId, draft)})` : sql``}
    ${vocabulary ? sql`, ${vocabularyCtes(clinicId, vocabulary)}` : sql``}`;
  const answer = sql`
    SELECT created.*,
      ${searchesDuplicate ? sql`(SELECT id FROM dup)` : sql`NULL::uuid`} AS dup_id,
      ${searchesDuplicate ? sql`(SELECT facility_id FROM dup)` : sql`NULL::uuid`} AS dup_facility_id,
      ${gate.patient_limit !== null ? activePatients(clinicId) : sql`NULL::bigint`} AS active_patients,
      ${event.call} AS event_outcome
    FROM created`;
  const { rows } = await prepared(
    lastStatement<Written>(ctes, answer, {
      commits,
      refuseWhen: {
        duplicate: sql`answer.dup_id IS NOT NULL`,
        plan_limit: gate.patient_limit !== null ? sql`answer.active_patients + 1 > ${gate.patient_limit}` : sql`false`,
        event: sql`answer.event_outcome <> 'inserted'`,
      },
    }),
  ).execute(trx);
  const { dup_id, dup_facility_id, active_patients, event_outcome, ...created } = rows[0]!;
  const duplicate = duplicateOf(actor, dup_id ? { id: dup_id, facility_id: dup_facility_id } : undefined);
  if (duplicate) throw ApiError.conflict('duplicate_patient', duplicate, 'Esiste già un paziente con lo stesso nome e lo stesso telefono o email.');
  // The count does not see the row being inserted: it counts the others, as before an insert.
  if (gate.patient_limit !== null && Number(active_patients) + 1 > gate.patient_limit) throw planLimitReached(gate.patient_limit);
  assertSameEventData('patient.created', draft.eventData, () => eventData(created));
  await event.settle(trx, event_outcome);
  return created;
}

/**
 * POST /patients: the creation in one transaction whose last statement commits it (one round
 * trip fewer); where that statement refuses to commit, the creation runs again the usual way,
 * which answers the duplicate, the limit or records the event as it always did.
 */
export async function createPatient(db: Db, actor: Actor, input: PatientInput): Promise<{ view: PatientView; version: number }> {
  requireClinicalWrite(actor, input);
  const row = await withCommitInLast((commits) => db.transaction().execute((trx) => createPatientInTransaction(trx, actor, input, { commits })));
  return { view: patientView(row, can(actor, 'clinical:read')), version: row.version };
}

export async function getPatient(db: Db, actor: Actor, id: string): Promise<{ view: PatientView; version: number }> {
  const row = await findScoped(db, 'patients', actor, id);
  return { view: patientView(row, can(actor, 'clinical:read')), version: row.version };
}

/**
 * The patient the actor sees with this canonical phone: active ones first, then the most
 * recently updated. Erased patients have no phone any more and are never found.
 */
export async function findPatientByPhone(
  db: Db,
  actor: Actor,
  canonicalPhone: string,
): Promise<{ id: string; first_name: string | null; last_name: string | null } | undefined> {
  return patientByPhoneQuery(db, actor, canonicalPhone).select(['first_name', 'last_name']).executeTakeFirst();
}

/** findPatientByPhone's query, selecting the id: a subquery of a statement that does more (POST /calls). */
export function patientByPhoneQuery(db: Db, actor: Actor, canonicalPhone: string) {
  return db
    .selectFrom('patients')
    .select('id')
    .where('clinic_id', '=', actor.clinicId)
    .where(facilityVisible('facility_id', actor))
    .where('phone', '=', canonicalPhone)
    .where('erased_at', 'is', null)
    .orderBy('is_active', 'desc')
    .orderBy('updated_at', 'desc')
    .limit(1);
}

/** The lookup of the API (spec): the patient with this phone, as findPatientByPhone finds it. */
export async function lookupPatient(db: Db, actor: Actor, phone: string): Promise<PatientLookup> {
  const canonical = toCanonicalPhone(phone, actor.region);
  if (!canonical) throw ApiError.invalid('query', [{ path: 'phone', message: 'non è un numero di telefono valido' }]);
  const row = await findPatientByPhone(db, actor, canonical);
  if (!row) return { found: false, patient: null };
  return { found: true, patient: { id: row.id, name: `${row.first_name ?? ''} ${row.last_name ?? ''}`.trim() } };
}

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
    if (current.erased_at) throw ApiError.conflict('patient_erased', {}, 'Il paziente è stato cancellato.');
    assertVersion(expectedVersion, current.version);
    const issues: ValidationIssue[] = [];
    const phone = input.phone === undefined ? undefined : canonicalPhoneOrIssue(input.phone, actor.region, 'phone', issues);
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
    const firstName = (input.firstName ?? current.first_name) as string | null;
    const lastName = (input.lastName ?? current.last_name) as string | null;
    const taxCode = input.taxCode === undefined ? current.tax_code : input.taxCode;
    const updated = await trx
      .updateTable('patients')
      .set({ ...next, ...searchColumns(firstName, lastName, taxCode), updated_at: new Date(), version: sql`version + 1` })
      .where('id', '=', current.id)
      .where('version', '=', current.version)
      .returningAll()
      .executeTakeFirst();
    if (!updated) throw versionMismatch();
    await addNameTerms(trx, updated.clinic_id, [updated.first_name, updated.last_name]);
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
    if (current.erased_at) throw ApiError.conflict('patient_erased', {}, 'Il paziente è stato cancellato.');
    if (!current.is_active) throw ApiError.conflict('already_archived', {}, 'Il paziente è già archiviato.');
    const now = new Date();
    const updated = await trx
      .updateTable('patients')
      .set({ is_active: false, archived_at: now, updated_at: now, version: sql`version + 1` })
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow();
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
    const now = new Date();
    const updated = await trx
      .updateTable('patients')
      .set({
        first_name: null,
        last_name: null,
        email: null,
        phone: null,
        date_of_birth: null,
        gender: null,
        tax_code: null,
        address: null,
        referral_source: null,
        allergies: null,
        medications: null,
        conditions: null,
        notes: null,
        first_norm: null,
        last_norm: null,
        full_norm: null,
        phon_first: null,
        phon_last: null,
        tax_code_norm: null,
        is_active: false,
        archived_at: current.archived_at ?? now,
        erased_at: now,
        updated_at: now,
        version: sql`version + 1`,
      })
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    // Names no other patient of the clinic has leave the search vocabulary.
    const terms = [current.first_norm, current.last_norm].filter((x): x is string => !!x);
    if (terms.length > 0) {
      const { rows: gone } = await sql<{
        term: string;
      }>`DELETE FROM patient_name_terms t WHERE t.clinic_id = ${current.clinic_id} AND t.term = ANY(${terms}::text[])
        AND NOT EXISTS (SELECT 1 FROM patients p WHERE p.clinic_id = t.clinic_id AND (p.first_norm = t.term OR p.last_norm = t.term))
        RETURNING t.term`.execute(trx);
      if (gone.length > 0) {
        await sql`DELETE FROM patient_name_keys WHERE clinic_id = ${current.clinic_id} AND term = ANY(${gone.map((g) => g.term)}::text[])`.execute(trx);
      }
    }
    await trx
      .updateTable('appointments')
      .set({ title: null, reason: null, notes: null, clinical_notes: null, completion_notes: null, updated_at: now, version: sql`version + 1` })
      .where('clinic_id', '=', actor.clinicId)
      .where('patient_id', '=', current.id)
      .execute();
    await trx
      .updateTable('calls')
      .set({ summary: null, transcript: null, updated_at: now })
      .where('clinic_id', '=', actor.clinicId)
      .where('patient_id', '=', current.id)
      .execute();
    // The patient's chat: message texts and voice transcriptions, and the conversation's number.
    const conversations = trx.selectFrom('conversations').select('id').where('clinic_id', '=', actor.clinicId).where('patient_id', '=', current.id);
    await trx
      .updateTable('chat_messages')
      .set({ body: null, transcription: null })
      .where('clinic_id', '=', actor.clinicId)
      .where('conversation_id', 'in', conversations)
      .execute();
    await trx
      .updateTable('conversations')
      .set({ phone: null, updated_at: now, version: sql`version + 1` })
      .where('clinic_id', '=', actor.clinicId)
      .where('patient_id', '=', current.id)
      .execute();
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
      const duplicate = await findDuplicate(trx, actor, p);
      if (duplicate)
        throw ApiError.conflict('duplicate_patient', { ...duplicate, index: i }, 'Esiste già un paziente con lo stesso nome e lo stesso telefono o email.');
    }
    await checkPlanLimit(trx, clinicId, drafts.length);
    const bulk = drafts.length > BULK_EVENT_THRESHOLD;
    const ids: string[] = [];
    // One sorted insert of all names: concurrent imports then never lock names in opposite orders.
    await addNameTerms(
      trx,
      clinicId,
      inputs.flatMap((i) => [i.firstName, i.lastName]),
    );
    for (const p of drafts) {
      const created = await insertPatient(trx, p, false);
      ids.push(created.id);
      if (!bulk) await recordEvent(trx, { log: actor.log, clinicId, type: 'patient.created', facilityId: created.facility_id, data: eventData(created) });
    }
    if (bulk) await recordSkipped(trx, clinicId, 'patient.created', { reason: 'bulk_import', count: drafts.length });
    return { ids, eventsSkipped: bulk };
  });
}
