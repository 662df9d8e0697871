/**
 * The slot a booking, a hold or a move takes: a few strategies, each a function that answers the
 * slot or a NoSlot carrying its own context (the calendar, the start and the options asked), so
 * that `409 no_availability` can be built from it alone (alternatives, heldUntil). A NoSlot met
 * inside a transaction rolls it back (unlessNoSlot) and becomes the 409 outside it
 * (answeringNoSlot): a refused booking or hold writes nothing.
 */
import { ApiError } from '../../core/errors.js';
import type { Actor } from '../../core/actor.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { overlapReason } from '../appointments/index.js';
import { slotWords, type SlotWords } from '../../lib/local-reading.js';
import {
  bookableWindow,
  freeSlots,
  gridSlots,
  type Slot,
  type Window,
  busyTimes,
  busyTimesQuery,
  lockSchedules,
  type BusyQuery,
  type CalendarRow,
  type SlotOptions,
} from '../calendars/index.js';

const ALTERNATIVES = 5;
const ALTERNATIVES_SPAN_MS = 14 * 86_400_000;

/** What a strategy was asked: a slot of `cal` starting at `start`, with these options. */
export interface SlotAsk {
  cal: CalendarRow;
  start: Date;
  opts: SlotOptions;
}

/** No slot for the ask, and why. */
export interface NoSlot extends SlotAsk {
  kind: 'no_slot';
  reason: 'slot_taken' | 'outside_availability';
}

export function noSlot(reason: NoSlot['reason'], ask: SlotAsk): NoSlot {
  return { kind: 'no_slot', reason, ...ask };
}

export function isNoSlot(value: unknown): value is NoSlot {
  return (value as { kind?: unknown } | null)?.kind === 'no_slot';
}

/** A slot taken (its schedule locks held until commit), and the free slots its read found. */
interface Taken {
  slot: Slot;
  free: Slot[];
}

/** Up to five free slots nearest to `start` (before or after it), in the clinic's words as find_slots gives them. */
async function alternatives(db: Db, tz: string, { cal, start, opts }: SlotAsk): Promise<(Slot & SlotWords)[]> {
  const window = bookableWindow(cal, new Date(start.getTime() - ALTERNATIVES_SPAN_MS / 2), new Date(start.getTime() + ALTERNATIVES_SPAN_MS));
  if (!window) return [];
  const slots = await freeSlots(db, cal, tz, window, { ...opts, now: undefined });
  return slots
    .sort(
      (a, b) => Math.abs(Date.parse(a.start) - start.getTime()) - Math.abs(Date.parse(b.start) - start.getTime()) || Date.parse(a.start) - Date.parse(b.start),
    )
    .slice(0, ALTERNATIVES)
    .sort((a, b) => Date.parse(a.start) - Date.parse(b.start))
    .map((slot) => ({ ...slot, ...slotWords(new Date(slot.start), tz) }));
}

/** When the earliest live hold on the calendar's people at `start` ends (the time may free up then), or null. */
async function heldUntil(db: Db, { cal, start, opts }: SlotAsk): Promise<string | null> {
  const end = new Date(start.getTime() + cal.slot_minutes * 60_000);
  const doctors = opts.doctorId ? [opts.doctorId.toLowerCase()] : cal.doctor_ids;
  const busy = await busyTimes(db, cal.clinic_id, doctors, cal.chair_ids, start, end, opts);
  const holds = busy.filter((b) => b.expires_at !== null).map((b) => new Date(b.expires_at!).getTime());
  return holds.length ? new Date(Math.min(...holds)).toISOString() : null;
}

/** `409 no_availability` for a NoSlot: its reason, alternatives, and when a hold on that time ends. */
async function noAvailability(db: Db, tz: string, none: NoSlot): Promise<ApiError> {
  const until = none.reason === 'slot_taken' ? await heldUntil(db, none) : null;
  return new ApiError('no_availability', {
    reason: none.reason,
    alternatives: await alternatives(db, tz, none),
    ...(until ? { heldUntil: until } : {}),
  });
}

