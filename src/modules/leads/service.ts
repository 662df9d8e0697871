/**
 * Leads (spec 2.5, 3.5, 4.4): creation with deduplication by phone or email, the detail
 * with its activities, and the back-office status changes, activities and conversion.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Selectable } from 'kysely';
import { insertWhere } from '../../db/insert.js';
import { checkRefs, findScoped } from '../../db/scoped.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { LeadsTable } from '../../db/tables/core.js';
import { facilityVisible } from '../../db/tenant.js';
import { assertSameEventData, recordEvent, recordEventIn } from '../../events/record.js';
import type { EventData } from './events.js';
import { type ActivityView, type LeadChanges, type LeadConversion, type LeadInput, type LeadView, type NewActivity } from './schema.js';
import type { Actor } from '../../core/actor.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { checkFacility } from '../patients/facility.js';
import { normalizeEmail } from '../patients/normalize.js';
import { assertVersion } from '../../core/version.js';
import { canonicalPhoneOrIssue, createPatientInTransaction } from '../patients/service.js';
import { prepared } from '../../db/prepared-statements.js';
import { lastStatement, withCommitInLast } from '../../db/then-commit.js';

type LeadRow = Selectable<LeadsTable>;

export { ACTIVITY_KINDS, LEAD_SOURCES, LEAD_STATUSES } from './schema.js';

export function leadView(row: LeadRow, deduplicated = false): LeadView {
  return {
    id: row.id,
    facilityId: row.facility_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    source: row.source as LeadView['source'],
    sourceDetail: row.source_detail,
    status: row.status as LeadView['status'],
    assignedTo: row.assigned_to,
    estimatedValue: row.estimated_value === null ? null : Number(row.estimated_value),
    notes: row.notes,
    nextFollowUpAt: row.next_follow_up_at?.toISOString() ?? null,
    lastContactedAt: row.last_contacted_at?.toISOString() ?? null,
    lostReason: row.lost_reason,
    convertedPatientId: row.converted_patient_id,
    convertedAt: row.converted_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    deduplicated,
  };
}

function eventData(
  row: Pick<LeadRow, 'id' | 'facility_id' | 'source' | 'status' | 'assigned_to' | 'converted_patient_id' | 'created_at' | 'updated_at'>,
): EventData<'lead.created'> {
  return {
    id: row.id,
    facilityId: row.facility_id,
    source: row.source as LeadView['source'],
    status: row.status as LeadView['status'],
    assignedTo: row.assigned_to,
    convertedPatientId: row.converted_patient_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * The oldest lead the actor sees with this phone or this email (at least one given): one lookup
 * per contact naming every column of its index, joined by UNION ALL. The creation's statement is
 * prepared (src/db/prepared-statements.ts): with `phone = … OR lower(email) = …` its plan made
 * without the values read the clinic's leads by one index and filtered them (bench:api, POST
 * /leads at 2.4-3.0 ms of PostgreSQL CPU a lead against 0.6).
 */
function existingQuery(trx: Transaction, actor: Actor, phone: string | null, email: string | null) {
  const visible = trx.selectFrom('leads').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  const byPhone = phone ? visible.where('phone', '=', phone) : null;
  const byEmail = email ? visible.where(sql`lower(email)`, '=', email) : null;
  const found = byPhone && byEmail ? byPhone.unionAll(byEmail) : (byPhone ?? byEmail ?? visible.where(sql<boolean>`false`));
  return trx.selectFrom(found.as('found')).selectAll().orderBy('created_at').orderBy('id').limit(1);
}

/**
 * Creates a lead in the actor's transaction, or returns the existing one with the same
 * phone or email (nothing modified). Concurrent creations of the same phone or email wait
 * for each other (advisory locks, taken in one statement, in sorted order), so they end in one
 * lead. Then one statement looks for the existing lead and inserts the new one only when there
 * is none: it starts after the locks, so it sees what their previous holders committed.
 *
 * `commits`: the insert's statement is the transaction's last and carries its COMMIT
 * (src/db/then-commit.ts): a lead found (nothing written) commits nothing; an event not inserted
 * at once (a gap to record first) refuses the COMMIT, and createLead runs the creation again
 * without it.
 */
