/** The front door of src/modules/waitlist: what code outside the module uses of it (test/layers.test.ts). */
export { entryBodyIssues } from './checks.js';
export { offerCreatedData } from './events.js';
export { fitsPreferences } from './preferences.js';
export { WAITLIST_REASONS } from './reasons.js';
export {
  CONTACT_CHANNELS,
  DEFAULT_OFFER_MINUTES,
  NewWaitlistEntrySchema,
  OfferListQuerySchema,
  WaitlistEntrySchema,
  WaitlistListQuerySchema,
  WaitlistOfferSchema,
  WaitlistSettingsSchema,
} from './schema.js';
export type { WaitlistOfferView } from './schema.js';
export {
  createEntry,
  entryView,
  getEntry,
  getWaitlistSettings,
  listEntries,
  listOffers,
  lockOfferAndEntry,
  offerView,
  setWaitlistSettings,
} from './service.js';
export {
  candidateEntries,
  claimLapsedOffer,
  closeEntry,
  convertedPatientOf,
  insertOffer,
  lapsedOffers,
  lockEntry,
  lockLiveOfferOf,
  lockSlotSchedules,
  setOfferStatus,
  visibleCalendar,
} from './store.js';
export type { FreedSlot, OfferRow } from './store.js';
