/**
 * Leads (spec 2.5, 3.5, 4.4): creation with deduplication by phone or email, the detail
 * with its activities, and the back-office status changes, activities and conversion. Every
 * statement is in store.ts.
 */
import { randomUUID } from 'node:crypto';
import { checkRefs, findScoped } from '../../db/scoped.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { recordEvent } from '../../events/record.js';
import { type ActivityView, type LeadChanges, type LeadConversion, type LeadInput, type LeadView, type NewActivity } from './schema.js';
import type { Actor } from '../../core/actor.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { checkFacility, normalizeEmail, canonicalPhone, createPatientInTransaction } from '../patients/index.js';
import { assertVersion } from '../../core/version.js';
import { activitiesOf, convertedRow, inCreationTransaction, insertActivity, insertLead, patientToLink, updateLeadRow } from './store.js';
import { eventData, leadView, type LeadRow } from './view.js';
import { leadBodyIssues } from './checks.js';

/**
 * Creates a lead in the actor's transaction, or returns the existing one with the same phone or
 * email (nothing modified): store.ts insertLead says how. `commits`: the insert's statement
 * carries the COMMIT (src/db/then-commit.ts).
 */
export async function createLeadInTransaction(
  trx: Transaction,
  actor: Actor,
  input: LeadInput,
  { commits = false }: { commits?: boolean } = {},
): Promise<{ row: LeadRow; created: boolean }> {
  const issues = leadBodyIssues(input, actor);
  const phone = canonicalPhone(input.phone, actor.region);
  const facilityId = await checkFacility(trx, actor, input.facilityId, issues);
  issues.push(...(await checkRefs(trx, actor, [{ field: 'assignedTo', table: 'staff_profiles', id: input.assignedTo }])).issues);
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  const outcome = await insertLead(trx, actor, actor.log, { input, facilityId, phone, email: normalizeEmail(input.email) }, { commits });
  return { row: outcome.row, created: outcome.kind === 'created' };
}

/**
 * POST /leads: the creation in one transaction whose last statement commits it (one round trip
 * fewer); where that statement refuses to commit, the creation runs again the usual way.
 */
export async function createLead(db: Db, actor: Actor, input: LeadInput): Promise<{ view: LeadView; created: boolean; version: number }> {
  const { row, created } = await inCreationTransaction(db, (trx, commits) => createLeadInTransaction(trx, actor, input, { commits }));
  return { view: leadView(row, !created), created, version: row.version };
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
  await insertActivity(trx, clinicId, lead, { id, kind, body, at }, kind !== 'note' && kind !== 'status_change');
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
    return updateLeadRow(trx, lead.id, set);
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
      const p = await patientToLink(trx, actor.clinicId, input.patientId.toLowerCase());
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
    const row = await convertedRow(trx, lead.id, patientId, now);
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
