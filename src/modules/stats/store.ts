/**
 * The agenda statistics' SQL (README.md beside this file): one statement, each table read once
 * over the range (the indexes of migration 0126), grouped by the Monday of the clinic's week.
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
 * falls in the week of its local time: an appointment's or offer's start, an attempt's recording.
 * Each table's rows are those of the facilities `scope` sees, or of `facilityId` alone (the caller checked it is seen).
 */
export async function agendaWeeks(
  db: Db,
  q: { clinicId: string; timeZone: string; from: string; to: string; scope: TenantScope; facilityId: string | null },
): Promise<WeekRow[]> {
  const { clinicId, timeZone: tz } = q;
  const visible = (column: string): Expression<SqlBool> =>
    q.facilityId === null ? facilityVisible(column, q.scope) : sql<SqlBool>`${sql.ref(column)} = ${q.facilityId}`;
  const { rows } = await sql<WeekRow>`
    WITH span AS (SELECT ${q.from}::date::timestamp AS lo, ${q.to}::date::timestamp AS hi),
    bounds AS (SELECT lo AT TIME ZONE ${tz} AS t0, hi AT TIME ZONE ${tz} AS t1 FROM span),
    weeks AS (
      SELECT w AS wk FROM span, generate_series(date_trunc('week', lo), date_trunc('week', hi - interval '1 day'), interval '1 week') AS w),
    -- Confirmations as the outbox keeps them (30 days): beside the appointments confirmed now.
    confirmed AS MATERIALIZED (
      SELECT DISTINCT (e.data->>'id')::uuid AS id FROM events e WHERE e.clinic_id = ${clinicId} AND e.type = 'appointment.confirmed'),
    appts AS (
      SELECT date_trunc('week', a.start_at AT TIME ZONE ${tz}) AS wk,
        count(*) FILTER (WHERE a.status NOT IN ('draft', 'cancelled'))::int AS appointments,
        count(*) FILTER (WHERE a.status = 'confirmed' OR (a.status NOT IN ('draft', 'cancelled') AND a.id IN (SELECT id FROM confirmed)))::int AS confirmed,
        count(*) FILTER (WHERE a.status = 'no_show')::int AS no_shows,
        count(*) FILTER (WHERE a.status IN ('checked_in', 'in_progress', 'completed'))::int AS attended,
        count(*) FILTER (WHERE a.status = 'cancelled')::int AS cancellations,
        coalesce(sum(extract(epoch FROM a.end_at - a.start_at)) FILTER (WHERE a.status = 'cancelled'), 0)::float8 AS cancelled_seconds
      FROM appointments a, bounds b
      WHERE a.clinic_id = ${clinicId} AND a.start_at >= b.t0 AND a.start_at < b.t1 AND ${visible('a.facility_id')}
      GROUP BY 1),
    refills AS (
      SELECT date_trunc('week', o.start_at AT TIME ZONE ${tz}) AS wk, count(*)::int AS refilled,
        sum(extract(epoch FROM o.end_at - o.start_at))::float8 AS recovered_seconds
      FROM waitlist_offers o, bounds b
      WHERE o.clinic_id = ${clinicId} AND o.status = 'accepted' AND o.start_at >= b.t0 AND o.start_at < b.t1 AND ${visible('o.facility_id')}
      GROUP BY 1),
    recalls AS (
      SELECT date_trunc('week', r.created_at AT TIME ZONE ${tz}) AS wk, count(*)::int AS recalls_attempted,
        count(*) FILTER (WHERE r.outcome = 'booked')::int AS recalls_booked
      FROM recall_attempts r, bounds b
      WHERE r.clinic_id = ${clinicId} AND r.created_at >= b.t0 AND r.created_at < b.t1 AND ${visible('r.facility_id')}
      GROUP BY 1)
    SELECT to_char(w.wk, 'YYYY-MM-DD') AS week_start,
      greatest(w.wk, s.lo) AT TIME ZONE ${tz} AS start_at,
      least(w.wk + interval '7 days', s.hi) AT TIME ZONE ${tz} AS end_at,
      coalesce(a.appointments, 0) AS appointments, coalesce(a.confirmed, 0) AS confirmed, coalesce(a.no_shows, 0) AS no_shows,
      coalesce(a.attended, 0) AS attended, coalesce(a.cancellations, 0) AS cancellations, coalesce(a.cancelled_seconds, 0) AS cancelled_seconds,
      coalesce(f.refilled, 0) AS refilled, coalesce(f.recovered_seconds, 0) AS recovered_seconds,
      coalesce(r.recalls_attempted, 0) AS recalls_attempted, coalesce(r.recalls_booked, 0) AS recalls_booked
    FROM weeks w CROSS JOIN span s
      LEFT JOIN appts a ON a.wk = w.wk LEFT JOIN refills f ON f.wk = w.wk LEFT JOIN recalls r ON r.wk = w.wk
    ORDER BY w.wk`.execute(db);
  return rows;
}
