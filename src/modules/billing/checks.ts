/**
 * The checks of billing bodies that need no database: at most two decimals, FDI teeth, a
 * discount within its amount, one payment target, and every computed total within its
 * `numeric(14, 2)` column. Each rule is written once, here, and serves two callers:
 *   - the service, on a body that passed its schema (typed input);
 *   - the error handler, on a body that failed its schema (route `config.bodyIssues`,
 *     src/http/plugins/errors.ts), so one `400` names the schema's wrong fields and these.
 * So they read the body as `unknown` and skip what the schema refuses (a field of the wrong
 * type, an amount that is not a number): the schema names it, and a total that cannot be
 * computed is not judged.
 */
import type { ValidationIssue } from '../../core/errors.js';
import { boundIssue, centsIssue, hasCents, STAMP_DUTY_CENTS, toCents, vatCents } from './money.js';
import { isFdiTooth } from './schema.js';

type Loose = Record<string, unknown>;
const record = (v: unknown): Loose => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A non-negative finite number, else undefined (the schema names it). */
const amount = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
/** A count of 1 or more (default when absent), else undefined. */
const count = (v: unknown): number | undefined => (v === undefined ? 1 : Number.isInteger(v) && (v as number) >= 1 ? (v as number) : undefined);
/** An optional amount: 0 when absent, undefined when not a number. */
const optionalAmount = (v: unknown): number | undefined => (v === undefined || v === null ? 0 : amount(v));

/** quantity × unitAmount − discount of an item or line, in cents; null when it cannot be priced. */
function priced(path: string, raw: Loose, issues: ValidationIssue[]): { gross: number; discount: number } | null {
  issues.push(...centsIssue(`${path}.unitAmount`, amount(raw.unitAmount)), ...centsIssue(`${path}.discount`, amount(raw.discount)));
  const unit = amount(raw.unitAmount);
  const quantity = count(raw.quantity);
  const discount = optionalAmount(raw.discount);
  if (unit === undefined || quantity === undefined || discount === undefined) return null;
  const gross = quantity * toCents(unit);
  if (toCents(discount) > gross) issues.push({ path: `${path}.discount`, message: 'supera quantità × prezzo' });
  return { gross, discount: Math.min(toCents(discount), gross) };
}

/** A quote's items: their issues, and their subtotal in cents (null when one cannot be priced). */
function quoteItemIssues(items: unknown, issues: ValidationIssue[]): number | null {
  let subtotal: number | null = 0;
  list(items).forEach((raw, n) => {
    const item = record(raw);
    list(item.teeth).forEach((t, k) => {
      if (Number.isInteger(t) && !isFdiTooth(t as number)) issues.push({ path: `items.${n}.teeth.${k}`, message: 'non è un dente FDI (11-48, 51-85)' });
    });
    const p = priced(`items.${n}`, item, issues);
    subtotal = p === null || subtotal === null ? null : subtotal + p.gross - p.discount;
  });
  return subtotal;
}

/**
 * A quote's body (creation, or changes with `items`): items, the quote's discount within their
 * subtotal, and the amounts within their columns. Changes without items are judged against the
 * stored subtotal by the service.
 */
export function quoteBodyIssues(body: unknown): ValidationIssue[] {
  const b = record(body);
  const issues: ValidationIssue[] = [];
  const subtotal = b.items === undefined ? null : quoteItemIssues(b.items, issues);
  const discount = amount(b.discount);
  issues.push(...centsIssue('discount', discount));
  if (subtotal !== null) {
    issues.push(...boundIssue('items', subtotal));
    if (discount !== undefined && toCents(discount) > subtotal) issues.push({ path: 'discount', message: 'supera il totale delle voci' });
  }
  return issues;
}

/** An invoice's body: `lines` or `totalAmount`, the lines' amounts, and every total within its column. */
export function invoiceBodyIssues(body: unknown): ValidationIssue[] {
  const b = record(body);
  const issues: ValidationIssue[] = [];
  if (b.lines !== undefined && b.totalAmount !== undefined) issues.push({ path: 'totalAmount', message: 'non va insieme a lines' });
  if (b.lines === undefined && b.totalAmount === undefined) issues.push({ path: 'lines', message: 'servono lines o totalAmount' });
  issues.push(...centsIssue('totalAmount', amount(b.totalAmount)), ...centsIssue('stampDuty', amount(b.stampDuty)));
  let net: number | null = 0;
  let discounts = 0;
  let tax = 0;
  list(b.lines).forEach((raw, n) => {
    const line = record(raw);
    const rate = line.vatRate === undefined ? 0 : amount(line.vatRate);
    if (rate !== undefined && !hasCents(rate)) issues.push({ path: `lines.${n}.vatRate`, message: 'al massimo due decimali' });
    const p = priced(`lines.${n}`, line, issues);
    if (p === null || rate === undefined || net === null) {
      net = null;
      return;
    }
    net += p.gross - p.discount;
    discounts += p.discount;
    tax += vatCents(p.gross - p.discount, rate);
  });
  if (net !== null) {
    const stamp = amount(b.stampDuty) !== undefined ? toCents(amount(b.stampDuty)!) : STAMP_DUTY_CENTS;
    for (const cents of [net, discounts, tax, net + tax + stamp]) {
      const issue = boundIssue('lines', cents);
      if (issue.length > 0) return [...issues, ...issue];
    }
  }
  return issues;
}

export const PAYMENT_TARGETS = ['invoiceId', 'installmentId', 'patientId'] as const;

/** A payment's body: an amount in cents and exactly one target. */
export function paymentBodyIssues(body: unknown): ValidationIssue[] {
  const b = record(body);
  const issues = centsIssue('amount', amount(b.amount));
  const sent = PAYMENT_TARGETS.filter((t) => b[t] !== undefined);
  if (sent.length === 0) issues.push({ path: 'invoiceId', message: 'serve uno tra invoiceId, installmentId e patientId' });
  for (const extra of sent.slice(1)) issues.push({ path: extra, message: `non va insieme a ${sent[0]}` });
  return issues;
}

/** A payment plan's body: installment amounts in cents, their sum within its column. */
export function paymentPlanBodyIssues(body: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  let total: number | null = 0;
  list(record(body).installments).forEach((raw, n) => {
    const a = amount(record(raw).amount);
    issues.push(...centsIssue(`installments.${n}.amount`, a));
    total = a === undefined || total === null ? null : total + toCents(a);
  });
  if (total !== null) issues.push(...boundIssue('installments', total));
  return issues;
}
