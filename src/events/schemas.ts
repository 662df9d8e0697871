/**
 * The `data` of each event type (spec 6.2-6.4): one TypeBox schema per type of the catalogue,
 * plus `events.skipped` and `webhook.test`. They describe exactly what the services put in
 * `data`, and serve three readers:
 * - the outbox: `NewEvent` (record.ts) is typed by them, so a `data` of the wrong shape for its
 *   type does not compile; under the tests (DCM_STRICT_EVENTS=1) recordEvent also validates
 *   `data` against them, so every event the suite records proves its documented shape;
 * - the OpenAPI `webhooks` section (src/http/plugins/openapi-webhooks.ts), one entry per type;
 * - `dental-clinic trigger <type>`, which records the type's example with fresh ids.
 *
 * `data` never holds health data: no names, notes, titles, reasons or message text; linked
 * resources appear as ids only. Where `data` is the resource's own REST shape (an invoice
 * without its lines, a payment) the module schema is reused; elsewhere the fields are picked
 * from it, so a field keeps one description and one type in the whole document.
 */
import { randomUUID } from 'node:crypto';
import { Type, type Static, type TSchema } from 'typebox';
import { Nullable, OutputTimestamp, StringEnum, Uuid } from '../core/schemas.js';
import { isUuid } from '../lib/formats.js';
import { APPOINTMENT_STATUSES } from '../modules/appointments/model.js';
import { AppointmentSchema } from '../modules/appointments/schema.js';
import {
  ACCEPTANCE_CHANNELS,
  INVOICE_EXAMPLE as BILLING_INVOICE_EXAMPLE,
  InvoiceSchema,
  PAYMENT_EXAMPLE,
  QUOTE_EXAMPLE as BILLING_QUOTE_EXAMPLE,
  PaymentSchema,
  QuoteSchema,
} from '../modules/billing/schema.js';
import { CallSchema } from '../modules/calls/schema.js';
import { ConversationSchema } from '../modules/conversations/schema.js';
import { LeadSchema } from '../modules/leads/schema.js';
import { patientFields, PatientSchema } from '../modules/patients/schema.js';
import { TaskSchema } from '../modules/tasks/schema.js';
import { OfferCreated } from '../modules/waitlist/events.js';
import { EVENT_SCOPES, SUBSCRIBABLE_EVENT_TYPES, type EventType } from './catalogue.js';

/** Ids of the examples: one clinic's patient, facility, doctor… shared by every type, as a receiver would see them. */
const ID = {
  patient: '2a4b6c8d-1e3f-4a5b-9c7d-8e9f0a1b2c3d',
  facility: '5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f',
  otherFacility: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
  doctor: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  otherDoctor: '4f5e6d7c-8b9a-4f0e-9d1c-2b3a4f5e6d7c',
  chair: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e',
  calendar: 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f',
  appointment: 'e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b',
  quote: '7c1e2f4a-3b5d-4e6f-8a9b-0c1d2e3f4a5b',
  invoice: '4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8',
  payment: '8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a',
  paymentPlan: 'a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6e',
  installment: 'd4c3b2a1-f0e9-4d8c-8b7a-6f5e4d3c2b1a',
  lead: '6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d',
  staff: 'f0e1d2c3-b4a5-4968-9786-a5b4c3d2e1f0',
  task: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
  conversation: '8a9b0c1d-2e3f-4a4b-8c5d-6e7f8a9b0c1d',
  message: '0c1d2e3f-4a5b-4c6d-9e7f-8a9b0c1d2e3f',
  call: '5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9',
} as const;

const object = <P extends Record<string, TSchema>>(properties: P, title: string, description: string, example: unknown) =>
  Type.Object(properties, { additionalProperties: false, title, description, examples: [example] });

// ---- Patients: ids, state and timestamps; never a name, a phone or a clinical field ----

