/** Quotes (treatment plans) with items on the wire: views, bodies of both planes, the list query. */
import { Type, type Static } from 'typebox';
import { DateOnly, InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid, PageQueryFields } from '../../core/schemas.js';
import { ACCEPTANCE_CHANNELS, Amount, AmountInput, Currency, ID, ITEM_STATUSES, QUOTE_STATUSES, REJECTION_REASONS, SURFACES } from './shared-schema.js';

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

const QuoteItemSchema = Type.Object(
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
