/** The scheduling module's front door (README.md beside this file): the commands that take or free a doctor's or chair's time. */
export { book, bookAppointment, slotAppointment } from './booking.js';
export { cancelAppointmentViaApi, cancelLocked, confirmLocked, rescheduleAppointmentViaApi } from './changes.js';
export { changeStatus, createAppointment, updateAppointment } from './agenda.js';
export { createHold, releaseHold } from './holds.js';
export { acceptOffer, declineOffer, expireOffers, removeEntry } from './offers.js';