const patientBase = Type.Pick(PatientSchema, ['id', 'facilityId', 'isActive', 'archivedAt', 'createdAt', 'updatedAt']).properties;
const PATIENT_EXAMPLE = {
  id: ID.patient,
  facilityId: ID.facility,
  isActive: true,
  archivedAt: null,
  createdAt: '2026-03-02T09:30:00.000Z',
  updatedAt: '2026-03-02T09:30:00.000Z',
};
/** The names of the fields a patient update can change (those of the patient's input). */
export const PATIENT_CHANGED_FIELDS = Object.keys(patientFields) as Array<keyof typeof patientFields>;

const PatientCreated = object(patientBase, 'PatientEventData', 'The patient’s ids, state and timestamps (no personal data)', PATIENT_EXAMPLE);
const PatientUpdated = object(
  {
    ...patientBase,
    changedFields: Type.Array(StringEnum(PATIENT_CHANGED_FIELDS), {
      minItems: 1,
      description: 'The fields whose value really changed (names only, never the values)',
    }),
  },
  'PatientUpdatedEventData',
  'The patient’s ids, state and timestamps, and the names of the fields that changed',
  { ...PATIENT_EXAMPLE, updatedAt: '2026-03-05T16:40:12.000Z', changedFields: ['phone', 'email'] },
);
const PatientArchived = object(
  { ...patientBase, reason: StringEnum(['archived', 'erased'] as const, { description: '`erased`: the personal data is gone for good' }) },
  'PatientArchivedEventData',
  'The patient’s ids, state and timestamps, and whether it was archived or erased',
  { ...PATIENT_EXAMPLE, isActive: false, archivedAt: '2026-09-14T11:02:00.000Z', updatedAt: '2026-09-14T11:02:00.000Z', reason: 'archived' },
);

// ---- Appointments: the fields spec 6.2 names (`startTime`/`endTime`, not `start`/`end`) ----

const appointment = AppointmentSchema.properties;
const appointmentFields = {
  id: appointment.id,
  status: StringEnum(APPOINTMENT_STATUSES),
  startTime: OutputTimestamp({ description: 'The REST resource’s `start`' }),
  endTime: OutputTimestamp({ description: 'The REST resource’s `end`' }),
  patientId: appointment.patientId,
  doctorId: appointment.doctorId,
  chairId: appointment.chairId,
  facilityId: appointment.facilityId,
  calendarId: appointment.calendarId,
  treatmentPlanId: appointment.treatmentPlanId,
  origin: appointment.origin,
  createdAt: OutputTimestamp(),
  updatedAt: OutputTimestamp(),
};
const APPOINTMENT_EXAMPLE = {
  id: ID.appointment,
  status: 'scheduled',
  startTime: '2026-03-10T08:30:00.000Z',
  endTime: '2026-03-10T09:15:00.000Z',
  patientId: ID.patient,
  doctorId: ID.doctor,
  chairId: ID.chair,
  facilityId: ID.facility,
  calendarId: ID.calendar,
  treatmentPlanId: null,
  origin: 'api',
  createdAt: '2026-03-02T09:30:00.000Z',
  updatedAt: '2026-03-02T09:30:00.000Z',
};
const appointmentData = (status: string, updatedAt: string) =>
  object(appointmentFields, 'AppointmentEventData', 'The appointment without its free text (no title, reason or notes)', {
    ...APPOINTMENT_EXAMPLE,
    status,
    updatedAt,
  });
const AppointmentRescheduled = object(
  {
    ...appointmentFields,
    previous: Type.Object(
      {
        startTime: OutputTimestamp(),
        endTime: OutputTimestamp(),
        doctorId: Nullable(Uuid()),
        chairId: Nullable(Uuid()),
        facilityId: Nullable(Uuid()),
      },
      { additionalProperties: false, description: 'Time, doctor, chair and facility before the change' },
    ),
  },
  'AppointmentRescheduledEventData',
  'The appointment as it is now, and in `previous` the values it had before',
  {
    ...APPOINTMENT_EXAMPLE,
    startTime: '2026-03-12T14:00:00.000Z',
    endTime: '2026-03-12T14:45:00.000Z',
    doctorId: ID.otherDoctor,
    updatedAt: '2026-03-04T10:05:00.000Z',
    previous: {
      startTime: APPOINTMENT_EXAMPLE.startTime,
      endTime: APPOINTMENT_EXAMPLE.endTime,
      doctorId: ID.doctor,
      chairId: ID.chair,
      facilityId: ID.facility,
    },
  },
);

