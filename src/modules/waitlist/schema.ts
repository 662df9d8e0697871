/** The waitlist on the wire: entries, offers of freed slots, and their types. */
import { Type, type Static } from 'typebox';
import { InputTimestamp, Nullable, OutputTimestamp, PageQueryFields, StringEnum, Uuid } from '../../core/schemas.js';
import { localReadingFields, LocalReadingSchema } from '../../lib/local-reading.js';

const WEEKDAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export const PARTS_OF_DAY = ['morning', 'afternoon', 'evening'] as const;
export type PartOfDay = (typeof PARTS_OF_DAY)[number];
export const CONTACT_CHANNELS = ['phone', 'sms', 'whatsapp', 'email'] as const;
const ENTRY_STATUSES = ['open', 'booked', 'removed'] as const;
export const OFFER_STATUSES = ['offered', 'accepted', 'declined', 'expired', 'withdrawn'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];
/** An offer keeps its slot this many minutes unless the clinic sets otherwise (back office). */
export const DEFAULT_OFFER_MINUTES = 30;
const OFFER_MINUTES = { min: 5, max: 1440 } as const;

const EXAMPLE = {
  entry: '0d3c9a5e-7b1f-4c2e-9a8d-6f5e4d3c2b1a',
  offer: '6e2f1a9b-8c7d-4e5f-a0b1-c2d3e4f5a6b7',
  calendar: 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f',
  facility: '5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f',
  doctor: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  patient: '2a4b6c8d-1e3f-4a5b-9c7d-8e9f0a1b2c3d',
  appointment: 'e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a0b',
} as const;

export const NewWaitlistEntrySchema = Type.Object(
  {
    patientId: Type.Optional(Uuid({ description: 'The patient waiting (exactly one of `patientId` and `leadId`)' })),
    leadId: Type.Optional(Uuid({ description: 'The lead waiting (exactly one of `patientId` and `leadId`); its offer books once the lead is converted' })),
    calendarId: Uuid({ description: 'The calendar (bookable service) the person waits for' }),
    doctorId: Type.Optional(Uuid({ description: 'Only slots of this doctor of the calendar; otherwise any of its doctors' })),
    earliest: Type.Optional(InputTimestamp({ description: 'No slot starting before this instant (default: now)' })),
    latest: InputTimestamp({ description: 'No slot ending after this instant; must be in the future and after `earliest`' }),
    days: Type.Optional(
      Type.Array(StringEnum(WEEKDAY_NAMES), {
        uniqueItems: true,
        maxItems: 7,
        description: 'Preferred weekdays in the clinic’s time zone; empty or absent: any day',
      }),
    ),
    partsOfDay: Type.Optional(
      Type.Array(StringEnum(PARTS_OF_DAY), {
        uniqueItems: true,
        maxItems: 3,
        description:
          'Preferred parts of the day by the slot’s local start: `morning` before 13:00, `afternoon` 13:00-17:59, `evening` from 18:00; empty or absent: any time',
      }),
    ),
    note: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'Free text for the agent who calls (kept out of events)' }))),
    channel: StringEnum(CONTACT_CHANNELS, { description: 'How to reach the person with an offer' }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        patientId: EXAMPLE.patient,
        calendarId: EXAMPLE.calendar,
        latest: '2026-04-30T18:00:00.000Z',
        days: ['tue', 'thu'],
        partsOfDay: ['morning'],
        note: 'Preferisce essere chiamata dopo le 9',
        channel: 'phone',
      },
    ],
  },
);
export type NewWaitlistEntry = Static<typeof NewWaitlistEntrySchema>;

