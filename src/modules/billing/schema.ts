/**
 * Billing on the wire (spec 2.10, issue 16): quotes (treatment plans) with items, invoices
 * with lines, payments, payment plans with installments and a patient's balance. The schemas
 * both planes validate and serialize with (/v1 and the back office), and the service's types
 * derived from them. Amounts are euro with at most two decimals (src/modules/billing/money.ts).
 */
import { Type, type Static } from 'typebox';
import { DateOnly, InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid, PageQueryFields } from '../../core/schemas.js';

export const QUOTE_STATUSES = ['draft', 'presented', 'accepted', 'rejected', 'cancelled'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];
export const ITEM_STATUSES = ['planned', 'scheduled', 'completed', 'cancelled'] as const;
export const ACCEPTANCE_CHANNELS = ['chat', 'voice', 'portal', 'in_person', 'email'] as const;
export const REJECTION_REASONS = ['price', 'timing', 'second_opinion', 'not_needed', 'other'] as const;
export const INVOICE_STATUSES = ['issued', 'paid', 'void'] as const;
export const PAYMENT_METHODS = ['cash', 'card', 'bank_transfer', 'financing', 'other'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
/** Tooth surfaces: mesial, occlusal, distal, buccal, lingual, incisal, facial, palatal. */
export const SURFACES = ['M', 'O', 'D', 'B', 'L', 'I', 'F', 'P'] as const;

/** FDI two-digit tooth numbers: permanent 11-18 … 41-48, deciduous 51-55 … 81-85. */
export function isFdiTooth(n: number): boolean {
  const quadrant = Math.floor(n / 10);
  const tooth = n % 10;
  if (quadrant >= 1 && quadrant <= 4) return tooth >= 1 && tooth <= 8;
  if (quadrant >= 5 && quadrant <= 8) return tooth >= 1 && tooth <= 5;
  return false;
}

const Currency = Type.Literal('EUR', { description: 'Always `EUR`' });
/** An amount in input: euro, at most two decimals (checked by the service, naming the field). */
export const AmountInput = (options: Record<string, unknown> = {}) =>
  Type.Number({ minimum: 0, maximum: 100000000, description: 'Euro, at most two decimals', ...options });
/** A strictly positive amount in input. */
export const PositiveAmount = (options: Record<string, unknown> = {}) =>
  Type.Number({ exclusiveMinimum: 0, maximum: 100000000, description: 'Euro, more than 0, at most two decimals', ...options });
const Amount = (description: string, example: number) => Type.Number({ description: `Euro. ${description}`, examples: [example] });

// ---- Realistic examples of the OpenAPI document (a generated example would mix states) ----

const ID = {
  quote: '7c1e2f4a-3b5d-4e6f-8a9b-0c1d2e3f4a5b',
  patient: '2a4b6c8d-1e3f-4a5b-9c7d-8e9f0a1b2c3d',
  facility: '5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f',
  doctor: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  item1: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
  item2: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  invoice: '4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8',
  line: '6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e',
  payment: '8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a',
};

export const QUOTE_EXAMPLE = {
  id: ID.quote,
  number: 'P-2026-0042',
  patientId: ID.patient,
  facilityId: ID.facility,
  doctorId: ID.doctor,
  title: 'Riabilitazione implantare 36',
  status: 'presented',
  validUntil: '2026-05-31',
  expired: false,
  currency: 'EUR',
  subtotal: 1280,
  discount: 30,
  totalAmount: 1250,
  items: [
    {
      id: ID.item1,
      position: 1,
      phase: 1,
      procedureCode: 'IGI-01',
      description: 'Igiene professionale',
      teeth: [],
      surfaces: [],
      quantity: 1,
      unitAmount: 80,
      discount: 0,
      totalAmount: 80,
      status: 'planned',
      appointmentId: null,
    },
    {
      id: ID.item2,
      position: 2,
      phase: 2,
      procedureCode: 'IMP-01',
      description: 'Impianto osteointegrato in titanio',
      teeth: [36],
      surfaces: [],
      quantity: 1,
      unitAmount: 1200,
      discount: 0,
      totalAmount: 1200,
      status: 'planned',
      appointmentId: null,
    },
  ],
  acceptance: null,
  rejection: null,
  notes: 'Paziente ansioso: valutare sedazione cosciente',
  presentedAt: '2026-03-02T09:30:00.000Z',
  decidedAt: null,
  createdAt: '2026-03-01T16:12:00.000Z',
  updatedAt: '2026-03-02T09:30:00.000Z',
};

export const INVOICE_EXAMPLE = {
  id: ID.invoice,
  number: '2026/0117',
  patientId: ID.patient,
  facilityId: ID.facility,
  treatmentPlanId: ID.quote,
  status: 'issued',
  currency: 'EUR',
  subtotal: 1200,
  discount: 0,
  tax: 0,
  stampDuty: 2,
  totalAmount: 1202,
  amountPaid: 500,
  amountDue: 702,
  dueDate: '2026-04-30',
  issuedAt: '2026-03-31T10:00:00.000Z',
  paidAt: null,
  voidedAt: null,
  lines: [
    {
      id: ID.line,
      position: 1,
      description: 'Impianto osteointegrato in titanio (36)',
      quantity: 1,
      unitAmount: 1200,
      discount: 0,
      vatRate: 0,
      tax: 0,
      totalAmount: 1200,
      treatmentPlanItemId: ID.item2,
    },
  ],
  createdAt: '2026-03-31T10:00:00.000Z',
  updatedAt: '2026-04-02T08:15:00.000Z',
};

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

// ---- Quotes ----

export const QuoteItemSchema = Type.Object(
  {
    id: Uuid(),
    position: Type.Integer({ description: '1, 2, … in the order of the quote', examples: [1] }),
    phase: Type.Integer({ description: 'Treatment phase, 1 first (hygiene before prosthetics, say)', examples: [1] }),
    procedureCode: Nullable(Type.String({ description: 'The clinic’s procedure code (its price list)', examples: ['IMP-01'] })),
    description: Type.String({ description: 'Clinical text; the read is access-logged', examples: ['Impianto osteointegrato in titanio'] }),
    teeth: Type.Array(Type.Integer(), { description: 'FDI two-digit numbers (11-48 permanent, 51-85 deciduous)', examples: [[36]] }),
    surfaces: Type.Array(StringEnum(SURFACES), { description: 'M, O, D, B, L, I, F, P', examples: [['O']] }),
    quantity: Type.Integer({ examples: [1] }),
    unitAmount: Amount('Price of one', 1200),
    discount: Amount('Discount on this item', 100),
    totalAmount: Amount('quantity × unitAmount − discount', 1100),
    status: StringEnum(ITEM_STATUSES),
    appointmentId: Nullable(Uuid({ description: 'The appointment it is booked in' })),
  },
  { additionalProperties: false, title: 'QuoteItem' },
);

const acceptanceFields = Type.Object(
  {
    channel: StringEnum(ACCEPTANCE_CHANNELS, { description: 'Where the patient said yes' }),
    acceptedAt: OutputTimestamp(),
    signedDocumentId: Nullable(Uuid({ description: 'The signed document (Documents), if any' })),
  },
  { additionalProperties: false, title: 'QuoteAcceptance' },
);
const rejectionFields = Type.Object(
  {
    reason: StringEnum(REJECTION_REASONS),
    note: Nullable(Type.String({ description: 'Free text; the read is access-logged', examples: ['Preferisce aspettare dopo l’estate'] })),
    rejectedAt: OutputTimestamp(),
  },
  { additionalProperties: false, title: 'QuoteRejection' },
);

export const QuoteSchema = Type.Object(
  {
    id: Uuid(),
    number: Type.String({ description: 'Per clinic and year, given at creation', examples: ['P-2026-0042'] }),
    patientId: Uuid(),
    facilityId: Nullable(Uuid()),
    doctorId: Nullable(Uuid()),
    title: Nullable(Type.String({ description: 'Clinical text; the read is access-logged', examples: ['Riabilitazione implantare arcata inferiore'] })),
    status: StringEnum(QUOTE_STATUSES),
    validUntil: Nullable(DateOnly({ description: 'Last day it can be accepted (clinic time zone)', examples: ['2026-06-30'] })),
    expired: Type.Boolean({ description: 'Draft or presented, and `validUntil` is past (clinic time zone)' }),
    currency: Currency,
    subtotal: Amount('Sum of the item totals', 2600),
    discount: Amount('Discount on the whole quote', 100),
    totalAmount: Amount('subtotal − discount', 2500),
    items: Type.Array(QuoteItemSchema, { description: 'By position' }),
    acceptance: Nullable(acceptanceFields),
    rejection: Nullable(rejectionFields),
    notes: Type.Optional(
      Nullable(Type.String({ description: 'Only with `clinical:read`; access-logged', examples: ['Paziente ansioso: sedazione cosciente'] })),
    ),
    presentedAt: Nullable(OutputTimestamp()),
    decidedAt: Nullable(OutputTimestamp({ description: 'Accepted, rejected or cancelled at' })),
    createdAt: OutputTimestamp(),
    updatedAt: OutputTimestamp(),
  },
  { additionalProperties: false, title: 'Quote', examples: [QUOTE_EXAMPLE] },
);
export type QuoteView = Static<typeof QuoteSchema>;

export const QuoteItemInput = Type.Object(
  {
    phase: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 1 })),
    procedureCode: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 50, examples: ['IMP-01'] }))),
    description: Type.String({ minLength: 1, maxLength: 500, examples: ['Impianto osteointegrato in titanio'] }),
    teeth: Type.Optional(Type.Array(Type.Integer(), { maxItems: 32, uniqueItems: true, examples: [[36]] })),
    surfaces: Type.Optional(Type.Array(StringEnum(SURFACES), { maxItems: 8, uniqueItems: true, examples: [['O']] })),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1 })),
    unitAmount: AmountInput({ examples: [1200] }),
    discount: Type.Optional(AmountInput({ examples: [100] })),
    status: Type.Optional(StringEnum(ITEM_STATUSES, { default: 'planned' })),
    appointmentId: Type.Optional(Nullable(Uuid())),
  },
  { additionalProperties: false },
);
export type QuoteItemInputType = Static<typeof QuoteItemInput>;

