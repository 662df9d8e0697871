/**
 * Phone calls (spec 2.6, 4.5): registration idempotent on the provider's call id, matching
 * of the counterpart number to a patient or lead, and the lead an unknown number becomes.
 */
import { can, type Actor } from '../../core/actor.js';
import { checkRefs, findScoped } from '../../db/scoped.js';
import type { Db } from '../../db/transaction.js';
import { recordEvent } from '../../events/record.js';
import type { CallInput, CallView } from './schema.js';
import { ApiError } from '../../core/errors.js';
import { toCanonicalPhone } from '../../lib/phone.js';
import type { AccessLogWriter } from '../access-log/index.js';
import { seesFacility } from '../auth/index.js';
import { addActivityInTransaction, createLeadInTransaction } from '../leads/index.js';
import { checkFacility } from '../patients/index.js';
import { insertCall, linkLead, type CallRow } from './store.js';
import { ANONYMOUS, callBodyIssues, isAnonymous } from './checks.js';

/** First name of a lead made from an unknown number when the call gives no `caller` name. */
const UNKNOWN_CALLER_NAME = 'Sconosciuto';

function callView(row: CallRow): CallView {
  return {
    id: row.id,
    externalCallId: row.external_call_id,
    direction: row.direction,
    from: row.from_number,
    to: row.to_number,
    startedAt: row.started_at?.toISOString() ?? null,
    durationSeconds: row.duration_seconds,
    outcome: row.outcome as CallView['outcome'],
    summary: row.summary,
    recordingUrl: row.recording_url,
    patientId: row.patient_id,
    leadId: row.lead_id,
    facilityId: row.facility_id,
    createdAt: row.created_at.toISOString(),
  };
}

/** `anonymous` or the E.164 form (callBodyIssues names a number that is neither). */
function numberOf(value: string, region: string): string {
  return isAnonymous(value) ? ANONYMOUS : (toCanonicalPhone(value, region) ?? value);
}

/**
 * Registers a call. The first registration of an `externalCallId` in the clinic inserts the
 * row (201); any later one, also concurrent, returns the stored row unchanged (200), thanks
 * to the unique index and INSERT ... ON CONFLICT DO NOTHING.
 */
export async function createCall(db: Db, actor: Actor, input: CallInput): Promise<{ view: CallView; created: boolean }> {
  if (input.transcript !== undefined && input.transcript !== null && !can(actor, 'clinical:write')) {
    throw new ApiError('insufficient_scope', { requiredScopes: ['clinical:write'] });
  }
  const { region } = actor;
  return db.transaction().execute(async (trx) => {
    const issues = callBodyIssues(input, actor);
    const from = numberOf(input.from, region);
    const to = numberOf(input.to, region);
    const facilityId = await checkFacility(trx, actor, input.facilityId, issues);
    const refs = await checkRefs(trx, actor, [
      { field: 'patientId', table: 'patients', id: input.patientId },
      { field: 'leadId', table: 'leads', id: input.leadId },
    ]);
    issues.push(...refs.issues);
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    let patientId = refs.rows.get('patientId')?.id ?? null;
    let leadId = refs.rows.get('leadId')?.id ?? null;

    const now = new Date();
    const counterpart = input.direction === 'inbound' ? from : to;
    // With no patient or lead named, the patient with the counterpart's number is looked up by the
    // insert itself (store.ts, one statement: one round trip fewer); when none, a lead is found or made below.
    const matchPatient = !patientId && !leadId && counterpart !== ANONYMOUS;
    const registered = await insertCall(trx, actor, {
      input,
      from,
      to,
      facilityId,
      patientId,
      leadId,
      matchPhone: matchPatient ? counterpart : null,
      now,
    });
    if (registered.kind === 'existing') {
      if (!seesFacility(actor, registered.row.facility_id)) throw ApiError.notFound();
      return { view: callView(registered.row), created: false };
    }
    const inserted = registered.row;

    let row = inserted;
    patientId = inserted.patient_id;
    let leadCreated = false;
    if (!patientId && !leadId && counterpart !== ANONYMOUS) {
      const { row: lead, created } = await createLeadInTransaction(trx, actor, {
        firstName: input.caller?.firstName?.trim() || UNKNOWN_CALLER_NAME,
        lastName: input.caller?.lastName ?? null,
        phone: counterpart,
        source: 'phone',
        facilityId: facilityId ?? (actor.facilityIds === null ? null : actor.facilityIds[0]!),
      });
      leadId = lead.id;
      leadCreated = created;
      row = await linkLead(trx, inserted.id, leadId);
    }
    if (leadId) {
      const what = input.direction === 'inbound' ? 'Chiamata in entrata' : 'Chiamata in uscita';
      const body = input.summary ?? (input.outcome ? `${what} (${input.outcome})` : what);
      await addActivityInTransaction(trx, actor.clinicId, { id: leadId }, 'call', body, input.startedAt ? new Date(input.startedAt) : now);
    }
    await recordEvent(trx, {
      log: actor.log,
      clinicId: actor.clinicId,
      type: 'call.logged',
      facilityId: row.facility_id,
      data: {
        id: row.id,
        externalCallId: row.external_call_id,
        direction: row.direction,
        startedAt: row.started_at?.toISOString() ?? null,
        durationSeconds: row.duration_seconds,
        outcome: row.outcome as CallView['outcome'],
        patientId: row.patient_id,
        leadId: row.lead_id,
        leadCreated,
        facilityId: row.facility_id,
        createdAt: row.created_at.toISOString(),
      },
    });
    return { view: callView(row), created: true };
  });
}

/** The call; `transcript` only with `clinical:read`, and then the read is written to the access log. */
export async function getCall(db: Db, accessLog: AccessLogWriter, actor: Actor, id: string): Promise<CallView> {
  const row = await findScoped(db, 'calls', actor, id);
  const view = callView(row);
  if (can(actor, 'clinical:read')) {
    await accessLog.record(actor, { resourceType: 'call', resourceIds: [row.id], fields: ['transcript'] });
    view.transcript = row.transcript;
  }
  return view;
}
