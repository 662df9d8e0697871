/** The front door of src/modules/calendars: what code outside the module uses of it (test/layers.test.ts). */
export { availability, MAX_WINDOW_DAYS } from './availability.js';
export { availabilityQueryIssues, calendarBodyIssues } from './checks.js';
export { AvailabilityQuerySchema, AvailabilitySchema, CalendarChangesSchema, CalendarListQuerySchema, CalendarSchema, NewCalendarSchema } from './schema.js';
export {
  assertBookableBy,
  bookableWindow,
  calendarView,
  createCalendar,
  findCalendar,
  freeSlots,
  getCalendar,
  gridSlots,
  listCalendars,
  updateCalendar,
} from './service.js';
export type { Slot, SlotOptions, Window } from './service.js';
export { busyTimes, busyTimesQuery, calendarOfClinic, lockSchedules, readCalendarAndPatient } from './store.js';
export type { BusyQuery, CalendarRow } from './store.js';
