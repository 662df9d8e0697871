/**
 * Quotes (treatment plans): a draft with items is presented to the patient, who
 * accepts or rejects it; a draft or presented quote can be cancelled (withdrawn or replaced).
 * Every decision is one transaction with its event (no event for a cancellation); deciding
 * again what is already decided answers the quote unchanged.
 */
import { randomUUID } from 'node:crypto';
import { can, type Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { checkRefs, findScoped, lockScoped } from '../../db/scoped.js';
import type { Db } from '../../db/transaction.js';
import { recordEvent } from '../../events/record.js';
import type { EventData } from './events.js';
import { localDate, addDays } from './dates.js';
import { quoteBodyIssues } from './checks.js';
import { CURRENCY, toCents, toEuro } from './money.js';
import { appointmentRefs, itemView, priceItems, type PricedItems } from './quote-items.js';
import * as store from './quote-store.js';
import type { ItemRow, QuoteMove, QuoteRow } from './quote-store.js';
import { checkSignedDocument } from './signature.js';
import {
  type NewQuote,
  type QuoteAcceptanceInput,
  type QuoteChanges,
  type QuoteListQuery,
  type QuoteRejectionInput,
  type QuoteStatus,
  type QuoteView,
} from './schema.js';

/** Validity given at presentation when the quote has none: 90 days, as Italian practice has it. */
const DEFAULT_VALIDITY_DAYS = 90;

/** Allowed moves; anything else is `409 conflict`, reason `invalid_transition`. */
const QUOTE_TRANSITIONS: Record<QuoteStatus, readonly QuoteStatus[]> = {
  draft: ['presented', 'cancelled'],
  presented: ['accepted', 'rejected', 'cancelled'],
  accepted: [],
  rejected: [],
  cancelled: [],
};

const EVENTS = { presented: 'treatment_plan.presented', accepted: 'treatment_plan.accepted', rejected: 'treatment_plan.rejected' } as const;

function isExpired(row: Pick<QuoteRow, 'status' | 'valid_until'>, today: string): boolean {
  return (row.status === 'draft' || row.status === 'presented') && row.valid_until !== null && row.valid_until < today;
}

/** The quote as the API shows it; `notes` only for a caller with `clinical:read`. */
function quoteView(row: QuoteRow, items: ItemRow[], today: string, clinical: boolean): QuoteView {
  const view: QuoteView = {
    id: row.id,
    number: row.number,
    patientId: row.patient_id,
    facilityId: row.facility_id,
    doctorId: row.doctor_id,
    title: row.title,
    status: row.status,
    validUntil: row.valid_until,
    expired: isExpired(row, today),
    currency: CURRENCY,
    subtotal: Number(row.subtotal_amount),
    discount: Number(row.discount_amount),
    totalAmount: Number(row.total_amount),
    items: items.map(itemView),
    acceptance:
      row.status === 'accepted' && row.acceptance_channel
        ? { channel: row.acceptance_channel as never, acceptedAt: row.decided_at!.toISOString(), signedDocumentId: row.signed_document_id }
        : null,
    rejection:
      row.status === 'rejected' && row.rejection_reason
        ? { reason: row.rejection_reason as never, note: row.rejection_note, rejectedAt: row.decided_at!.toISOString() }
        : null,
    presentedAt: row.presented_at?.toISOString() ?? null,
    decidedAt: row.decided_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  if (clinical) view.notes = row.notes;
  return view;
}

/**
 * Event data (spec 6.2): ids, status, amounts, currency, validity and the acceptance channel;
 * never the title, item descriptions, teeth or notes (health data), nor the rejection note.
 */
function quoteEventData(row: QuoteRow): EventData<'treatment_plan.presented'> {
  return {
    id: row.id,
    number: row.number,
    patientId: row.patient_id,
    facilityId: row.facility_id,
    doctorId: row.doctor_id,
    status: row.status,
    currency: CURRENCY,
    subtotal: Number(row.subtotal_amount),
    discount: Number(row.discount_amount),
    totalAmount: Number(row.total_amount),
    validUntil: row.valid_until,
    acceptanceChannel: row.status === 'accepted' ? (row.acceptance_channel as EventData<'treatment_plan.accepted'>['acceptanceChannel']) : null,
    presentedAt: row.presented_at?.toISOString() ?? null,
    decidedAt: row.decided_at?.toISOString() ?? null,
  };
}

function requireClinicalWrite(actor: Actor, notes: unknown): void {
  if (notes !== undefined && notes !== null && !can(actor, 'clinical:write')) throw new ApiError('insufficient_scope', { requiredScopes: ['clinical:write'] });
}

async function withItems(db: Db, actor: Actor, row: QuoteRow): Promise<QuoteView> {
  return quoteView(row, await store.quoteItems(db, actor.clinicId, [row.id]), localDate(actor.timeZone), can(actor, 'clinical:read'));
}

/** A draft with its items; its facility is the patient's. Number `P-<year>-<seq>`. */
export async function createQuote(db: Db, actor: Actor, input: NewQuote): Promise<QuoteView> {
  requireClinicalWrite(actor, input.notes);
  const row = await db.transaction().execute(async (trx) => {
    const { issues, rows } = await checkRefs(trx, actor, [
      { field: 'patientId', table: 'patients', id: input.patientId },
      { field: 'doctorId', table: 'doctors', id: input.doctorId },
      ...appointmentRefs(input.items, input.patientId),
    ]);
    issues.push(...quoteBodyIssues(input));
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    const priced = priceItems(input.items);
    const discount = toCents(input.discount ?? 0);
    const year = Number(localDate(actor.timeZone).slice(0, 4));
    const seq = await store.nextNumber(trx, actor.clinicId, 'quote', year);
    const id = randomUUID();
    const row = await store.insertQuote(trx, {
      id,
      clinic_id: actor.clinicId,
      facility_id: rows.get('patientId')?.facility_id ?? null,
      patient_id: input.patientId,
      number: `P-${year}-${String(seq).padStart(4, '0')}`,
      doctor_id: input.doctorId ?? null,
      title: input.title ?? null,
      valid_until: input.validUntil ?? null,
      notes: input.notes ?? null,
      subtotal_amount: toEuro(priced.subtotalCents),
      discount_amount: toEuro(discount),
      total_amount: toEuro(priced.subtotalCents - discount),
      status: 'draft',
    });
    await store.replaceItems(trx, actor.clinicId, id, priced.rows);
    return row;
  });
  return withItems(db, actor, row);
}

/** Changes a draft (`If-Match`); `items` replaces the list and the amounts are recomputed. */
export async function updateQuote(
  db: Db,
  actor: Actor,
  id: string,
  changes: QuoteChanges,
  expected: number | null,
): Promise<{ view: QuoteView; version: number }> {
  requireClinicalWrite(actor, changes.notes);
  const row = await db.transaction().execute(async (trx) => {
    const current = await lockScoped(trx, 'treatment_plans', actor, id);
    assertVersion(expected, current.version);
    const { issues } = await checkRefs(trx, actor, [
      { field: 'doctorId', table: 'doctors', id: changes.doctorId },
      ...appointmentRefs(changes.items, current.patient_id),
    ]);
    issues.push(...quoteBodyIssues(changes));
    const priced: PricedItems | null = changes.items ? priceItems(changes.items) : null;
    const subtotal = priced ? priced.subtotalCents : toCents(current.subtotal_amount);
    const discount = changes.discount !== undefined ? toCents(changes.discount) : toCents(current.discount_amount);
    // With items, quoteBodyIssues judged a sent discount; the stored one, or one sent without items, is judged here.
    if (discount > subtotal && !(changes.items && changes.discount !== undefined))
      issues.push({ path: changes.discount !== undefined ? 'discount' : 'items', message: 'lo sconto supera il totale delle voci' });
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    if (current.status !== 'draft')
      throw ApiError.conflict('invalid_transition', { from: current.status, to: 'draft' }, 'Si modifica solo un preventivo in bozza.');
    if (priced) await store.replaceItems(trx, actor.clinicId, id, priced.rows);
    return store.updateDraft(trx, id, {
      ...(changes.doctorId !== undefined ? { doctor_id: changes.doctorId } : {}),
      ...(changes.title !== undefined ? { title: changes.title } : {}),
      ...(changes.validUntil !== undefined ? { valid_until: changes.validUntil } : {}),
      ...(changes.notes !== undefined ? { notes: changes.notes } : {}),
      subtotal_amount: toEuro(subtotal),
      discount_amount: toEuro(discount),
      total_amount: toEuro(subtotal - discount),
    });
  });
  return { view: await withItems(db, actor, row), version: row.version };
}

type Decision =
  | { to: 'presented'; validUntil?: string }
  | { to: 'accepted'; acceptance: QuoteAcceptanceInput }
  | { to: 'rejected'; rejection: QuoteRejectionInput }
  | { to: 'cancelled' };

/**
 * One move of the quote's state, with its event, in one transaction. The same decision on a
 * quote already in that state answers it unchanged (no event): decisions are safe to retry.
 */
export async function decideQuote(db: Db, actor: Actor, id: string, decision: Decision): Promise<QuoteView> {
  const row = await db.transaction().execute(async (trx) => {
    const current = await lockScoped(trx, 'treatment_plans', actor, id);
    if (current.status === decision.to) return current;
    if (!QUOTE_TRANSITIONS[current.status].includes(decision.to)) throw ApiError.conflict('invalid_transition', { from: current.status, to: decision.to });
    const today = localDate(actor.timeZone);
    let move: QuoteMove;
    switch (decision.to) {
      case 'presented': {
        const validUntil = decision.validUntil ?? current.valid_until ?? addDays(today, DEFAULT_VALIDITY_DAYS);
        if (validUntil < today) throw ApiError.invalid('body', [{ path: 'validUntil', message: 'è già passata' }]);
        move = { to: 'presented', validUntil };
        break;
      }
      case 'accepted': {
        if (isExpired(current, today)) throw ApiError.conflict('quote_expired', { validUntil: current.valid_until });
        const signed = decision.acceptance.signedDocumentId ?? null;
        if (signed === null && (await store.signatureRequired(trx, actor.clinicId))) throw ApiError.forbidden('signature_required');
        if (signed !== null) await checkSignedDocument(trx, actor, current, signed);
        move = { to: 'accepted', channel: decision.acceptance.channel, signedDocumentId: signed };
        break;
      }
      case 'rejected':
        move = { to: 'rejected', reason: decision.rejection.reason, note: decision.rejection.note ?? null };
        break;
      case 'cancelled':
        move = { to: 'cancelled' };
        break;
    }
    const row = await store.moveQuote(trx, id, move);
    if (decision.to !== 'cancelled')
      await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type: EVENTS[decision.to], facilityId: row.facility_id, data: quoteEventData(row) });
    return row;
  });
  return withItems(db, actor, row);
}