// ---- Quotes (treatment plans): amounts and decision, without the title, items or notes ----

const quote = Type.Pick(QuoteSchema, [
  'id',
  'number',
  'patientId',
  'facilityId',
  'doctorId',
  'status',
  'currency',
  'subtotal',
  'discount',
  'totalAmount',
  'validUntil',
  'presentedAt',
  'decidedAt',
]).properties;
const quoteFields = {
  ...quote,
  acceptanceChannel: Nullable(StringEnum(ACCEPTANCE_CHANNELS, { description: 'Where the patient said yes; null unless accepted' })),
};
/** The quote of the billing examples (the same ids and amounts), as its event carries it. */
const QUOTE_EXAMPLE = {
  ...Object.fromEntries(Object.keys(quote).map((key) => [key, BILLING_QUOTE_EXAMPLE[key as keyof typeof BILLING_QUOTE_EXAMPLE]])),
  acceptanceChannel: null,
};
const quoteData = (example: Record<string, unknown>) =>
  object(quoteFields, 'TreatmentPlanEventData', 'The quote’s amounts and decision, without its title, items or notes', { ...QUOTE_EXAMPLE, ...example });

// ---- Billing ----

/** The invoice of the billing examples (the same ids), as issued: nothing paid yet, no lines. */
const { lines: _lines, ...INVOICE } = BILLING_INVOICE_EXAMPLE;
const INVOICE_EXAMPLE = { ...INVOICE, amountPaid: 0, amountDue: INVOICE.totalAmount, updatedAt: INVOICE.createdAt };
const invoiceData = (example: Record<string, unknown>) =>
  Type.Omit(InvoiceSchema, ['lines'], {
    additionalProperties: false,
    title: 'InvoiceEventData',
    description: 'The invoice without its lines (their descriptions are clinical text)',
    examples: [{ ...INVOICE_EXAMPLE, ...example }],
  });
const PaymentReceived = Type.Object(PaymentSchema.properties, {
  additionalProperties: false,
  title: 'PaymentEventData',
  description: 'The payment, as `GET /payments/{id}` shows it',
  examples: [{ ...PAYMENT_EXAMPLE, amount: 1202, allocations: [{ invoiceId: ID.invoice, installmentId: null, amount: 1202 }] }],
});
const InstallmentOverdue = object(
  {
    id: Uuid({ description: 'The installment' }),
    paymentPlanId: Uuid(),
    patientId: Uuid(),
    amount: Type.Number({ description: 'Euro' }),
    amountPaid: Type.Number({ description: 'Euro paid so far' }),
    dueDate: Type.String({ format: 'date', description: '`YYYY-MM-DD`, passed in the clinic’s time zone' }),
    status: StringEnum(['pending', 'partially_paid'] as const),
  },
  'InstallmentOverdueEventData',
  'The unpaid installment and its plan',
  { id: ID.installment, paymentPlanId: ID.paymentPlan, patientId: ID.patient, amount: 300, amountPaid: 0, dueDate: '2026-05-15', status: 'pending' },
);

// ---- Leads: state and links, never a name, a phone or notes ----

const leadFields = Type.Pick(LeadSchema, ['id', 'facilityId', 'source', 'status', 'assignedTo', 'convertedPatientId', 'createdAt', 'updatedAt']).properties;
const LEAD_EXAMPLE = {
  id: ID.lead,
  facilityId: ID.facility,
  source: 'website',
  status: 'new',
  assignedTo: ID.staff,
  convertedPatientId: null,
  createdAt: '2026-02-20T17:45:00.000Z',
  updatedAt: '2026-02-20T17:45:00.000Z',
};
const LeadCreated = object(leadFields, 'LeadEventData', 'The lead’s state and links (no personal data)', LEAD_EXAMPLE);
const LeadConverted = object(
  { ...leadFields, patientId: Uuid({ description: 'The patient the lead became (also `convertedPatientId`)' }) },
  'LeadConvertedEventData',
  'The lead’s state and links, and the patient it became',
  { ...LEAD_EXAMPLE, status: 'won', convertedPatientId: ID.patient, updatedAt: '2026-03-02T09:30:00.000Z', patientId: ID.patient },
);

