/**
 * A quote's items: how they are shown, priced (integer cents; the checks are checks.ts'
 * quoteBodyIssues) and the appointments they may name (the quote's patient's); stored and
 * read by quote-store.ts.
 */
import type { Ref } from '../../db/scoped.js';
import { sumCents, toCents, toEuro } from './money.js';
import type { ItemInsert, ItemRow } from './quote-store.js';
import type { QuoteItemInputType, QuoteView } from './schema.js';

export function itemView(row: ItemRow): QuoteView['items'][number] {
  return {
    id: row.id,
    position: row.position,
    phase: row.phase,
    procedureCode: row.procedure_code,
    description: row.description,
    teeth: row.teeth,
    surfaces: row.surfaces as QuoteView['items'][number]['surfaces'],
    quantity: row.quantity,
    unitAmount: Number(row.unit_amount),
    discount: Number(row.discount_amount),
    totalAmount: Number(row.total_amount),
    status: row.status as QuoteView['items'][number]['status'],
    appointmentId: row.appointment_id,
  };
}

export interface PricedItems {
  rows: ItemInsert[];
  subtotalCents: number;
}

/** Prices items that passed quoteBodyIssues (integer cents). */
export function priceItems(items: QuoteItemInputType[]): PricedItems {
  const rows = items.map((item, n) => {
    const quantity = item.quantity ?? 1;
    const gross = quantity * toCents(item.unitAmount);
    const discount = toCents(item.discount ?? 0);
    return {
      position: n + 1,
      phase: item.phase ?? 1,
      procedure_code: item.procedureCode ?? null,
      description: item.description,
      teeth: item.teeth ?? [],
      surfaces: item.surfaces ?? [],
      quantity,
      unit_amount: item.unitAmount,
      discount_amount: toEuro(discount),
      total_amount: toEuro(gross - discount),
      status: item.status ?? 'planned',
      appointment_id: item.appointmentId ?? null,
    };
  });
  return { rows, subtotalCents: sumCents(rows.map((r) => toCents(r.total_amount))) };
}

/** The appointments items name: visible to the key and the quote's patient's (checkRefs). */
export function appointmentRefs(items: QuoteItemInputType[] | undefined, patientId: string): Ref[] {
  return (items ?? []).map((item, n) => ({ field: `items.${n}.appointmentId`, table: 'appointments' as const, id: item.appointmentId, patientId }));
}
