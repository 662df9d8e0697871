/**
 * What the billing schemas share (spec 2.10): the closed value sets, tooth numbers,
 * amounts (euro with at most two decimals, src/modules/billing/money.ts) and the ids of the
 * OpenAPI examples, so the examples of quotes, invoices and payments name each other.
 */
import { Type } from 'typebox';

export const QUOTE_STATUSES = ['draft', 'presented', 'accepted', 'rejected', 'cancelled'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];
export const ITEM_STATUSES = ['planned', 'scheduled', 'completed', 'cancelled'] as const;
export const ACCEPTANCE_CHANNELS = ['chat', 'voice', 'portal', 'in_person', 'email'] as const;
export const REJECTION_REASONS = ['price', 'timing', 'second_opinion', 'not_needed', 'other'] as const;
export const INVOICE_STATUSES = ['issued', 'paid', 'void'] as const;
export const PAYMENT_METHODS = ['cash', 'card', 'bank_transfer', 'financing', 'other'] as const;
/** Tooth surfaces: mesial, occlusal, distal, buccal, lingual, incisal, facial, palatal. */
export const SURFACES = ['M', 'O', 'D', 'B', 'L', 'I', 'F', 'P'] as const;

/** FDI two-digit tooth numbers: permanent 11-18 … 41-48, deciduous 51-55 … 81-85. */
export function isFdiTooth(n: number): boolean {
  const quadrant = Math.floor(n / 10);
  const tooth = n % 10;
  if (quadrant >= 1 && quadrant <= 4) return tooth >= 1 && tooth <= 8;
  if (quadrant >= 5 && quadrant <= 8) return tooth >= 1 && tooth <= 5;
  return false;
}

export const Currency = Type.Literal('EUR', { description: 'Always `EUR`' });
/** An amount in input: euro, at most two decimals (checked by the service, naming the field). */
export const AmountInput = (options: Record<string, unknown> = {}) =>
  Type.Number({ minimum: 0, maximum: 100000000, description: 'Euro, at most two decimals', ...options });
/** A strictly positive amount in input. */
export const PositiveAmount = (options: Record<string, unknown> = {}) =>
  Type.Number({ exclusiveMinimum: 0, maximum: 100000000, description: 'Euro, more than 0, at most two decimals', ...options });
export const Amount = (description: string, example: number) => Type.Number({ description: `Euro. ${description}`, examples: [example] });

// The ids the realistic examples of the OpenAPI document share (a generated example would mix states).
export const ID = {
  quote: '7c1e2f4a-3b5d-4e6f-8a9b-0c1d2e3f4a5b',
  patient: '2a4b6c8d-1e3f-4a5b-9c7d-8e9f0a1b2c3d',
  facility: '5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f',
  doctor: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  item1: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
  item2: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  invoice: '4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8',
  line: '6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e',
  payment: '8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a',
};
