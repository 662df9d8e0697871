/** Invoices with lines on the wire: the view, the back office's body, the list query. */
import { Type, type Static } from 'typebox';
import { DateOnly, InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid, PageQueryFields } from '../../core/schemas.js';
import { Amount, AmountInput, Currency, ID, INVOICE_STATUSES, PositiveAmount } from './shared-schema.js';

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

const InvoiceLineSchema = Type.Object(
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

const InvoiceLineInput = Type.Object(
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