export const WaitlistEntrySchema = Type.Object(
  {
    id: Uuid(),
    calendarId: Uuid(),
    facilityId: Uuid({ description: 'The calendar’s facility' }),
    doctorId: Nullable(Uuid()),
    patientId: Nullable(Uuid()),
    leadId: Nullable(Uuid()),
    earliest: OutputTimestamp(),
    latest: OutputTimestamp(),
    days: Type.Array(StringEnum(WEEKDAY_NAMES)),
    partsOfDay: Type.Array(StringEnum(PARTS_OF_DAY)),
    note: Nullable(Type.String()),
    channel: StringEnum(CONTACT_CHANNELS),
    status: StringEnum(ENTRY_STATUSES, { description: '`open` (waiting), `booked` (an offer was accepted), `removed` (deleted)' }),
    appointmentId: Nullable(Uuid({ description: 'The appointment booked from an accepted offer' })),
    createdAt: OutputTimestamp({ description: 'Entries are offered slots in this order' }),
    updatedAt: OutputTimestamp(),
    earliestLocal: LocalReadingSchema('`earliest`'),
    latestLocal: LocalReadingSchema('`latest`'),
  },
  {
    additionalProperties: false,
    title: 'WaitlistEntry',
    examples: [
      {
        id: EXAMPLE.entry,
        calendarId: EXAMPLE.calendar,
        facilityId: EXAMPLE.facility,
        doctorId: null,
        patientId: EXAMPLE.patient,
        leadId: null,
        earliest: '2026-03-02T08:00:00.000Z',
        latest: '2026-04-30T18:00:00.000Z',
        days: ['tue', 'thu'],
        partsOfDay: ['morning'],
        note: 'Preferisce essere chiamata dopo le 9',
        channel: 'phone',
        status: 'open',
        appointmentId: null,
        createdAt: '2026-03-02T08:00:00.000Z',
        updatedAt: '2026-03-02T08:00:00.000Z',
        earliestLocal: { localDate: '2026-03-02', localTime: '09:00', label: 'lunedì 2 marzo alle 9:00' },
        latestLocal: { localDate: '2026-04-30', localTime: '20:00', label: 'giovedì 30 aprile alle 20:00' },
      },
    ],
  },
);
export type WaitlistEntryView = Static<typeof WaitlistEntrySchema>;

export const WaitlistListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    status: Type.Optional(StringEnum(ENTRY_STATUSES)),
    calendarId: Type.Optional(Uuid()),
    patientId: Type.Optional(Uuid()),
    leadId: Type.Optional(Uuid()),
  },
  { additionalProperties: false },
);
export type WaitlistListQuery = Static<typeof WaitlistListQuerySchema> & { limit: number };

export const WaitlistOfferSchema = Type.Object(
  {
    id: Uuid(),
    entryId: Uuid(),
    calendarId: Uuid(),
    facilityId: Uuid(),
    doctorId: Nullable(Uuid()),
    chairId: Nullable(Uuid()),
    patientId: Nullable(Uuid({ description: 'The entry’s patient' })),
    leadId: Nullable(Uuid({ description: 'The entry’s lead' })),
    channel: StringEnum(CONTACT_CHANNELS, { description: 'The entry’s channel' }),
    start: OutputTimestamp(),
    end: OutputTimestamp(),
    expiresAt: OutputTimestamp({ description: 'Until then nobody else can take the slot; after it, the slot passes to the next matching entry' }),
    status: StringEnum(OFFER_STATUSES, {
      description: '`offered` (keeps the slot), `accepted` (booked: `appointmentId`), `declined`, `expired` (passed on), `withdrawn` (its entry was deleted)',
    }),
    appointmentId: Nullable(Uuid()),
    createdAt: OutputTimestamp(),
    updatedAt: OutputTimestamp(),
    ...localReadingFields('the offered slot’s start (one reading: the end is not read out)'),
  },
  {
    additionalProperties: false,
    title: 'WaitlistOffer',
    examples: [
      {
        id: EXAMPLE.offer,
        entryId: EXAMPLE.entry,
        calendarId: EXAMPLE.calendar,
        facilityId: EXAMPLE.facility,
        doctorId: EXAMPLE.doctor,
        chairId: null,
        patientId: EXAMPLE.patient,
        leadId: null,
        channel: 'phone',
        start: '2026-03-05T08:30:00.000Z',
        end: '2026-03-05T09:00:00.000Z',
        expiresAt: '2026-03-03T10:30:00.000Z',
        status: 'offered',
        appointmentId: null,
        createdAt: '2026-03-03T10:00:00.000Z',
        updatedAt: '2026-03-03T10:00:00.000Z',
        localDate: '2026-03-05',
        localTime: '09:30',
        label: 'giovedì 5 marzo alle 9:30',
      },
    ],
  },
);
export type WaitlistOfferView = Static<typeof WaitlistOfferSchema>;

export const OfferListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    status: Type.Optional(StringEnum(OFFER_STATUSES)),
    entryId: Type.Optional(Uuid()),
    calendarId: Type.Optional(Uuid()),
  },
  { additionalProperties: false },
);
export type OfferListQuery = Static<typeof OfferListQuerySchema> & { limit: number };

/** The back office's waitlist setting. */
export const WaitlistSettingsSchema = Type.Object(
  {
    offerMinutes: Type.Integer({
      minimum: OFFER_MINUTES.min,
      maximum: OFFER_MINUTES.max,
      description: `How long an offer keeps its slot before it passes to the next entry (${OFFER_MINUTES.min}-${OFFER_MINUTES.max}, default ${DEFAULT_OFFER_MINUTES})`,
    }),
  },
  { additionalProperties: false, title: 'WaitlistSettings', examples: [{ offerMinutes: 30 }] },
);
export type WaitlistSettings = Static<typeof WaitlistSettingsSchema>;
