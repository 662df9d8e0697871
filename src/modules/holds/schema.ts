/** Slot holds: the TypeBox schemas of the API and their types. */
import { Type, type Static } from 'typebox';
import { HOLD_LIFE_SECONDS } from './caps.js';
import { InputTimestamp, Nullable, OutputTimestamp, Uuid } from '../../core/schemas.js';
import { localReadingFields } from '../../lib/local-reading.js';

/**
 * A key holds at most this many live slots at once. A call holds one slot at a time, and one key
 * usually serves all of a clinic's concurrent calls: 50 is well above the lines a clinic answers
 * at once (20 and more must never be refused while slots are free), and still bounds a runaway
 * key (a loop inventing holderRefs) to 50 slots, each for at most the hold life.
 */
export const HOLDS_PER_KEY = 50;
export const HOLD_TTL = { min: 30, max: 600, default: 300 } as const;

export const NewHoldSchema = Type.Object(
  {
    start: InputTimestamp({ description: 'Start of a free slot of the calendar (see getCalendarAvailability)' }),
    doctorId: Type.Optional(Uuid({ description: 'A doctor of the calendar; otherwise the first free one' })),
    ttlSeconds: Type.Optional(
      Type.Integer({ minimum: HOLD_TTL.min, maximum: HOLD_TTL.max, default: HOLD_TTL.default, description: 'How long the hold lives (30-600 s, default 300)' }),
    ),
    holderRef: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'The call or chat id the hold is for (its holder): a new hold with the same `holderRef` (same key) replaces the old one. Without it the key itself is the holder, of one slot per calendar at a time',
        examples: ['CA1f2e3d4c5b6a'],
      }),
    ),
  },
  { additionalProperties: false },
);
export type NewHold = Static<typeof NewHoldSchema>;

export const HoldSchema = Type.Object(
  {
    id: Uuid(),
    calendarId: Uuid(),
    start: OutputTimestamp(),
    end: OutputTimestamp(),
    doctorId: Nullable(Uuid()),
    chairId: Nullable(Uuid()),
    holderRef: Type.String({ description: 'The holder: the `holderRef` sent, or `key:<calendarId>` for a hold sent without one' }),
    expiresAt: OutputTimestamp({
      description: `When the hold lapses by itself: \`ttlSeconds\` from now, but never later than ${HOLD_LIFE_SECONDS / 60} minutes after the first hold of its \`holderRef\``,
    }),
    ...localReadingFields('the held slot’s start (one reading: the end is not read out)'),
  },
  {
    additionalProperties: false,
    title: 'SlotHold',
    examples: [
      {
        id: '7d1c7a52-3f0e-4f55-9a1e-0b8f3c2d1e4a',
        calendarId: '5b0c2f1e-8a7d-4c3b-9e2f-1a0b9c8d7e6f',
        start: '2026-03-04T08:30:00.000Z',
        end: '2026-03-04T09:00:00.000Z',
        doctorId: '2c9e8f7a-6b5d-4c3e-8f1a-9b0c7d6e5f4a',
        chairId: null,
        holderRef: 'CA1f2e3d4c5b6a',
        expiresAt: '2026-03-01T10:05:00.000Z',
        localDate: '2026-03-04',
        localTime: '09:30',
        label: 'mercoledì 4 marzo alle 9:30',
      },
    ],
  },
);
export type HoldView = Static<typeof HoldSchema>;
