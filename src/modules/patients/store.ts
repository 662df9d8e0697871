/**
 * The patients' store: every statement of creation, import, lookup and the back-office changes,
 * with the round-trip tuning of POST /patients (insertPatient). It answers in outcomes; the rules and
 * their errors are service.ts's and back-office.ts's.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Expression, type InsertObject } from 'kysely';
import type { Db, Transaction } from '../../db/transaction.js';
import type { DB } from '../../db/schema.js';
import { facilityVisible, type TenantScope } from '../../db/tenant.js';
import { prepared } from '../../db/prepared-statements.js';
import { commitCheck, lastStatement, withCommitInLast } from '../../db/then-commit.js';
import { assertSameEventData, recordEventIn } from '../../events/record.js';
import type { ActorLogger } from '../../core/actor.js';
import type { EventData } from './events.js';
import type { PatientInput } from './schema.js';
import { normalizeEmail, normalizeName } from './normalize.js';
import { eventData, normalizeAddress, type PatientRow } from './view.js';
import { addNameTerms, forgetNameTerms, searchColumns, vocabularyCtes } from './search-store.js';
import { vocabularyOf } from './vocabulary.js';

/** A patient about to be written: its row, its `patient.created` data and the keys of the duplicate rule. */
export interface Draft {
  values: InsertObject<DB, 'patients'>;
  /** The `patient.created` data of the row `values` writes (a new patient is active, not archived). */
  eventData: EventData<'patient.created'>;
  phone: string | null;
  email: string | null;
  nameKey: string;
  /** First and last name, for the vocabulary. */
  names: [string, string];
}

