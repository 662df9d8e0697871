/** The identity rule every tool that acts on or reads out a patient states, in the words its connection can follow. */
import type { Sentence } from '../tool.js';

/** Where a `patientId` may come from: the caller's own number, or a search a second detail confirmed. */
export const PATIENT_FROM_CONFIRMED: Sentence = {
  text: '`patientId` only from get_caller_context or a confirmed search_patients, never from a name alone.',
  otherwise: {
    text: '`patientId` only from a confirmed search_patients, never from a name alone.',
    otherwise: '`patientId` only as given for this person, never found by a name alone.',
  },
};
