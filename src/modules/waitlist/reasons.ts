/** The closed sets of `details.reason` of the waitlist operations (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';

export const WAITLIST_REASONS = {
  create: { conflict: ['already_waiting'] },
  remove: {},
  accept: {
    conflict: ['offer_declined', 'offer_withdrawn', 'offer_expired', 'entry_closed', 'lead_not_converted', 'doctor_busy', 'chair_busy'],
  },
  decline: { conflict: ['offer_accepted', 'offer_expired', 'offer_withdrawn'] },
} as const satisfies Record<string, DeclaredReasons>;
