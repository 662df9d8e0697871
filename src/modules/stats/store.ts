/**
 * The agenda statistics' SQL (README.md beside this file): one statement, each week's slice of
 * each table read from an index that covers the figures (migration 0126).
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import { facilityVisible, type TenantScope } from '../../db/tenant.js';
import type { Db } from '../../db/transaction.js';

export interface WeekRow {
  week_start: string;
  start_at: Date;
  end_at: Date;
  appointments: number;
  confirmed: number;
  no_shows: number;
  attended: number;
  cancellations: number;
  cancelled_seconds: number;
  refilled: number;
  recovered_seconds: number;
  recalls_attempted: number;
  recalls_booked: number;
}

/**
 * One row per week the range [from, to) touches (local dates in `timeZone`), oldest first. A week
 * is Monday 00:00 to the next Monday 00:00 as the clinic's clocks read them, whatever the hours
 * between (167 or 169 across a clock change); the first and last are clipped to the range. A fact
 * falls in the week whose instants hold it (the week of its local time): an appointment's or
 * offer's start, an attempt's recording.
 * Each table's rows are those of the facilities `scope` sees, or of `facilityId` alone (the caller checked it is seen).
 */
export async function agendaWeeks(
  db: Db,
  q: { clinicId: string; timeZone: string; from: string; to: string; scope: TenantScope; facilityId: string | null },
): Promise<WeekRow[]> {
  const { clinicId, timeZone: tz } = q;
  const visible = (column: string): Expression<SqlBool> =>
    q.facilityId === null ? facilityVisible(column, q.scope) : sql<SqlBool>`${sql.ref(column)} = ${q.facilityId}`;
  // Each week reads its own slice of each index (its instants, computed once per week): no
  // time-zone conversion and no grouping per row, and a week costs what it holds.
  const { rows } = await sql<WeekRow>`
    WITH weeks AS (
      SELECT w AS wk, greatest(w, lo) AS local_start, least(w + interval '7 days', hi) AS local_end
      FROM (SELECT ${q.from}::date::timestamp AS lo, ${q.to}::date::timestamp AS hi) AS span,
        -- Counted in integers, so the planner knows the number of weeks (it guesses a series of
        -- timestamps at 1,000 rows, prices the statement past jit_above_cost, and the compilation
        -- then costs more than a third of the query's time).
        generate_series(0, (date_trunc('week', (${q.to}::date - 1)::timestamp)::date - date_trunc('week', ${q.from}::date::timestamp)::date) / 7) AS n,
        LATERAL (SELECT date_trunc('week', lo) + n * interval '7 days' AS w) AS monday),
    bounds AS (SELECT wk, local_start AT TIME ZONE ${tz} AS t0, local_end AT TIME ZONE ${tz} AS t1 FROM weeks)
    SELECT to_char(b.wk, 'YYYY-MM-DD') AS week_start, b.t0 AS start_at, b.t1 AS end_at, a.*, f.*, r.*
    FROM bounds b
    CROSS JOIN LATERAL (
      SELECT count(*) FILTER (WHERE a.status NOT IN ('draft', 'cancelled'))::int AS appointments,
        count(*) FILTER (WHERE a.confirmed_at IS NOT NULL AND a.status NOT IN ('draft', 'cancelled'))::int AS confirmed,
        count(*) FILTER (WHERE a.status = 'no_show')::int AS no_shows,
        count(*) FILTER (WHERE a.status IN ('checked_in', 'in_progress', 'completed'))::int AS attended,
        count(*) FILTER (WHERE a.status = 'cancelled')::int AS cancellations,
        coalesce(sum(extract(epoch FROM a.end_at - a.start_at)) FILTER (WHERE a.status = 'cancelled'), 0)::float8 AS cancelled_seconds
      FROM appointments a
      WHERE a.clinic_id = ${clinicId} AND a.start_at >= b.t0 AND a.start_at < b.t1 AND ${visible('a.facility_id')}) a
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS refilled, coalesce(sum(extract(epoch FROM o.end_at - o.start_at)), 0)::float8 AS recovered_seconds
      FROM waitlist_offers o
      WHERE o.clinic_id = ${clinicId} AND o.status = 'accepted' AND o.start_at >= b.t0 AND o.start_at < b.t1 AND ${visible('o.facility_id')}) f
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS recalls_attempted, count(*) FILTER (WHERE r.outcome = 'booked')::int AS recalls_booked
      FROM recall_attempts r
      WHERE r.clinic_id = ${clinicId} AND r.created_at >= b.t0 AND r.created_at < b.t1 AND ${visible('r.facility_id')}) r
    ORDER BY b.wk`.execute(db);
  return rows;
}
