/** The agenda's weekly figures on the wire: the query and the answer of `GET /v1/stats/agenda`. */
import { Type, type Static } from 'typebox';
import { DateOnly, Nullable, OutputTimestamp, Uuid } from '../../core/schemas.js';

/** The longest range asked at once, in days: a year and a week (a year's weeks whatever weekday it starts on). */
export const MAX_RANGE_DAYS = 371;

export const AgendaStatsQuerySchema = Type.Object(
  {
    from: DateOnly({ description: 'First day counted (`YYYY-MM-DD` in the clinic’s time zone), inclusive', examples: ['2026-03-02'] }),
    to: DateOnly({ description: `Day after the last one counted, exclusive; after \`from\`, at most ${MAX_RANGE_DAYS} days later`, examples: ['2026-03-09'] }),
    facilityId: Type.Optional(Uuid({ description: 'Only this facility (a facility the key does not see is `404`)' })),
  },
  { additionalProperties: false },
);
export type AgendaStatsQuery = Static<typeof AgendaStatsQuerySchema>;

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Share = (description: string) => Nullable(Type.Number({ minimum: 0, description: `${description}; null when there is nothing to divide by` }));
const Hours = (description: string) => Type.Number({ minimum: 0, description: `${description}, in hours (two decimals)` });

const figures = {
  appointments: Count('Appointments starting in the span, neither draft nor cancelled'),
  confirmed: Count('Of those, the ones ever confirmed (also when they went on to a check-in, a completion or a no-show)'),
  confirmedShare: Share('confirmed / appointments'),
  noShows: Count('Appointments in status `no_show`'),
  noShowRate: Share('noShows / (noShows + the appointments the patient came to: checked_in, in_progress, completed)'),
  cancellations: Count('Appointments starting in the span that were cancelled'),
  cancelledHours: Hours('The time those cancellations freed'),
  refilled: Count('Freed slots starting in the span booked from the waitlist (accepted offers)'),
  refilledShare: Share('refilled / cancellations (a slot freed by a move and refilled counts in refilled too)'),
  recoveredHours: Hours('The time those refilled slots booked again'),
  recallsAttempted: Count('Recall attempts recorded in the span'),
  recallsBooked: Count('Of those, the ones with outcome `booked`'),
};

const AgendaFiguresSchema = Type.Object(figures, { additionalProperties: false, title: 'AgendaFigures' });

const AgendaWeekSchema = Type.Object(
  {
    weekStart: DateOnly({ description: 'The Monday the week starts on, in the clinic’s time zone', examples: ['2026-03-02'] }),
    start: OutputTimestamp({ description: 'First instant counted: the Monday’s local midnight, or `from` in the first week' }),
    end: OutputTimestamp({ description: 'Instant after the last counted: the next Monday’s local midnight, or `to` in the last week' }),
    hours: Type.Number({ description: 'Hours from `start` to `end`: 168 for a whole week, 167 or 169 for one with a clock change' }),
    ...figures,
  },
  { additionalProperties: false, title: 'AgendaWeek' },
);

const EXAMPLE_WEEK = {
  appointments: 182,
  confirmed: 141,
  confirmedShare: 0.7747,
  noShows: 6,
  noShowRate: 0.0366,
  cancellations: 14,
  cancelledHours: 9.5,
  refilled: 9,
  refilledShare: 0.6429,
  recoveredHours: 6,
  recallsAttempted: 40,
  recallsBooked: 11,
};

export const AgendaStatsSchema = Type.Object(
  {
    timeZone: Type.String({ description: 'The clinic’s time zone, in which weeks and days are read', examples: ['Europe/Rome'] }),
    from: DateOnly({ description: 'As asked' }),
    to: DateOnly({ description: 'As asked' }),
    facilityId: Nullable(Uuid({ description: 'As asked; null: every facility the key sees' })),
    weeks: Type.Array(AgendaWeekSchema, { description: 'Every week the range touches, oldest first, weeks without activity included (zeros)' }),
    totals: AgendaFiguresSchema,
  },
  {
    additionalProperties: false,
    title: 'AgendaStats',
    examples: [
      {
        timeZone: 'Europe/Rome',
        from: '2026-03-23',
        to: '2026-03-30',
        facilityId: null,
        weeks: [{ weekStart: '2026-03-23', start: '2026-03-22T23:00:00.000Z', end: '2026-03-29T22:00:00.000Z', hours: 167, ...EXAMPLE_WEEK }],
        totals: EXAMPLE_WEEK,
      },
    ],
  },
);
export type AgendaStats = Static<typeof AgendaStatsSchema>;
export type AgendaFigures = Static<typeof AgendaFiguresSchema>;
