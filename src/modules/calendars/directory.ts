/** The calendars as /v1 lists and reads them (scope `clinic:read`): the bookable services a key sees. */
import type { Actor } from '../../core/actor.js';
import type { Db } from '../../db/transaction.js';
import { calendarView } from './service.js';
import type { CalendarListQuery, CalendarView } from './schema.js';
import * as store from './directory-store.js';

/** A page of the calendars the key sees, by last modification (oldest first), of a facility or of a doctor. */
export async function listCalendars(db: Db, actor: Actor, q: CalendarListQuery): Promise<{ data: CalendarView[]; nextCursor: string | null }> {
  const page = await store.pageCalendars(db, actor, q);
  return { data: page.items.map(calendarView), nextCursor: page.nextCursor };
}

export async function getCalendar(db: Db, actor: Actor, id: string): Promise<CalendarView> {
  return calendarView(await store.findCalendar(db, actor, id));
}
