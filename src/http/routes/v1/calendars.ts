/** /v1/calendars: free slots of a calendar (spec 4.11). */
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import { availability, MAX_WINDOW_DAYS } from '../../../modules/calendars/service.js';
import { IdParams, InputTimestamp, Nullable, OutputTimestamp, Uuid } from '../../../core/schemas.js';
import type { App } from '../../types.js';

export const SlotSchema = Type.Object(
  { start: OutputTimestamp(), end: OutputTimestamp(), doctorId: Nullable(Uuid()), chairId: Nullable(Uuid()) },
  { additionalProperties: false, title: 'Slot' },
);

export function registerCalendarRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/calendars/:id/availability',
    {
      schema: {
        operationId: 'getCalendarAvailability',
        tags: ['Agenda (appointments)'],
        summary: 'Free slots of a calendar',
        description: [
          'The free slots whose start falls in the requested window [`from`, `to`), oldest first. Defaults: `from` now, `to` seven days after `from`; the window may span at most ' +
            MAX_WINDOW_DAYS +
            ' days and `to` must follow `from` (`400` naming `to` otherwise).',
          'A slot lies on the calendar’s slot grid inside its working hours (clinic timezone), has a doctor of the calendar (or `doctorId`) and, when the calendar has chairs, a chair, neither busy in an overlapping appointment (cancelled, no-show, postponed and draft appointments do not hold time). Each slot names the doctor and chair a booking would get.',
          '`window` is the part of the request the calendar’s rules let anyone book (after the minimum notice, before the booking horizon): `null`, with `data: []`, when they leave nothing to search (e.g. a window wholly past the horizon, or an inactive calendar). `data: []` with a `window` means no slot is free.',
        ].join('\n\n'),
        params: IdParams,
        querystring: Type.Object(
          {
            from: Type.Optional(InputTimestamp()),
            to: Type.Optional(InputTimestamp()),
            doctorId: Type.Optional(Uuid({ description: 'Only slots of this doctor of the calendar' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              calendarId: Uuid(),
              slotMinutes: Type.Integer(),
              window: Nullable(Type.Object({ from: OutputTimestamp(), to: OutputTimestamp() }, { additionalProperties: false })),
              data: Type.Array(SlotSchema),
            },
            { additionalProperties: false },
          ),
        },
      },
      config: { scopes: ['appointments:read'] },
    },
    async (request) => availability(ctx.db, request.actor, request.params.id, request.query),
  );
}