export async function findQuote(db: Db, actor: Actor, id: string): Promise<{ view: QuoteView; version: number }> {
  const row = await findScoped(db, 'treatment_plans', actor, id);
  return { view: await withItems(db, actor, row), version: row.version };
}

export async function listQuotes(db: Db, actor: Actor, q: QuoteListQuery): Promise<{ data: QuoteView[]; nextCursor: string | null }> {
  const page = await store.listQuotes(db, actor, q);
  const items = await store.quoteItems(
    db,
    actor.clinicId,
    page.items.map((r) => r.id),
  );
  const today = localDate(actor.timeZone);
  const clinical = can(actor, 'clinical:read');
  return {
    data: page.items.map((r) =>
      quoteView(
        r,
        items.filter((i) => i.treatment_plan_id === r.id),
        today,
        clinical,
      ),
    ),
    nextCursor: page.nextCursor,
  };
}

/** The fields of a quote view holding clinical text (access-logged when returned). */
export function quoteLoggedFields(views: QuoteView[]): string[] {
  const fields = new Set<string>();
  for (const v of views) {
    if (v.title !== null) fields.add('title');
    if (v.items.length > 0) fields.add('items.description');
    if (v.notes !== undefined && v.notes !== null) fields.add('notes');
    if (v.rejection?.note) fields.add('rejection.note');
  }
  return [...fields];
}
