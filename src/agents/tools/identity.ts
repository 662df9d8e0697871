/** The identity rule every tool that acts on or reads out a patient states, in the words its connection can follow. */
import type { Sentence } from '../tool.js';

/** Where a `patientId` may come from: the caller's own number, or a search a second detail confirmed. */
export const PATIENT_FROM_CONFIRMED: Sentence = {
  text: 'The `patientId` must come from get_caller_context (the caller’s own number) or a search_patients with `confirmed: true`, never from a name alone.',
  otherwise: {
    text: 'The `patientId` must come from a search_patients with `confirmed: true`, never from a name alone.',
    otherwise: 'Use only a `patientId` you were given for this person, never one found by a name alone.',
  },
};
