/** /v1/stats: what the agenda's loop achieved, week by week. */
import type { AppContext } from '../../../context.js';
import { AgendaStatsQuerySchema, AgendaStatsSchema, MAX_RANGE_DAYS, agendaStats, agendaStatsQueryIssues } from '../../../modules/stats/index.js';
import type { App } from '../../types.js';

const TAG = 'Statistics';

export function registerStatsRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/stats/agenda',
    {
      schema: {
        operationId: 'getAgendaStats',
        tags: [TAG],
        summary: 'What the agenda achieved, week by week',
        description: [
          'For each week the range touches and for the whole range: the appointments, the share confirmed, the no-shows and their rate, the cancellations and the hours they freed, the freed slots booked again from the waitlist (count, share of the cancellations, hours recovered), and the recall calls made and the visits they booked.',
          `\`from\` (inclusive) and \`to\` (exclusive) are days (\`YYYY-MM-DD\`) in the clinic’s time zone (\`timeZone\` in the answer); \`to\` must follow \`from\` by at most ${MAX_RANGE_DAYS} days (a year and a week): otherwise \`400\` naming \`to\`. Missing or malformed fields are all named in \`details.issues\`.`,
          'Weeks start on Monday at 00:00 as the clinic’s clocks read it and end at the next Monday’s 00:00, so a week with a clock change lasts 167 or 169 hours (`hours`); a fact counts in the week of its local time. The first and last weeks are clipped to the range (`start`, `end` say what was counted). Weeks without activity answer zeros; a share or rate with nothing to divide by is `null`; hours have two decimals.',
          'What counts: an appointment by its start, neither draft nor cancelled; confirmed when it is in status `confirmed` or its `appointment.confirmed` event is still kept (events are kept 30 days, so older weeks count only appointments still awaiting their visit); the no-show rate is no-shows over no-shows plus the visits the patient came to (checked in, in progress, completed); a cancellation by the start of the appointment cancelled, its hours those it held; a refill is a waitlist offer accepted, by the start of the slot it booked (a slot freed by a move counts too, so the share can exceed 1); a recall attempt by when it was recorded, booked when its outcome is `booked`.',
          'Over the facilities the key sees, or only `facilityId` (a facility the key does not see, or of another clinic, is `404`). Appointments without a facility count only for a key that sees every facility, without `facilityId`.',
        ].join('\n\n'),
        querystring: AgendaStatsQuerySchema,
        response: { 200: AgendaStatsSchema },
      },
      config: { scopes: ['appointments:read'], queryIssues: agendaStatsQueryIssues },
    },
    async (request) => agendaStats(ctx.db, request.actor, request.query),
  );
}