const quoteInputFields = {
  doctorId: Type.Optional(Nullable(Uuid())),
  title: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, examples: ['Riabilitazione implantare arcata inferiore'] }))),
  validUntil: Type.Optional(Nullable(DateOnly({ examples: ['2026-06-30'] }))),
  discount: Type.Optional(AmountInput({ examples: [100], description: 'Discount on the whole quote, euro' })),
  notes: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 5000, description: 'Needs `clinical:write`' }))),
  items: Type.Array(QuoteItemInput, {
    minItems: 1,
    maxItems: 100,
    description: 'A subtotal above 999,999,999,999.99 (what the database holds) is `400` naming `items`',
  }),
};

export const NewQuoteBody = Type.Object(
  { patientId: Uuid(), ...quoteInputFields },
  {
    additionalProperties: false,
    examples: [
      {
        patientId: ID.patient,
        doctorId: ID.doctor,
        title: 'Riabilitazione implantare 36',
        discount: 30,
        items: [
          { phase: 1, procedureCode: 'IGI-01', description: 'Igiene professionale', unitAmount: 80 },
          { phase: 2, procedureCode: 'IMP-01', description: 'Impianto osteointegrato in titanio', teeth: [36], unitAmount: 1200 },
        ],
      },
    ],
  },
);
export type NewQuote = Static<typeof NewQuoteBody>;