/** Thrown inside a transaction to roll it back with the NoSlot it met; answeringNoSlot reads it. */
class RolledBack extends Error {
  constructor(readonly none: NoSlot) {
    super(none.reason);
  }
}

/** The answer of a transaction's work, or, when it is a NoSlot, a throw that rolls the transaction back. */
export async function unlessNoSlot<T>(work: Promise<T | NoSlot>): Promise<T> {
  const answer = await work;
  if (isNoSlot(answer)) throw new RolledBack(answer);
  return answer;
}

/**
 * Runs a booking command; the NoSlot that rolled it back becomes `409 no_availability` with
 * alternatives, unless `instead` answers it (after the rollback: a booking's retry finds the
 * appointment it booked the first time).
 */
export async function answeringNoSlot<T>(db: Db, actor: Actor, command: () => Promise<T>, instead?: (none: NoSlot) => Promise<T | null>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (!(error instanceof RolledBack)) throw error;
    const answer = instead ? await instead(error.none) : null;
    if (answer !== null) return answer;
    throw await noAvailability(db, actor.timeZone, error.none);
  }
}

/** A write of the slot's appointment; a lost race on the overlap constraints is NoSlot `slot_taken`. */
export async function overlapAsNoSlot<T>(write: Promise<T>, ask: SlotAsk): Promise<T | NoSlot> {
  try {
    return await write;
  } catch (error) {
    if (overlapReason(error)) return noSlot('slot_taken', ask);
    throw error;
  }
}

/**
 * The calendar's rules for a slot starting at `start` (active, notice and horizon measured from
 * `now`, a start on its grid of working hours), checked in memory: the one-instant window the
 * slot's start falls in, or null (outside availability).
 */
function windowAt(cal: CalendarRow, tz: string, start: Date, now?: Date): Window | null {
  const window = bookableWindow(cal, start, new Date(start.getTime() + 1), now);
  if (!window || !gridSlots(cal, tz, window).some((s) => s.start.getTime() === start.getTime())) return null;
  return window;
}

/** A slot at a time: the free slot starting at `ask.start`, with the free slots its read found. */
async function slotAmong(db: Db, tz: string, ask: SlotAsk): Promise<Taken | NoSlot> {
  const { cal, start, opts } = ask;
  const window = windowAt(cal, tz, start, opts.now);
  if (!window) return noSlot('outside_availability', ask);
  const free = await freeSlots(db, cal, tz, window, opts);
  const slot = free.find((s) => Date.parse(s.start) === start.getTime());
  return slot ? { slot, free } : noSlot('slot_taken', ask);
}

/**
 * A slot at a time at `ask`'s doctor (an expired hold's, or the one a moved appointment has);
 * when that doctor is taken and `anyDoctor`, at any doctor of the calendar. Answers the ask it
 * found the slot with. Its locks are not taken: claimSlot.
 */
export async function slotPreferring(db: Db, tz: string, ask: SlotAsk, anyDoctor: boolean): Promise<{ slot: Slot; ask: SlotAsk } | NoSlot> {
  const found = await slotAmong(db, tz, ask);
  if (!isNoSlot(found)) return { slot: found.slot, ask };
  if (!anyDoctor || found.reason !== 'slot_taken') return found;
  const any = { ...ask, opts: { ...ask.opts, doctorId: undefined } };
  const again = await slotAmong(db, tz, any);
  return isNoSlot(again) ? again : { slot: again.slot, ask: any };
}

/**
 * A held slot: the slot a live hold keeps, at its doctor and chair. The calendar's rules (active,
 * window and grid, measured from the hold's creation) are checked again, in memory; the time is
 * not read again. The hold was claimed under the schedule locks, so every hold or booking of that
 * time since has seen it and been refused (three statements fewer per booking); an
 * appointment the clinic entered meanwhile in its own agenda meets the overlap constraints at
 * the insert, `409 slot_taken` as before.
 */
export function heldSlot(
  tz: string,
  ask: SlotAsk,
  hold: { start_at: Date; end_at: Date; created_at: Date; doctor_id: string | null; chair_id: string | null },
): Slot | NoSlot {
  if (!windowAt(ask.cal, tz, hold.start_at, hold.created_at)) return noSlot('outside_availability', ask);
  return { start: hold.start_at.toISOString(), end: hold.end_at.toISOString(), doctorId: hold.doctor_id, chairId: hold.chair_id };
}