// ---- Tasks: without the title ----

const taskFields = Type.Pick(TaskSchema, ['id', 'status', 'type', 'dueDate', 'assigneeId', 'patientId', 'facilityId', 'createdAt', 'updatedAt']).properties;
const TASK_EXAMPLE = {
  id: ID.task,
  status: 'todo',
  type: 'recall',
  dueDate: '2026-03-09T08:00:00.000Z',
  assigneeId: ID.staff,
  patientId: ID.patient,
  facilityId: ID.facility,
  createdAt: '2026-03-02T09:30:00.000Z',
  updatedAt: '2026-03-02T09:30:00.000Z',
};
const taskData = (example: Record<string, unknown>) =>
  object(taskFields, 'TaskEventData', 'The task without its title (free text)', { ...TASK_EXAMPLE, ...example });

// ---- Conversations: ids, not the text ----

const MessageReceived = object(
  {
    id: Uuid({ description: 'The message (read it with `GET /conversations/{conversationId}/messages`)' }),
    conversationId: Uuid(),
    patientId: Nullable(Uuid()),
    leadId: Nullable(Uuid()),
  },
  'MessageReceivedEventData',
  'Ids only: the text is read through the API, where the read is logged',
  { id: ID.message, conversationId: ID.conversation, patientId: ID.patient, leadId: null },
);
const HandoffRequested = object(
  {
    id: Uuid({ description: 'The conversation' }),
    patientId: Nullable(Uuid()),
    leadId: Nullable(Uuid()),
    botState: ConversationSchema.properties.botState,
    updatedAt: OutputTimestamp(),
  },
  'HandoffRequestedEventData',
  'The conversation a person takes over from the bot',
  { id: ID.conversation, patientId: ID.patient, leadId: null, botState: 'allo_studio', updatedAt: '2026-03-02T09:31:20.000Z' },
);

// ---- Calls: without the numbers, summary, recording or transcript ----

const CallLogged = object(
  {
    ...Type.Pick(CallSchema, ['id', 'externalCallId', 'direction', 'startedAt', 'durationSeconds', 'outcome', 'patientId', 'leadId']).properties,
    leadCreated: Type.Boolean({ description: 'true = the number was unknown and this call created the lead `leadId`' }),
    facilityId: CallSchema.properties.facilityId,
    createdAt: CallSchema.properties.createdAt,
  },
  'CallEventData',
  'The call’s ids, outcome and duration (no numbers, summary or transcript)',
  {
    id: ID.call,
    externalCallId: 'CA5f1e0c7d2b9a4e6f8d3c1b0a9e8d7c6b',
    direction: 'inbound',
    startedAt: '2026-03-02T09:12:04.000Z',
    durationSeconds: 184,
    outcome: 'booked',
    patientId: ID.patient,
    leadId: null,
    leadCreated: false,
    facilityId: ID.facility,
    createdAt: '2026-03-02T09:15:10.000Z',
  },
);

// ---- The two types a destination cannot choose ----