export async function createLeadInTransaction(
  trx: Transaction,
  actor: Actor,
  input: LeadInput,
  { commits = false }: { commits?: boolean } = {},
): Promise<{ row: LeadRow; created: boolean }> {
  const issues: ValidationIssue[] = [];
  const phone = canonicalPhoneOrIssue(input.phone, actor.region, 'phone', issues);
  const facilityId = await checkFacility(trx, actor, input.facilityId, issues);
  issues.push(...(await checkRefs(trx, actor, [{ field: 'assignedTo', table: 'staff_profiles', id: input.assignedTo }])).issues);
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  const email = normalizeEmail(input.email);
  const clinicId = actor.clinicId;
  const lockKeys = [phone && `${clinicId}:lead:phone:${phone}`, email && `${clinicId}:lead:email:${email}`].filter(Boolean).sort() as string[];
  if (lockKeys.length > 0) await prepared(sql`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest(${lockKeys}::text[]) AS k`).execute(trx);
  const now = new Date();
  const created = {
    id: randomUUID(),
    facility_id: facilityId,
    source: input.source ?? null,
    status: input.status ?? 'new',
    assigned_to: input.assignedTo?.toLowerCase() ?? null,
    created_at: now,
    updated_at: now,
  };
  const values: Insertable<LeadsTable> = {
    ...created,
    clinic_id: clinicId,
    first_name: input.firstName,
    last_name: input.lastName ?? null,
    email: input.email ?? null,
    phone,
    source_detail: input.sourceDetail ?? null,
    estimated_value: input.estimatedValue ?? null,
    notes: input.notes ?? null,
    next_follow_up_at: input.nextFollowUpAt ? new Date(input.nextFollowUpAt) : null,
  };
  const event = { log: actor.log, clinicId, type: 'lead.created', facilityId, data: eventData({ ...created, converted_patient_id: null }) } as const;
  let row: LeadRow;
  if (!phone && !email) {
    row = await trx.insertInto('leads').values(values).returningAll().executeTakeFirstOrThrow();
    await recordEvent(trx, event);
  } else {
    // The insert's own statement records the event, only when it inserts (recordEventIn).
    const recording = recordEventIn(trx, event);
    type Answer = LeadRow & { created: boolean; event_outcome: string | null };
    const ctes = sql`
      WITH existing AS (${existingQuery(trx, actor, phone, email)}),
      inserted AS (${insertWhere('leads', values, sql`NOT EXISTS (SELECT 1 FROM existing)`)})`;
    const answer = sql`
      SELECT *, true AS created, ${recording.call} AS event_outcome FROM inserted
      UNION ALL SELECT *, false AS created, NULL AS event_outcome FROM existing`;
    const { rows } = await prepared(
      lastStatement<Answer>(ctes, answer, { commits, refuseWhen: { event: sql`answer.created AND answer.event_outcome <> 'inserted'` } }),
    ).execute(trx);
    const { created: inserted, event_outcome, ...found } = rows[0]!;
    if (!inserted) return { row: found, created: false };
    row = found;
    await recording.settle(trx, event_outcome!);
  }
  assertSameEventData('lead.created', event.data, () => eventData(row));
  return { row, created: true };
}

/**
 * POST /leads: the creation in one transaction whose last statement commits it (one round trip
 * fewer); where that statement refuses to commit, the creation runs again the usual way.
 */
export async function createLead(db: Db, actor: Actor, input: LeadInput): Promise<{ view: LeadView; created: boolean; version: number }> {
  const { row, created } = await withCommitInLast((commits) => db.transaction().execute((trx) => createLeadInTransaction(trx, actor, input, { commits })));
  return { view: leadView(row, !created), created, version: row.version };
}

async function activitiesOf(trx: Db, leadId: string): Promise<ActivityView[]> {
  const rows = await trx.selectFrom('lead_activities').selectAll().where('lead_id', '=', leadId).orderBy('at').orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, kind: r.kind, body: r.body, at: r.at.toISOString() }));
}

export async function getLead(db: Db, actor: Actor, id: string): Promise<{ view: LeadView; version: number }> {
  const row = await findScoped(db, 'leads', actor, id);
  return { view: { ...leadView(row), activities: await activitiesOf(db, row.id) }, version: row.version };
}

/** Adds an activity and moves `lastContactedAt` forward for contacts (every kind but notes), in one statement. */
export async function addActivityInTransaction(
  trx: Transaction,
  clinicId: string,
  lead: Pick<LeadRow, 'id'>,
  kind: string,
  body: string,
  at: Date,
): Promise<ActivityView> {
  const id = randomUUID();
  const contact = kind !== 'note' && kind !== 'status_change';
  await prepared(sql`WITH activity AS (${trx.insertInto('lead_activities').values({ id, clinic_id: clinicId, lead_id: lead.id, kind, body, at })})
    ${
      contact
        ? sql`, contacted AS (${trx
            .updateTable('leads')
            .set({ last_contacted_at: sql`greatest(last_contacted_at, ${at}::timestamptz)`, updated_at: new Date(), version: sql`version + 1` })
            .where('id', '=', lead.id)})`
        : sql``
    }
    SELECT 1`).execute(trx);
  return { id, kind, body, at: at.toISOString() };
}