/**
 * Takes the slot's doctor's and chair's schedule locks (0051_schedule_lock.sql) until commit,
 * then checks again that no appointment or live hold took that time meanwhile: null, or NoSlot
 * `slot_taken` for `ask`. Every writer of either takes these locks first, so of two racing for
 * one time the later one sees the earlier one's commit here (on PGlite transactions are
 * serialized anyway).
 */
export async function claimSlot(trx: Transaction, slot: Slot, ask: SlotAsk): Promise<NoSlot | null> {
  await lockSchedules(trx, [slot.doctorId, slot.chairId]);
  const busy = await busyTimes(
    trx,
    ask.cal.clinic_id,
    slot.doctorId ? [slot.doctorId] : [],
    slot.chairId ? [slot.chairId] : [],
    new Date(slot.start),
    new Date(slot.end),
    ask.opts,
  );
  return busy.length > 0 ? noSlot('slot_taken', ask) : null;
}

/**
 * The doctor and the chair that alone can take a slot of `cal` with these options, when there
 * is one of each at most (a calendar of one doctor, or a request that names its doctor; no
 * chair or one): their locks can be taken before the time is read, and that one read, which no
 * other write of their time can change until commit, both finds the slot and replaces the
 * check claimSlot makes after its locks (one statement fewer per booking or hold).
 * soleSchedulesLock (calendars/store.ts) is this rule in SQL, for the booking's first statement.
 */
function soleSchedules(cal: CalendarRow, opts: SlotOptions): Array<string | null> | null {
  const doctors = opts.doctorId ? [opts.doctorId] : cal.doctor_ids;
  if (doctors.length !== 1 || cal.chair_ids.length > 1) return null;
  return [doctors[0]!, cal.chair_ids[0] ?? null];
}

/**
 * A slot at a time, taken: its doctor's and chair's schedule locks held until commit, and its
 * time read under them (soleSchedules), or else found, locked and checked again (claimSlot).
 * Only for a transaction that takes no other schedule lock after it: two lock calls in one
 * transaction can deadlock with another's (lock_schedules orders the ids of one call).
 */
export async function takeSlot(trx: Transaction, tz: string, ask: SlotAsk): Promise<Taken | NoSlot> {
  const sole = soleSchedules(ask.cal, ask.opts);
  if (sole) {
    await lockSchedules(trx, sole);
    return slotAmong(trx, tz, ask);
  }
  const found = await slotAmong(trx, tz, ask);
  if (isNoSlot(found)) return found;
  return (await claimSlot(trx, found.slot, ask)) ?? found;
}

/**
 * The one schedule's slot: the slot at `ask.start` of a calendar whose sole schedules the
 * booking's first statement locked (soleSchedulesLock), with the query of the time taken on
 * them. The calendar's rules are checked in memory here, and the insert itself reads that time
 * (insertAppointmentUnlessBusy), one statement fewer than takeSlot. The slot is the one
 * freeSlots would find: the sole doctor and chair, if their time is free.
 */
export function soleSlot(trx: Transaction, tz: string, ask: SlotAsk): { slot: Slot; busy: BusyQuery } | NoSlot {
  const { cal, start, opts } = ask;
  const sole = soleSchedules(cal, opts);
  // soleSchedulesLock is soleSchedules in SQL: locks taken where this finds none are a bug.
  if (!sole) throw new Error('book: schedule locks taken for a calendar without sole schedules');
  if (!windowAt(cal, tz, start, opts.now)) return noSlot('outside_availability', ask);
  const end = new Date(start.getTime() + cal.slot_minutes * 60_000);
  const [doctorId, chairId] = sole;
  const busy = busyTimesQuery(trx, cal.clinic_id, doctorId ? [doctorId] : [], cal.chair_ids, start, end, opts);
  return { slot: { start: start.toISOString(), end: end.toISOString(), doctorId: doctorId ?? null, chairId: chairId ?? null }, busy };
}