export const QuoteChangesBody = Type.Object(
  { ...quoteInputFields, items: Type.Optional(quoteInputFields.items) },
  { additionalProperties: false, minProperties: 1, description: 'Only the fields sent change; `items` replaces the whole list' },
);
export type QuoteChanges = Static<typeof QuoteChangesBody>;

export const PresentQuoteBody = Type.Object(
  { validUntil: Type.Optional(DateOnly({ description: 'Default: the one set, or 90 days after today', examples: ['2026-06-30'] })) },
  { additionalProperties: false },
);
export const AcceptQuoteBody = Type.Object(
  {
    channel: StringEnum(ACCEPTANCE_CHANNELS),
    signedDocumentId: Type.Optional(
      Nullable(
        Uuid({
          description:
            'The signed consent/quote document (Documents): of the quote’s patient, visible to the key, `available`, category `consent` or `quote`, not of another quote. Otherwise `409 conflict`: `signed_document_not_found` (absent, another clinic’s or of a facility the key cannot see), `signed_document_mismatch`, `signed_document_not_available`, `signed_document_not_signature`.',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type QuoteAcceptanceInput = Static<typeof AcceptQuoteBody>;
export const RejectQuoteBody = Type.Object(
  { reason: StringEnum(REJECTION_REASONS), note: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2000 }))) },
  { additionalProperties: false },
);
export type QuoteRejectionInput = Static<typeof RejectQuoteBody>;

// ---- Invoices ----

export const InvoiceLineSchema = Type.Object(
  {
    id: Uuid(),
    position: Type.Integer({ examples: [1] }),
    description: Type.String({ description: 'The read is access-logged', examples: ['Impianto osteointegrato in titanio (36)'] }),
    quantity: Type.Integer({ examples: [1] }),
    unitAmount: Amount('Price of one, before VAT', 1200),
    discount: Amount('Discount on this line', 100),
    vatRate: Type.Number({ description: 'Percent; 0 for exempt health care (art. 10 DPR 633/72)', examples: [0] }),
    tax: Amount('VAT of the line', 0),
    totalAmount: Amount('quantity × unitAmount − discount + tax', 1100),
    treatmentPlanItemId: Nullable(Uuid({ description: 'The quote item it bills' })),
  },
  { additionalProperties: false, title: 'InvoiceLine' },
);

export const InvoiceSchema = Type.Object(
  {
    id: Uuid(),
    number: Type.String({ description: 'The clinic’s fiscal number', examples: ['2026/0117'] }),
    patientId: Uuid(),
    facilityId: Nullable(Uuid()),
    treatmentPlanId: Nullable(Uuid()),
    status: StringEnum(INVOICE_STATUSES),
    currency: Currency,
    subtotal: Amount('Sum of the lines’ quantity × unitAmount − discount', 1100),
    discount: Amount('Sum of the line discounts (already out of subtotal)', 100),
    tax: Amount('Sum of the lines’ VAT', 0),
    stampDuty: Amount('Marca da bollo (2.00 on VAT-exempt amounts above 77.47)', 2),
    totalAmount: Amount('subtotal + tax + stampDuty', 1102),
    amountPaid: Amount('Paid so far', 500),
    amountDue: Amount('totalAmount − amountPaid; 0 once void', 602),
    dueDate: Nullable(DateOnly({ examples: ['2026-04-30'] })),
    issuedAt: OutputTimestamp(),
    paidAt: Nullable(OutputTimestamp()),
    voidedAt: Nullable(OutputTimestamp()),
    lines: Type.Array(InvoiceLineSchema, { description: 'By position' }),
    createdAt: OutputTimestamp(),
    updatedAt: OutputTimestamp(),
  },
  { additionalProperties: false, title: 'Invoice', examples: [INVOICE_EXAMPLE] },
);
export type InvoiceView = Static<typeof InvoiceSchema>;

export const InvoiceLineInput = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 500 }),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1 })),
    unitAmount: AmountInput(),
    discount: Type.Optional(AmountInput()),
    vatRate: Type.Optional(Type.Number({ minimum: 0, maximum: 100, default: 0, description: 'Percent, at most two decimals' })),
    treatmentPlanItemId: Type.Optional(Nullable(Uuid())),
  },
  { additionalProperties: false },
);

