/** The `data` of the waitlist's event (spec 6.2, 6.3): ids and times only (no note, no name). */
import type { Selectable } from 'kysely';
import { Type, type TSchema } from 'typebox';
import { Nullable, OutputTimestamp, Uuid } from '../../core/schemas.js';
import type { WaitlistOffersTable } from '../../db/tables/waitlist.js';
import type { AnyEventType } from '../../events/catalogue.js';

/** `waitlist.offer_created`: ids and times only (no note, no name). */
const OfferCreated = Type.Object(
  {
    id: Uuid({ description: 'The offer' }),
    entryId: Uuid(),
    calendarId: Uuid(),
    facilityId: Uuid(),
    doctorId: Nullable(Uuid()),
    chairId: Nullable(Uuid()),
    patientId: Nullable(Uuid()),
    leadId: Nullable(Uuid()),
    start: OutputTimestamp(),
    end: OutputTimestamp(),
    expiresAt: OutputTimestamp({ description: 'Until then the slot is kept for this entry' }),
    createdAt: OutputTimestamp(),
  },
  {
    additionalProperties: false,
    title: 'WaitlistOfferCreatedEventData',
    description: 'A freed slot offered to a waitlist entry: the slot is kept for it until `expiresAt`.',
    examples: [
      {
        id: '6e2f1a9b-8c7d-4e5f-a0b1-c2d3e4f5a6b7',
        entryId: '0d3c9a5e-7b1f-4c2e-9a8d-6f5e4d3c2b1a',
        calendarId: 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f',
        facilityId: '5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f',
        doctorId: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        chairId: null,
        patientId: '2a4b6c8d-1e3f-4a5b-9c7d-8e9f0a1b2c3d',
        leadId: null,
        start: '2026-03-05T08:30:00.000Z',
        end: '2026-03-05T09:00:00.000Z',
        expiresAt: '2026-03-03T10:30:00.000Z',
        createdAt: '2026-03-03T10:00:00.000Z',
      },
    ],
  },
);

/** The schema of `data` for each waitlist event type. */
export const WAITLIST_EVENTS = {
  'waitlist.offer_created': OfferCreated,
} satisfies { [T in AnyEventType]?: TSchema };

export function offerCreatedData(offer: Selectable<WaitlistOffersTable>, person: { patient_id: string | null; lead_id: string | null }) {
  return {
    id: offer.id,
    entryId: offer.entry_id,
    calendarId: offer.calendar_id,
    facilityId: offer.facility_id,
    doctorId: offer.doctor_id,
    chairId: offer.chair_id,
    patientId: person.patient_id,
    leadId: person.lead_id,
    start: offer.start_at.toISOString(),
    end: offer.end_at.toISOString(),
    expiresAt: offer.expires_at.toISOString(),
    createdAt: offer.created_at.toISOString(),
  };
}
