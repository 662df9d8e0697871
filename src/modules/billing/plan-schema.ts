/** Payment plans with their installments on the wire. */
import { Type, type Static } from 'typebox';
import { DateOnly, InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid, PageQueryFields } from '../../core/schemas.js';
import { PositiveAmount } from './shared-schema.js';

export const InstallmentSchema = Type.Object(
  {
    id: Uuid(),
    amount: Type.Number({ description: 'Euro' }),
    amountPaid: Type.Number(),
    dueDate: Type.String({ format: 'date', description: '`YYYY-MM-DD`' }),
    status: Type.String({ description: '`pending`, `partially_paid` or `paid`' }),
    paidAt: Nullable(OutputTimestamp({ description: 'When it was paid in full' })),
    paymentMethod: Nullable(Type.String({ description: 'Method of the last payment: `cash`, `card`, `bank_transfer`, `financing` or `other`' })),
    overdue: Type.Boolean({ description: 'Unpaid and its due date has passed (clinic timezone)' }),
  },
  { additionalProperties: false, title: 'Installment' },
);
export type InstallmentView = Static<typeof InstallmentSchema>;

export const PaymentPlanSchema = Type.Object(
  {
    id: Uuid(),
    patientId: Uuid(),
    treatmentPlanId: Nullable(Uuid()),
    type: Type.String({ description: '`installments` (default), `prepaid`, or a type of the app' }),
    totalAmount: Type.Number({ description: 'Euro: the sum of the installments' }),
    installmentCount: Type.Integer(),
    createdAt: OutputTimestamp(),
    installments: Type.Array(InstallmentSchema, { description: 'By due date, then in the order of the plan' }),
  },
  { additionalProperties: false, title: 'PaymentPlan' },
);
export type PaymentPlanView = Static<typeof PaymentPlanSchema>;

export const PaymentPlanListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    updatedSince: Type.Optional(InputTimestamp()),
    patientId: Type.Optional(Uuid()),
    state: Type.Optional(StringEnum(['open', 'overdue', 'all'] as const, { default: 'open' })),
  },
  { additionalProperties: false },
);
export type PaymentPlanListQuery = Static<typeof PaymentPlanListQuerySchema> & { limit: number; state: 'open' | 'overdue' | 'all' };

export const NewPaymentPlanBody = Type.Object(
  {
    patientId: Uuid(),
    treatmentPlanId: Type.Optional(Nullable(Uuid())),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    installments: Type.Array(Type.Object({ amount: PositiveAmount(), dueDate: DateOnly() }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 120,
    }),
  },
  { additionalProperties: false },
);
export type NewPaymentPlan = Static<typeof NewPaymentPlanBody>;