export const NewInvoiceBody = Type.Object(
  {
    patientId: Uuid(),
    number: Type.String({ minLength: 1, maxLength: 50 }),
    treatmentPlanId: Type.Optional(Nullable(Uuid())),
    lines: Type.Optional(
      Type.Array(InvoiceLineInput, {
        minItems: 1,
        maxItems: 200,
        description: 'Totals (net, discounts, VAT, total) above 999,999,999,999.99 are `400` naming `lines`',
      }),
    ),
    totalAmount: Type.Optional(PositiveAmount({ description: 'Without `lines`: one exempt line of this amount' })),
    stampDuty: Type.Optional(AmountInput({ description: 'Default: 2.00 when the VAT-exempt lines exceed 77.47, else 0' })),
    dueDate: Type.Optional(Nullable(DateOnly())),
    issuedAt: Type.Optional(InputTimestamp()),
  },
  { additionalProperties: false },
);
export type NewInvoice = Static<typeof NewInvoiceBody>;

// ---- Payment plans ----

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

// ---- Payments ----

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

// ---- Balance ----

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

// ---- Lists: the /v1 querystrings (the services get `limit` defaulted) ----

export const QuoteListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    updatedSince: Type.Optional(InputTimestamp()),
    patientId: Type.Optional(Uuid()),
    facilityId: Type.Optional(Uuid()),
    status: Type.Optional(StringEnum(QUOTE_STATUSES)),
  },
  { additionalProperties: false },
);
export type QuoteListQuery = Static<typeof QuoteListQuerySchema> & { limit: number };

export const InvoiceListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    updatedSince: Type.Optional(InputTimestamp()),
    patientId: Type.Optional(Uuid()),
    facilityId: Type.Optional(Uuid()),
    status: Type.Optional(StringEnum(INVOICE_STATUSES)),
    issuedFrom: Type.Optional(InputTimestamp()),
    issuedTo: Type.Optional(InputTimestamp()),
  },
  { additionalProperties: false },
);
export type InvoiceListQuery = Static<typeof InvoiceListQuerySchema> & { limit: number };

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

// ---- Back office bodies ----

/** The desk's decision on a quote, in one operation: present, accept, reject or cancel. */
export const QuoteStatusChangeBody = Type.Object(
  {
    status: StringEnum(['presented', 'accepted', 'rejected', 'cancelled'] as const),
    validUntil: Type.Optional(DateOnly()),
    channel: Type.Optional(StringEnum(ACCEPTANCE_CHANNELS)),
    signedDocumentId: Type.Optional(Nullable(Uuid({ description: 'As in acceptTreatmentPlan: a signed document of the quote’s patient' }))),
    reason: Type.Optional(StringEnum(REJECTION_REASONS)),
    note: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2000 }))),
  },
  { additionalProperties: false },
);

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

/** The back office's payment: the /v1 body with `reference` optional (a cash payment at the desk has none). */
export const AdminPaymentBody = Type.Object(
  { ...NewPaymentBody.properties, reference: Type.Optional(NewPaymentBody.properties.reference) },
  { additionalProperties: false },
);
