/**
 * A time an agent sends without offset is the clinic's local time. A model that hears "martedì
 * alle 9" should write `2027-03-09T09:00` and let the API find the instant, rather than convert
 * it itself (it got the offset wrong, or wrote `09:00Z`). The REST contract keeps its rule (an
 * input timestamp has `Z` or an offset: spec 2.1), so the tool layer turns such an argument into
 * the instant with the clinic's offset of that day before the operation's request.
 *
 * Clock changes: a local time the clock skips (02:30 on the spring-forward day in Europe/Rome)
 * does not exist and is refused, naming the argument; one it passes twice (02:30 on the
 * fall-back day) is the first of the two (the earlier instant, still on summer time).
 */
import type { ValidationIssue } from '../core/errors.js';
import { isTimestamp } from '../lib/formats.js';
import { localParts } from '../lib/time-zone.js';
import type { AgentTool } from './tool.js';

/** `YYYY-MM-DDTHH:MM`, optional seconds and fraction, no offset. */
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?$/;

/** What the derived input schema accepts for a date-time argument: a local time, or an instant (`Z` or an offset). */
export const LOCAL_OR_INSTANT = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})?$';

/** The time sentence of the descriptions of the tools that read or take times (`{timeZone}`: the clinic's). */
export const SAY_TIMES = 'Say times by their `label` as given; a time sent without offset is local ({timeZone}).';

export const LOCAL_TIME_NOTE = 'A time without offset is the clinic’s local time.';

const DAY_MS = 86_400_000;

/** How far `tz`'s wall clock is ahead of UTC at the instant `ms`. */
function offsetAt(ms: number, tz: string): number {
  const p = localParts(new Date(ms), tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

/** `+01:00`, `-05:00`, `+05:45`. */
function offsetText(offsetMs: number): string {
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  return `${offsetMs < 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

type LocalInstant = { ok: true; instant: string } | { ok: false; reason: 'not_a_date' | 'nonexistent' };

/**
 * A local date-time of `tz` as an instant text (the same text with the offset of that moment
 * appended: `2027-03-10T09:00` → `2027-03-10T09:00+01:00`); null when `text` is not a local
 * date-time (it has an offset already, or is no date-time at all).
 */
function localInstant(text: string, tz: string): LocalInstant | null {
  const m = LOCAL.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(m[i])) as [number, number, number, number, number];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(wall);
  if (hour > 23 || minute > 59 || second > 59 || check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return { ok: false, reason: 'not_a_date' };
  // The offsets in force a day before and a day after: a wall time reads as one of them, both
  // (a time the clock passes twice) or neither (a time the clock skips).
  const fits = [...new Set([offsetAt(wall - DAY_MS, tz), offsetAt(wall + DAY_MS, tz)])]
    .map((offset) => ({ offset, at: wall - offset }))
    .filter(({ offset, at }) => offsetAt(at, tz) === offset)
    .sort((a, b) => a.at - b.at);
  const first = fits[0];
  return first ? { ok: true, instant: `${text}${offsetText(first.offset)}` } : { ok: false, reason: 'nonexistent' };
}

/** The offset of `tz` on the winter day the schemas' examples use, as the examples write it. */
export function exampleInstant(tz: string): string {
  return `2027-03-09T09:00:00${offsetText(offsetAt(Date.UTC(2027, 2, 9, 9), tz))}`;
}

/**
 * The tool's arguments with each local date-time (`names`: the date-time arguments) turned into
 * its instant in `tz`, and the issues of those that are none: a time the clock skips, a date
 * that does not exist, a text that is no date-time (named here in words, not as a pattern).
 * `check` then judges the whole set, so that every wrong argument is named at once.
 */
export function withClinicTimes(
  tool: AgentTool,
  args: Record<string, unknown>,
  tz: string,
  names: readonly string[],
  check: (tool: AgentTool, args: Record<string, unknown>) => ValidationIssue[],
): { args: Record<string, unknown>; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  let converted = args;
  for (const name of names) {
    const value = args[name];
    if (typeof value !== 'string') continue;
    const local = localInstant(value, tz);
    if (local?.ok) converted = { ...converted, [name]: local.instant };
    else if (local?.reason === 'nonexistent')
      issues.push({
        path: name,
        message: `l’ora ${value.slice(11, 16)} del ${value.slice(0, 10)} non esiste nel fuso dello studio (${tz}): quel giorno l’orologio salta un’ora; scegli un altro orario`,
      });
    else if (local || !isTimestamp(value))
      issues.push({ path: name, message: `deve essere una data e ora, es. 2027-03-09T09:00 (ora locale dello studio, ${tz}) o ${exampleInstant(tz)}` });
  }
  const named = new Set(issues.map((i) => i.path));
  return { args: converted, issues: [...issues, ...check(tool, converted).filter((i) => !named.has(i.path))] };
}