export function draftOf(clinicId: string, facilityId: string | null, phone: string | null, input: PatientInput): Draft {
  const now = new Date();
  const id = randomUUID();
  const email = normalizeEmail(input.email);
  return {
    phone,
    email,
    nameKey: `${normalizeName(input.firstName)} ${normalizeName(input.lastName)}`,
    names: [input.firstName, input.lastName],
    eventData: eventData({ id, facility_id: facilityId, is_active: true, archived_at: null, created_at: now, updated_at: now }),
    values: {
      id,
      clinic_id: clinicId,
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

/** An existing, not erased patient with the same normalized name and the same phone or email (clinic-wide). */
export type Duplicate = { kind: 'duplicate'; patientId: string; facilityId: string | null };
/** The clinic's plan allows no more active patients. */
export type PlanLimit = { kind: 'plan_limit'; limit: number };

const duplicateOf = (id: string, facilityId: string | null): Duplicate => ({ kind: 'duplicate', patientId: id, facilityId });

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

/** The duplicate of a patient about to be written, read on its own (the import's). */
export async function findDuplicate(trx: Transaction, clinicId: string, p: Pick<Draft, 'phone' | 'email' | 'nameKey'>): Promise<Duplicate | null> {
  if (!p.phone && !p.email) return null;
  const row = await duplicateQuery(trx, clinicId, p).executeTakeFirst();
  return row ? duplicateOf(row.id, row.facility_id) : null;
}

/** A 64-bit advisory lock key for "someone is creating this person in this clinic". */
function personLockKey(clinicId: string, kind: 'phone' | 'email', value: string) {
  return sql<string>`hashtextextended(${`${clinicId}:${kind}:${value}`}, 0)`;
}

const planLimitLock = (clinicId: string) => sql`hashtextextended(${`${clinicId}:patient_limit`}, 0)`;
const activePatients = (clinicId: string) => sql<string>`(SELECT count(*) FROM patients WHERE clinic_id = ${clinicId} AND is_active)`;
/** The plan's limit rule, one SQL condition for the creation and the import: `adding` more active patients than it allows. */
const overLimit = (active: Expression<unknown>, adding: number, limit: number) => sql<boolean>`${active} + ${sql.lit(adding)} > ${limit}`;

/** The import's check of the plan's limit for `adding` patients; serializes the clinic's creations while it has a limit. */
export async function planLimitFor(trx: Transaction, clinicId: string, adding: number): Promise<PlanLimit | null> {
  const clinic = await trx.selectFrom('clinics').select('patient_limit').where('id', '=', clinicId).executeTakeFirstOrThrow();
  if (clinic.patient_limit === null) return null;
  // Serializes creations of one clinic while it has a limit, so two of them cannot both pass the count.
  await sql`SELECT pg_advisory_xact_lock(${planLimitLock(clinicId)})`.execute(trx);
  const { rows } = await sql<{ over: boolean }>`SELECT ${overLimit(activePatients(clinicId), adding, clinic.patient_limit)} AS over`.execute(trx);
  return rows[0]!.over ? { kind: 'plan_limit', limit: clinic.patient_limit } : null;
}

type Creation =
  | { kind: 'created'; row: PatientRow }
  /** Another transaction is creating the same person now (it holds its phone or email lock). */
  | { kind: 'concurrent' }
  | Duplicate
  | PlanLimit;

/**
 * Creates a patient in the caller's transaction (POST /patients and lead conversion), in two
 * statements before the event (each round trip cost more than the work it did):
 * 1. the locks: this person's phone and email (tried: another transaction holding one is
 *    creating the same person now) and, while the clinic has a patient limit, the clinic's
 *    limit lock (waited for: creations of a limited clinic are serialized, so two of them
 *    cannot both pass the count); with the limit itself;
 * 2. the insert of the patient and its names, with the duplicate search and the count of active
 *    patients in the same statement. Every part of a statement reads the snapshot taken when it
 *    starts, after the locks of statement 1: the search and the count see what the holders of
 *    those locks committed, and not the row being inserted.
 *
 * Any outcome but `created` leaves the insert in the transaction: the caller throws, and the
 * rollback takes it (a refused creation writes nothing).
 *
 * `commits`: statement 2 is the transaction's last and carries its COMMIT (src/db/then-commit.ts):
 * where one of its checks holds (a duplicate, the limit reached, an event not inserted) it fails
 * instead, nothing is written, and withCommitInLast runs the creation again without it.
 */
export async function insertPatient(
  trx: Transaction,
  clinicId: string,
  log: ActorLogger | undefined,
  draft: Draft,
  { commits }: { commits: boolean },
): Promise<Creation> {
  const tries = [draft.phone && personLockKey(clinicId, 'phone', draft.phone), draft.email && personLockKey(clinicId, 'email', draft.email)]
    .filter((k) => !!k)
    .map((k) => sql<boolean>`pg_try_advisory_xact_lock(${k})`);
  const { rows: locked } = await prepared(sql<{ ok: boolean; patient_limit: number | null }>`
    SELECT ${tries.length > 0 ? sql.join(tries, sql` AND `) : sql`true`} AS ok, c.patient_limit,
           CASE WHEN c.patient_limit IS NOT NULL THEN (SELECT true FROM pg_advisory_xact_lock(${planLimitLock(clinicId)})) END AS limit_locked
    FROM clinics c WHERE c.id = ${clinicId}`).execute(trx);
  const gate = locked[0];
  if (!gate) throw new Error(`createPatient: unknown clinic ${clinicId}`);
  if (!gate.ok) return { kind: 'concurrent' };
  const limit = gate.patient_limit;

  const vocabulary = vocabularyOf(draft.names);
  const searchesDuplicate = !!(draft.phone || draft.email);
  // The event is recorded by the insert's own statement: a refused creation's rollback takes it.
  const event = recordEventIn(trx, { log, clinicId, type: 'patient.created', facilityId: draft.eventData.facilityId, data: draft.eventData });
  type Written = PatientRow & { dup_id: string | null; dup_facility_id: string | null; active_patients: string | null; event_outcome: string };
  const ctes = sql`
    WITH created AS (${trx.insertInto('patients').values(draft.values).returningAll()})
    ${searchesDuplicate ? sql`, dup AS (${duplicateQuery(trx, clinicId, draft)})` : sql``}
    ${vocabulary ? sql`, ${vocabularyCtes(clinicId, vocabulary)}` : sql``}`;
  const answer = sql`
    SELECT created.*,
      ${searchesDuplicate ? sql`(SELECT id FROM dup)` : sql`NULL::uuid`} AS dup_id,
      ${searchesDuplicate ? sql`(SELECT facility_id FROM dup)` : sql`NULL::uuid`} AS dup_facility_id,
      ${limit !== null ? activePatients(clinicId) : sql`NULL::bigint`} AS active_patients,
      ${event.call} AS event_outcome
    FROM created`;
  const checks = [
    commitCheck<Written, Duplicate>('duplicate', { when: sql`answer.dup_id IS NOT NULL`, outcome: (a) => duplicateOf(a.dup_id!, a.dup_facility_id) }),
    // The count does not see the row being inserted: it counts the others, as before an insert.
    commitCheck<Written, PlanLimit>('plan_limit', {
      when: limit !== null ? overLimit(sql`answer.active_patients`, 1, limit) : sql`false`,
      outcome: () => ({ kind: 'plan_limit', limit: limit! }),
    }),
    commitCheck<Written>('event', { when: sql`answer.event_outcome <> 'inserted'` }),
  ];
  const last = lastStatement<Written, (typeof checks)[number]>(ctes, answer, { commits, checks });
  const { rows, outcome } = last.read((await prepared(last.statement).execute(trx)).rows);
  if (outcome) return outcome;
  const { dup_id: _dupId, dup_facility_id: _dupFacility, active_patients: _active, event_outcome, ...row } = rows[0]!;
  assertSameEventData('patient.created', draft.eventData, () => eventData(row));
  await event.settle(trx, event_outcome);
  return { kind: 'created', row };
}

/** A transaction whose last statement carries its COMMIT; run again the usual way where that statement refused (src/db/then-commit.ts). */
export function inCreationTransaction<T>(db: Db, run: (trx: Transaction, commits: boolean) => Promise<T>): Promise<T> {
  return withCommitInLast((commits) => db.transaction().execute((trx) => run(trx, commits)));
}

/** An imported patient's row (its names are added for the whole list first: addNameTerms). */
export async function insertImported(trx: Transaction, draft: Draft): Promise<PatientRow> {
  return trx.insertInto('patients').values(draft.values).returningAll().executeTakeFirstOrThrow();
}

/**
 * The patient the scope sees with this canonical phone: active ones first, then the most
 * recently updated. Erased patients have no phone any more and are never found.
 */
export async function findPatientByPhone(
  db: Db,
  scope: TenantScope,
  canonicalPhone: string,
): Promise<{ id: string; first_name: string | null; last_name: string | null } | undefined> {
  return patientByPhoneQuery(db, scope, canonicalPhone).select(['first_name', 'last_name']).executeTakeFirst();
}

/** findPatientByPhone's query, selecting the id: a subquery of a statement that does more (POST /calls). */
export function patientByPhoneQuery(db: Db, scope: TenantScope, canonicalPhone: string) {
  return db
    .selectFrom('patients')
    .select('id')
    .where('clinic_id', '=', scope.clinicId)
    .where(facilityVisible('facility_id', scope))
    .where('phone', '=', canonicalPhone)
    .where('erased_at', 'is', null)
    .orderBy('is_active', 'desc')
    .orderBy('updated_at', 'desc')
    .limit(1);
}

/** The back office's change of a patient: `next`'s columns and the search columns of its name, unless its version moved meanwhile (undefined). */
export async function updateRow(
  trx: Transaction,
  current: PatientRow,
  next: Record<string, unknown>,
  name: { firstName: string | null; lastName: string | null; taxCode: string | null },
): Promise<PatientRow | undefined> {
  const updated = await trx
    .updateTable('patients')
    .set({ ...next, ...searchColumns(name.firstName, name.lastName, name.taxCode), updated_at: new Date(), version: sql`version + 1` })
    .where('id', '=', current.id)
    .where('version', '=', current.version)
    .returningAll()
    .executeTakeFirst();
  if (updated) await addNameTerms(trx, updated.clinic_id, [updated.first_name, updated.last_name]);
  return updated;
}

export async function archiveRow(trx: Transaction, id: string, now: Date): Promise<PatientRow> {
  return trx
    .updateTable('patients')
    .set({ is_active: false, archived_at: now, updated_at: now, version: sql`version + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Erases a patient's personal and clinical fields, its names no other patient has from the
 * vocabulary, the free text of its appointments and calls, its chat's texts and number, and the notes of its outbound attempts and waitlist entries.
 */
export async function eraseRows(trx: Transaction, current: PatientRow, now: Date): Promise<PatientRow> {
  const clinicId = current.clinic_id;
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
  await forgetNameTerms(
    trx,
    clinicId,
    [current.first_norm, current.last_norm].filter((x): x is string => !!x),
  );
  await trx
    .updateTable('appointments')
    .set({ title: null, reason: null, notes: null, clinical_notes: null, completion_notes: null, updated_at: now, version: sql`version + 1` })
    .where('clinic_id', '=', clinicId)
    .where('patient_id', '=', current.id)
    .execute();
  await trx
    .updateTable('calls')
    .set({ summary: null, transcript: null, updated_at: now })
    .where('clinic_id', '=', clinicId)
    .where('patient_id', '=', current.id)
    .execute();
  // The outbound worklists' free text about the patient: the notes of recall and confirmation
  // attempts and of waitlist entries.
  await trx.updateTable('recall_attempts').set({ note: null }).where('clinic_id', '=', clinicId).where('patient_id', '=', current.id).execute();
  await trx.updateTable('confirmation_attempts').set({ note: null }).where('clinic_id', '=', clinicId).where('patient_id', '=', current.id).execute();
  await trx.updateTable('waitlist_entries').set({ note: null }).where('clinic_id', '=', clinicId).where('patient_id', '=', current.id).execute();
  // The patient's chat: message texts and voice transcriptions, and the conversation's number.
  const conversations = trx.selectFrom('conversations').select('id').where('clinic_id', '=', clinicId).where('patient_id', '=', current.id);
  await trx
    .updateTable('chat_messages')
    .set({ body: null, transcription: null })
    .where('clinic_id', '=', clinicId)
    .where('conversation_id', 'in', conversations)
    .execute();
  await trx
    .updateTable('conversations')
    .set({ phone: null, updated_at: now, version: sql`version + 1` })
    .where('clinic_id', '=', clinicId)
    .where('patient_id', '=', current.id)
    .execute();
  return updated;
}
