/**
 * What the agenda's loop achieved, week by week (README.md beside this file): appointments and
 * their confirmations, no-shows, cancellations and the time they freed, the freed slots the
 * waitlist booked again, the recall calls made and the visits they booked.
 */
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import type { Db } from '../../db/transaction.js';
import { readFacility, visibleFacility } from '../facilities/index.js';
import { agendaStatsQueryIssues } from './checks.js';
import type { AgendaFigures, AgendaStats, AgendaStatsQuery } from './schema.js';
import { agendaWeeks, type WeekRow } from './store.js';

/** Counts of a span: what the figures are computed from. */
type Counts = Omit<WeekRow, 'week_start' | 'start_at' | 'end_at'>;

const share = (part: number, whole: number): number | null => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null);
const hours = (seconds: number): number => Math.round(seconds / 36) / 100;

/** The figures of a span from its counts: the shares are of the span's own counts (never an average of weeks' shares). */
export function figuresOf(c: Counts): AgendaFigures {
  return {
    appointments: c.appointments,
    confirmed: c.confirmed,
    confirmedShare: share(c.confirmed, c.appointments),
    noShows: c.no_shows,
    noShowRate: share(c.no_shows, c.no_shows + c.attended),
    cancellations: c.cancellations,
    cancelledHours: hours(c.cancelled_seconds),
    refilled: c.refilled,
    refilledShare: share(c.refilled, c.cancellations),
    recoveredHours: hours(c.recovered_seconds),
    recallsAttempted: c.recalls_attempted,
    recallsBooked: c.recalls_booked,
  };
}

function sum(rows: WeekRow[]): Counts {
  const total: Counts = {
    appointments: 0,
    confirmed: 0,
    no_shows: 0,
    attended: 0,
    cancellations: 0,
    cancelled_seconds: 0,
    refilled: 0,
    recovered_seconds: 0,
    recalls_attempted: 0,
    recalls_booked: 0,
  };
  for (const row of rows) for (const key of Object.keys(total) as Array<keyof Counts>) total[key] += Number(row[key]);
  return total;
}

/**
 * `GET /v1/stats/agenda`: the figures of each week the range touches, in the clinic's time zone,
 * and of the whole range; over the facilities the key sees, or the one asked (`404` if unseen).
 */
export async function agendaStats(db: Db, actor: Actor, q: AgendaStatsQuery): Promise<AgendaStats> {
  const issues = agendaStatsQueryIssues(q);
  if (issues.length > 0) throw ApiError.invalid('query', issues);
  if (q.facilityId) visibleFacility(actor, await readFacility(db, actor.clinicId, q.facilityId));
  const facilityId = q.facilityId?.toLowerCase() ?? null;
  const rows = await agendaWeeks(db, {
    clinicId: actor.clinicId,
    timeZone: actor.timeZone,
    from: q.from,
    to: q.to,
    scope: actor,
    facilityId,
  });
  return {
    timeZone: actor.timeZone,
    from: q.from,
    to: q.to,
    facilityId,
    weeks: rows.map((row) => ({
      weekStart: row.week_start,
      start: new Date(row.start_at).toISOString(),
      end: new Date(row.end_at).toISOString(),
      hours: (new Date(row.end_at).getTime() - new Date(row.start_at).getTime()) / 3_600_000,
      ...figuresOf(row),
    })),
    totals: figuresOf(sum(rows)),
  };
}