const skippedBase = {
  type: StringEnum(SUBSCRIBABLE_EVENT_TYPES, { description: 'The type of the events that could not be created' }),
  scope: StringEnum([...new Set(Object.values(EVENT_SCOPES))], { description: 'The scope needed to see them' }),
};
const EventsSkipped = Type.Union(
  [
    Type.Object(
      {
        ...skippedBase,
        reason: Type.Literal('bulk_import', { description: 'More than 50 creations of the same type together' }),
        count: Type.Integer({ minimum: 1, description: 'How many' }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        ...skippedBase,
        reason: Type.Literal('no_active_key', { description: 'The clinic had no active key between `from` and `to`' }),
        from: OutputTimestamp(),
        to: OutputTimestamp(),
      },
      { additionalProperties: false },
    ),
    Type.Object({ ...skippedBase, reason: Type.Literal('error', { description: 'An internal error prevented the event' }) }, { additionalProperties: false }),
  ],
  {
    title: 'EventsSkippedEventData',
    description: 'Events that could not be created: resynchronize with `updatedSince` on the list of `scope`',
    examples: [{ type: 'patient.created', scope: 'patients:read', reason: 'bulk_import', count: 120 }],
  },
);
const WebhookTest = Type.Object({}, { additionalProperties: false, title: 'WebhookTestEventData', description: 'Always empty', examples: [{}] });

/** The schema of `data` for every type an event can have. */
export const EVENT_DATA_SCHEMAS = {
  'patient.created': PatientCreated,
  'patient.updated': PatientUpdated,
  'patient.archived': PatientArchived,
  'appointment.created': appointmentData('scheduled', APPOINTMENT_EXAMPLE.updatedAt),
  'appointment.rescheduled': AppointmentRescheduled,
  'appointment.confirmed': appointmentData('confirmed', '2026-03-09T18:02:00.000Z'),
  'appointment.cancelled': appointmentData('cancelled', '2026-03-08T12:20:00.000Z'),
  'appointment.checked_in': appointmentData('checked_in', '2026-03-10T08:24:00.000Z'),
  'appointment.completed': appointmentData('completed', '2026-03-10T09:18:00.000Z'),
  'appointment.no_show': appointmentData('no_show', '2026-03-10T09:00:00.000Z'),
  'treatment_plan.presented': quoteData({}),
  'treatment_plan.accepted': quoteData({ status: 'accepted', decidedAt: '2026-03-06T15:20:00.000Z', acceptanceChannel: 'in_person' }),
  'treatment_plan.rejected': quoteData({ status: 'rejected', decidedAt: '2026-03-06T15:20:00.000Z' }),
  'invoice.issued': invoiceData({}),
  'invoice.paid': invoiceData({ status: 'paid', amountPaid: 1202, amountDue: 0, paidAt: '2026-04-02T08:15:00.000Z', updatedAt: '2026-04-02T08:15:00.000Z' }),
  'payment.received': PaymentReceived,
  'installment.overdue': InstallmentOverdue,
  'lead.created': LeadCreated,
  'lead.converted': LeadConverted,
  'task.created': taskData({}),
  'task.completed': taskData({ status: 'done', updatedAt: '2026-03-09T10:30:00.000Z' }),
  'conversation.message_received': MessageReceived,
  'conversation.handoff_requested': HandoffRequested,
  'call.logged': CallLogged,
  'waitlist.offer_created': OfferCreated,
  'events.skipped': EventsSkipped,
  'webhook.test': WebhookTest,
} satisfies Record<EventType | 'events.skipped' | 'webhook.test', TSchema>;

/** Every type an event can have: the catalogue's and the two a destination cannot choose. */
export type AnyEventType = keyof typeof EVENT_DATA_SCHEMAS;
export const ALL_EVENT_TYPES = Object.keys(EVENT_DATA_SCHEMAS) as AnyEventType[];

/** The `data` of an event of type T. */
export type EventData<T extends AnyEventType> = Static<(typeof EVENT_DATA_SCHEMAS)[T]>;

/** The documented example of `data` for a type (a deep copy: callers may change it). */
export function exampleData<T extends AnyEventType>(type: T): EventData<T> {
  const schema = EVENT_DATA_SCHEMAS[type] as unknown as { examples: unknown[] };
  return structuredClone(schema.examples[0]) as EventData<T>;
}

/**
 * The type's example with fresh ids (one fresh id per id of the example, so links between its
 * fields stay consistent) and `facilityId` the event's: a sample of the type's real shape.
 */
export function sampleData<T extends AnyEventType>(type: T, facilityId: string | null): EventData<T> {
  const fresh = new Map<string, string>();
  const renew = (value: unknown): unknown => {
    if (typeof value === 'string' && isUuid(value)) {
      if (!fresh.has(value)) fresh.set(value, randomUUID());
      return fresh.get(value);
    }
    if (Array.isArray(value)) return value.map(renew);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renew(v)]));
    return value;
  };
  const data = renew(exampleData(type)) as Record<string, unknown>;
  if ('facilityId' in data) data.facilityId = facilityId;
  return data as EventData<T>;
}
