/** Payment plans with their installments (spec 2.10, 4.8). */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { checkRefs } from '../../db/scoped.js';
import type { Db } from '../../db/transaction.js';
import { localDate } from './dates.js';
import { paymentPlanBodyIssues } from './checks.js';
import { sumCents, toCents, toEuro } from './money.js';
import * as store from './plan-store.js';
import type { InstallmentRow, PaymentPlanRow } from './plan-store.js';
import type { InstallmentView, NewPaymentPlan, PaymentPlanListQuery, PaymentPlanView } from './schema.js';

function installmentView(row: InstallmentRow, today: string): InstallmentView {
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
    return store.insertPlan(
      trx,
      {
        id: randomUUID(),
        clinic_id: actor.clinicId,
        facility_id: rows.get('patientId')?.facility_id ?? null,
        patient_id: input.patientId,
        treatment_plan_id: input.treatmentPlanId ?? null,
        type: input.type ?? 'installments',
        total_amount: toEuro(sumCents(input.installments.map((i) => toCents(i.amount)))),
        installment_count: input.installments.length,
      },
      input.installments.map((i) => ({ amount: i.amount, due_date: i.dueDate })),
    );
  });
  const installments = await store.installmentsOf(db, [plan.id]);
  return planView(plan, installments, localDate(actor.timeZone));
}

export async function listPaymentPlans(db: Db, actor: Actor, q: PaymentPlanListQuery): Promise<{ data: PaymentPlanView[]; nextCursor: string | null }> {
  const today = localDate(actor.timeZone);
  const page = await store.listPlans(db, actor, q, today);
  const installments = await store.installmentsOf(
    db,
    page.items.map((p) => p.id),
  );
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