export async function addActivity(db: Db, actor: Actor, id: string, input: NewActivity): Promise<ActivityView> {
  return db.transaction().execute(async (trx) => {
    const lead = await findScoped(trx, 'leads', actor, id);
    return addActivityInTransaction(trx, actor.clinicId, lead, input.kind, input.body, input.at ? new Date(input.at) : new Date());
  });
}

/**
 * Back office: changes status, owner, follow-up, notes or value. Any status may follow
 * any other (the spec shows no transitions), except that a converted lead stays `won`
 * (409 `lead_converted`). A status change adds a `status_change` activity.
 */
export async function updateLead(
  db: Db,
  actor: Actor,
  id: string,
  input: LeadChanges,
  expectedVersion: number | null,
): Promise<{ view: LeadView; version: number }> {
  const row = await db.transaction().execute(async (trx) => {
    const lead = await findScoped(trx, 'leads', actor, id);
    assertVersion(expectedVersion, lead.version);
    const issues: ValidationIssue[] = [];
    issues.push(...(await checkRefs(trx, actor, [{ field: 'assignedTo', table: 'staff_profiles', id: input.assignedTo }])).issues);
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    if (input.status && input.status !== 'won' && lead.converted_patient_id) {
      throw ApiError.conflict('lead_converted', {}, 'Il contatto è già diventato paziente.');
    }
    const set: Record<string, unknown> = {};
    if (input.status !== undefined) set.status = input.status;
    if (input.lostReason !== undefined) set.lost_reason = input.lostReason;
    if (input.assignedTo !== undefined) set.assigned_to = input.assignedTo?.toLowerCase() ?? null;
    if (input.nextFollowUpAt !== undefined) set.next_follow_up_at = input.nextFollowUpAt ? new Date(input.nextFollowUpAt) : null;
    if (input.notes !== undefined) set.notes = input.notes;
    if (input.estimatedValue !== undefined) set.estimated_value = input.estimatedValue;
    if (Object.keys(set).length === 0) return lead;
    if (input.status !== undefined && input.status !== lead.status) {
      await addActivityInTransaction(trx, actor.clinicId, lead, 'status_change', `${lead.status} → ${input.status}`, new Date());
    }
    return trx
      .updateTable('leads')
      .set({ ...set, updated_at: new Date(), version: sql`version + 1` })
      .where('id', '=', lead.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { view: leadView(row), version: row.version };
}

/**
 * Back office: the lead becomes a patient. With `patientId`, it is linked to that existing
 * patient; otherwise a patient is created from the lead's name, phone, email and facility
 * (the duplicate and plan-limit rules of POST /patients apply; `lastName` may be given when
 * the lead has none). The lead gets `status: won`, `convertedPatientId`, `convertedAt`;
 * events `patient.created` (when created) and `lead.converted` with `data.patientId`.
 * 409 `already_converted` when done before.
 */
export async function convertLead(
  db: Db,
  actor: Actor,
  id: string,
  input: LeadConversion,
): Promise<{ view: LeadView; version: number; patientCreated: boolean }> {
  return db.transaction().execute(async (trx) => {
    const lead = await findScoped(trx, 'leads', actor, id);
    if (lead.converted_patient_id)
      throw ApiError.conflict('already_converted', { patientId: lead.converted_patient_id }, 'Il contatto è già diventato paziente.');
    let patientId: string;
    let patientCreated = false;
    if (input.patientId) {
      const p = await trx
        .selectFrom('patients')
        .select(['id', 'erased_at'])
        .where('id', '=', input.patientId.toLowerCase())
        .where('clinic_id', '=', actor.clinicId)
        .executeTakeFirst();
      if (!p || p.erased_at) throw ApiError.invalid('body', [{ path: 'patientId', message: 'paziente inesistente' }]);
      patientId = p.id;
    } else {
      const lastName = input.lastName ?? lead.last_name;
      if (!lastName) throw ApiError.invalid('body', [{ path: 'lastName', message: 'campo obbligatorio: il contatto non ha un cognome' }]);
      const patient = await createPatientInTransaction(trx, actor, {
        firstName: input.firstName ?? lead.first_name,
        lastName,
        phone: lead.phone,
        email: lead.email,
        facilityId: lead.facility_id,
        referralSource: null,
      });
      patientId = patient.id;
      patientCreated = true;
    }
    const now = new Date();
    const row = await trx
      .updateTable('leads')
      .set({ status: 'won', converted_patient_id: patientId, converted_at: now, updated_at: now, version: sql`version + 1` })
      .where('id', '=', lead.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordEvent(trx, {
      log: actor.log,
      clinicId: actor.clinicId,
      type: 'lead.converted',
      facilityId: row.facility_id,
      data: { ...eventData(row), patientId },
    });
    return { view: leadView(row), version: row.version, patientCreated };
  });
}
