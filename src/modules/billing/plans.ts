/** Payment plans with their installments (spec 2.10, 4.8). */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { keysetPage } from '../../db/keyset.js';
import { checkRefs } from '../../db/scoped.js';
import type { InstallmentsTable, PaymentPlansTable } from '../../db/tables/agenda.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db } from '../../db/transaction.js';
import { localDate } from './dates.js';
import { paymentPlanBodyIssues } from './checks.js';
import { sumCents, toCents, toEuro } from './money.js';
import type { InstallmentView, NewPaymentPlan, PaymentPlanListQuery, PaymentPlanView } from './schema.js';

export type InstallmentRow = Selectable<InstallmentsTable>;
type PaymentPlanRow = Selectable<PaymentPlansTable>;

export function installmentView(row: InstallmentRow, today: string): InstallmentView {
  return {
    id: row.id,
    amount: Number(row.amount),
    amountPaid: Number(row.amount_paid),
    dueDate: row.due_date,
    status: row.status,
    paidAt: row.paid_at?.toISOString() ?? null,
    paymentMethod: row.payment_method,
    overdue: row.status !== 'paid' && row.due_date < today,
  };
}

function planView(plan: PaymentPlanRow, installments: InstallmentRow[], today: string): PaymentPlanView {
  return {
    id: plan.id,
    patientId: plan.patient_id,
    treatmentPlanId: plan.treatment_plan_id,
    type: plan.type,
    totalAmount: Number(plan.total_amount),
    installmentCount: plan.installment_count,
    createdAt: plan.created_at.toISOString(),
    installments: installments.map((i) => installmentView(i, today)),
  };
}

export async function createPaymentPlan(db: Db, actor: Actor, input: NewPaymentPlan): Promise<PaymentPlanView> {
  const plan = await db.transaction().execute(async (trx) => {
    const { issues, rows } = await checkRefs(trx, actor, [
      { field: 'patientId', table: 'patients', id: input.patientId },
      { field: 'treatmentPlanId', table: 'treatment_plans', id: input.treatmentPlanId, patientId: input.patientId },
    ]);
    issues.push(...paymentPlanBodyIssues(input));
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    const plan = await trx
      .insertInto('payment_plans')
      .values({
        id: randomUUID(),
        clinic_id: actor.clinicId,
        facility_id: rows.get('patientId')?.facility_id ?? null,
        patient_id: input.patientId,
        treatment_plan_id: input.treatmentPlanId ?? null,
        type: input.type ?? 'installments',
        total_amount: toEuro(sumCents(input.installments.map((i) => toCents(i.amount)))),
        installment_count: input.installments.length,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('installments')
      .values(
        input.installments.map((i, n) => ({
          id: randomUUID(),
          clinic_id: actor.clinicId,
          payment_plan_id: plan.id,
          seq: n + 1,
          amount: i.amount,
          due_date: i.dueDate,
        })),
      )
      .execute();
    return plan;
  });
  const installments = await db.selectFrom('installments').selectAll().where('payment_plan_id', '=', plan.id).orderBy('due_date').orderBy('seq').execute();
  return planView(plan, installments, localDate(actor.timeZone));
}

export async function listPaymentPlans(db: Db, actor: Actor, q: PaymentPlanListQuery): Promise<{ data: PaymentPlanView[]; nextCursor: string | null }> {
  const today = localDate(actor.timeZone);
  const cursorScope = `payment-plans:${actor.clinicId}:${JSON.stringify([q.state, q.updatedSince ?? null, q.patientId?.toLowerCase() ?? null])}`;
  let query = db.selectFrom('payment_plans as p').selectAll('p').where('p.clinic_id', '=', actor.clinicId).where(facilityVisible('p.facility_id', actor));
  if (q.updatedSince) query = query.where('p.updated_at', '>=', new Date(q.updatedSince));
  if (q.patientId) query = query.where('p.patient_id', '=', q.patientId);
  if (q.state !== 'all') {
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('installments as i')
          .select('i.id')
          .whereRef('i.payment_plan_id', '=', 'p.id')
          .where('i.status', '<>', 'paid')
          .$if(q.state === 'overdue', (s) => s.where('i.due_date', '<', today)),
      ),
    );
  }
  const page = await keysetPage(query, {
    columns: ['p.updated_at', 'p.id'],
    at: (r) => r.updated_at,
    secret: actor.cursorSecret,
    scope: cursorScope,
    cursor: q.cursor,
    limit: q.limit,
  });
  const ids = page.items.map((p) => p.id);
  const installments = ids.length
    ? await db.selectFrom('installments').selectAll().where('payment_plan_id', 'in', ids).orderBy('due_date').orderBy('seq').execute()
    : [];
  return {
    data: page.items.map((p) =>
      planView(
        p,
        installments.filter((i) => i.payment_plan_id === p.id),
        today,
      ),
    ),
    nextCursor: page.nextCursor,
  };
}

/** Marks plans changed (a payment, an installment becoming overdue): syncing clients see it via `updatedSince`. */
export async function touchPlans(db: Db, ids: string[]): Promise<void> {
  if (ids.length > 0)
    await db
      .updateTable('payment_plans')
      .set({ updated_at: sql`now()` })
      .where('id', 'in', ids)
      .execute();
}
