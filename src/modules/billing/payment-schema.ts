/** Payments and a patient's balance on the wire. */
import { Type, type Static } from 'typebox';
import { DateOnly, InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid, PageQueryFields } from '../../core/schemas.js';
import { Amount, Currency, ID, PAYMENT_METHODS, PositiveAmount } from './shared-schema.js';

export const PAYMENT_EXAMPLE = {
  id: ID.payment,
  patientId: ID.patient,
  facilityId: ID.facility,
  amount: 500,
  currency: 'EUR',
  method: 'card',
  reference: 'pi_3PqL8s2eZvKYlo2C',
  invoiceId: ID.invoice,
  installmentId: null,
  paymentPlanId: null,
  allocations: [{ invoiceId: ID.invoice, installmentId: null, amount: 500 }],
  receivedAt: '2026-04-02T08:14:51.000Z',
  createdAt: '2026-04-02T08:15:00.000Z',
};

export const PaymentSchema = Type.Object(
  {
    id: Uuid(),
    patientId: Uuid(),
    facilityId: Nullable(Uuid()),
    amount: Amount('Received', 250),
    currency: Currency,
    method: StringEnum(PAYMENT_METHODS),
    reference: Nullable(
      Type.String({ description: 'The provider’s reference (null for one recorded by the back office without it)', examples: ['pi_3PqL8s2eZvKYlo2C'] }),
    ),
    invoiceId: Nullable(Uuid({ description: 'The invoice it paid, when it paid one invoice' })),
    installmentId: Nullable(Uuid({ description: 'The installment it paid, when it paid one installment' })),
    paymentPlanId: Nullable(Uuid({ description: 'The plan of that installment' })),
    allocations: Type.Array(
      Type.Object(
        { invoiceId: Nullable(Uuid()), installmentId: Nullable(Uuid()), amount: Amount('Applied to it', 250) },
        { additionalProperties: false, title: 'PaymentAllocation' },
      ),
      { description: 'What it paid, oldest due first (one entry unless sent with `patientId`)' },
    ),
    receivedAt: OutputTimestamp(),
    createdAt: OutputTimestamp(),
  },
  { additionalProperties: false, title: 'Payment', examples: [PAYMENT_EXAMPLE] },
);
export type PaymentView = Static<typeof PaymentSchema>;

export const NewPaymentBody = Type.Object(
  {
    amount: PositiveAmount({ examples: [250] }),
    method: StringEnum(PAYMENT_METHODS),
    reference: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The provider’s id of the payment: the idempotency key',
      examples: ['pi_3PqL8s2eZvKYlo2C'],
    }),
    invoiceId: Type.Optional(Uuid()),
    installmentId: Type.Optional(Uuid()),
    patientId: Type.Optional(Uuid({ description: 'Toward the patient’s oldest due amounts' })),
    receivedAt: Type.Optional(InputTimestamp({ description: 'Default: now' })),
  },
  {
    additionalProperties: false,
    examples: [{ amount: 500, method: 'card', reference: 'pi_3PqL8s2eZvKYlo2C', invoiceId: ID.invoice, receivedAt: '2026-04-02T08:14:51Z' }],
  },
);
export type NewPaymentInput = Omit<Static<typeof NewPaymentBody>, 'reference'> & { reference?: string | null };

export const BalanceSchema = Type.Object(
  {
    patientId: Uuid(),
    currency: Currency,
    amountDue: Amount('Open on issued invoices plus unpaid installments', 602),
    overdueAmount: Amount('The part of amountDue past its due date', 150),
    nextInstallment: Nullable(
      Type.Object(
        { id: Uuid(), paymentPlanId: Uuid(), dueDate: DateOnly({ examples: ['2026-05-01'] }), amount: Amount('Still to pay on it', 150) },
        { additionalProperties: false, title: 'NextInstallment' },
      ),
    ),
    openInvoiceCount: Type.Integer({ examples: [1] }),
  },
  { additionalProperties: false, title: 'PatientBalance' },
);
export type BalanceView = Static<typeof BalanceSchema>;

export const PaymentListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    createdSince: Type.Optional(InputTimestamp()),
    patientId: Type.Optional(Uuid()),
    facilityId: Type.Optional(Uuid()),
    invoiceId: Type.Optional(Uuid()),
    installmentId: Type.Optional(Uuid()),
  },
  { additionalProperties: false },
);
export type PaymentListQuery = Static<typeof PaymentListQuerySchema> & { limit: number };

/** The back office's payment: the /v1 body with `reference` optional (a cash payment at the desk has none). */
export const AdminPaymentBody = Type.Object(
  { ...NewPaymentBody.properties, reference: Type.Optional(NewPaymentBody.properties.reference) },
  { additionalProperties: false },
);
