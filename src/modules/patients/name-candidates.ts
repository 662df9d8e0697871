/**
 * The name search's candidates (search.ts ranks them): for one or several readings of a query
 * at once (the words as said, and each registered form of a nickname said, nicknames.ts), with
 * one vocabulary read, one more for the parts no name is near, and one patients read per step
 * for all of them together: a nickname of six forms costs the round trips of one name.
 */
import type { Db } from '../../db/transaction.js';
import type { SearchHit } from './schema.js';
import { deletionKeys, nameScore, osaDistance } from './normalize.js';
import { patientsOfNames, termsByKeys, termsWithinEdits, type NameCondition, type SearchScope } from './search-store.js';

export interface Candidate {
  id: string;
  score: number;
  matchedBy: SearchHit['matchedBy'];
  active: boolean;
}

/**
 * Tuning of the name search (bench/search.ts measures its effect): how many candidates the
 * database hands to the scorer (the most similar by trigrams) and the score below which a
 * candidate is not an answer.
 */
export const SEARCH_TUNING = {
  candidates: 200,
  minScore: 0.45,
};

export const round = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Close names kept per part, of them words of longer names, and (first, last) pairs probed per cut. */
const MAX_CLOSE_TERMS = 40;
const MAX_PARTIAL_TERMS = 8;
const MAX_NAME_PAIRS = 300;

/** Edits a part may be from a name of the vocabulary: 1 up to 4 letters, 2 up to 8, 3 beyond. */
const editLimit = (part: string) => (part.length <= 4 ? 1 : part.length <= 8 ? 2 : 3);

/**
 * How far a part is from a name of the vocabulary: the edit distance, or, when the part is
 * some of the words of a longer name ("grazia" in "maria grazia"), the distance to those
 * words plus one half (the whole name, when as close, comes first).
 */
function termDistance(part: string, term: string, limit: number): number {
  // The distance is at least the difference in length: most of the vocabulary a key lookup
  // returns for other parts is skipped without computing it.
  const within = (other: string) => Math.abs(other.length - part.length) <= limit;
  let d = within(term) ? osaDistance(part, term) : Infinity;
  const words = term.split(' ');
  const partWords = part.split(' ').length;
  if (words.length > partWords) {
    for (let i = 0; i + partWords <= words.length; i++) {
      const run = words.slice(i, i + partWords).join(' ');
      if (within(run)) d = Math.min(d, osaDistance(part, run) + 0.5);
    }
  }
  return d;
}

/** One reading of the query: its words, the whole name, and its cuts into a first and a last name. */
interface Reading {
  words: string[];
  name: string;
  splits: Array<[string, string]>;
  parts: string[];
}

function reading(words: string[]): Reading {
  const name = words.join(' ');
  const splits: Array<[string, string]> = [];
  for (let i = 1; i < words.length; i++) splits.push([words.slice(0, i).join(' '), words.slice(i).join(' ')]);
  return { words, name, splits, parts: [...new Set([name, ...splits.flat(), ...words])] };
}

/** The names kept for a part: at most one edit farther than the closest, 40 at most, few words of longer names. */
function keep(m: Map<string, number>): string[] {
  if (m.size === 0) return [];
  // Names more than one edit farther than the closest one would only lose to it in the score.
  // Words of longer names ("de" in every "de …" surname) are kept to a few.
  const best = Math.min(...m.values());
  let partial = 0;
  return [...m.entries()]
    .filter(([, d]) => d <= best + 1)
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
    .filter(([, d]) => d % 1 === 0 || ++partial <= MAX_PARTIAL_TERMS)
    .slice(0, MAX_CLOSE_TERMS)
    .map(([t]) => t);
}

/**
 * Name candidates of each reading, every step an index lookup that leads with the clinic:
 * 1. parts of the query: the whole of it, every way of cutting it into a first and a last
 *    name ("maria grazia rossi": "maria" + "grazia rossi", "maria grazia" + "rossi"), and
 *    each word;
 * 2. the names of the clinic's vocabulary close to each part: those sharing a lookup key
 *    with it (normalize.ts lookupKeys: within one edit or transposition, or a word of a
 *    longer name) or its Double Metaphone key (two edits past the limit at most); for a part
 *    that no name within one edit reaches this way (two errors in one word, speech-to-text
 *    spellings), the names of about its length within its edit limit
 *    (levenshtein_less_equal over patient_name_terms_length_idx). Kept: at most one edit
 *    farther than the closest, 40 at most;
 * 3. patients whose first and last name are close names of the two sides of a cut, in
 *    either order, or whose first or last name is a close name of the whole query (a
 *    surname alone, "de luca"; a compound first name alone), through the (clinic, first,
 *    last) and (clinic, last, first) btree indexes; when none of them scores as an answer,
 *    those whose first or last name is close to any one word.
 * No step reads more than the clinic's vocabulary and the patients with the names found. The
 * readings share each step's statement; each reading's answer is what it alone would get. The
 * first reading is the words said; the others (a nickname's registered forms) stop at step 3,
 * and the words said take their last step only when no reading found anybody by then.
 */
export async function nameCandidates(db: Db, scope: SearchScope, birthYear: number | null, readings: string[][], limit: number): Promise<Candidate[][]> {
  const plans = readings.map(reading);
  const parts = [...new Set(plans.flatMap((p) => p.parts))];
  // Which parts each deletion key stands for: a name a key reaches is measured against those parts only.
  const partsOfKey = new Map<string, string[]>();
  for (const part of parts) for (const key of deletionKeys(part)) partsOfKey.set(key, [...(partsOfKey.get(key) ?? []), part]);
  const termRows = await termsByKeys(db, scope.clinicId, parts, [...partsOfKey.keys()]);
  const scored = new Map<string, Map<string, number>>(parts.map((p) => [p, new Map()]));
  const phonetic: Array<{ part: string; term: string }> = [];
  for (const r of termRows) {
    if (r.part !== null) {
      phonetic.push({ part: r.part, term: r.term });
      continue;
    }
    for (const part of partsOfKey.get(r.key!) ?? []) {
      const m = scored.get(part)!;
      if (m.has(r.term)) continue;
      const limit = editLimit(part);
      const d = termDistance(part, r.term, limit);
      if (d <= limit) m.set(r.term, d);
    }
  }
  // Sound-alikes may be two edits past the limit ("k" for "ch" is two): Double Metaphone
  // keeps only the first sounds of a name, so "alessandro mastrangemlo" sounds like
  // "alessandro" and a sound-alike far off in spelling is not one.
  for (const { part, term } of phonetic) {
    const m = scored.get(part)!;
    const limit = editLimit(part) + 2;
    const d = m.has(term) ? limit : termDistance(part, term, limit);
    if (!m.has(term) && d <= limit) m.set(term, d);
  }
  // Parts no name within one edit reached: the names of about their length, within the
  // part's edit limit. When a cut already has both sides within one edit, only single
  // words are looked for this way (the whole query is rarely one name, and it costs a scan).
  // Which parts those are depends on the reading: the names found so are its own.
  const reached = (p: string) => Math.min(...scored.get(p)!.values()) <= 1;
  const unreached = plans.map((plan) => {
    const paired = plan.splits.some(([a, b]) => reached(a) && reached(b));
    return new Set(plan.parts.filter((p) => !reached(p) && Array.from(p).length >= 3 && (!paired || !p.includes(' '))));
  });
  const far = [...new Set(unreached.flatMap((u) => [...u]))];
  const withinEdits = new Map<string, Map<string, number>>();
  if (far.length > 0) {
    for (const r of await termsWithinEdits(db, scope.clinicId, far, far.map(editLimit))) {
      const d = osaDistance(r.part, r.term);
      if (d > editLimit(r.part)) continue;
      if (!withinEdits.has(r.part)) withinEdits.set(r.part, new Map());
      withinEdits.get(r.part)!.set(r.term, d);
    }
  }
  const closeCache = new Map<string, string[]>();
  const close = (part: string, far: boolean) => {
    const key = `${Number(far)}${part}`;
    let kept = closeCache.get(key);
    if (!kept) closeCache.set(key, (kept = keep(far ? new Map([...scored.get(part)!, ...(withinEdits.get(part) ?? [])]) : scored.get(part)!)));
    return kept;
  };

  // Each reading's steps, in order: the conditions of a step, and whether its answer is final.
  const steps = plans.map((plan, i) => {
    const near = (part: string) => close(part, unreached[i]!.has(part));
    const firstOrLast = (names: string[]): NameCondition[] => (names.length > 0 ? [{ first: names }, { last: names }] : []);
    const conditions = firstOrLast(near(plan.name));
    for (const [a, b] of plan.splits) {
      let ca = near(a);
      let cb = near(b);
      if (ca.length === 0 || cb.length === 0) continue;
      // Each pair of names is one index probe: the farthest names go first when they are too many.
      while (ca.length * cb.length > MAX_NAME_PAIRS) {
        if (ca.length >= cb.length) ca = ca.slice(0, -1);
        else cb = cb.slice(0, -1);
      }
      conditions.push({ first: ca, last: cb }, { first: cb, last: ca });
    }
    const out: Array<{ where: NameCondition[]; final: (found: Candidate[]) => boolean }> = [];
    if (plan.words.length === 1 && near(plan.name)[0] === plan.name) {
      // One word that is itself a name of the clinic ("giorgio"): each patient carrying it has
      // a nameScore of at least 0.8375 (a name alone among up to four words); a patient whose
      // name is an edit away at most 0.875 * (1 - 1/n) for a word of n letters, and fewer
      // trigrams in common with the query: a lower score. Except when the edit is a space
      // ("gian luca" for "gianluca", compared without spaces) or the word is part of a longer
      // name (distance 0.5, "giorgio" in "giorgio maria"): those are read with it. The others
      // are read only when the word's own patients do not fill the page. The page, its order and
      // closeMatches stay what reading them all gives (the same answers for 2,362 single words,
      // typos and birth years of the benchmark's corpus at limits 1, 5 and 20); a common first
      // name reads half the rows.
      const m = unreached[i]!.has(plan.name) ? new Map([...scored.get(plan.name)!, ...(withinEdits.get(plan.name) ?? [])]) : scored.get(plan.name)!;
      const own = near(plan.name).filter((t) => m.get(t)! < 1 || t.replace(/ /g, '') === plan.name);
      out.push({ where: firstOrLast(own), final: (found) => found.length >= limit });
    }
    out.push({ where: conditions, final: (found) => found.length > 0 || plan.words.length === 1 });
    // Nobody with the name as cut scores as an answer: patients with any one of its words as
    // first or last name ("signora rossi", a first name the patient is not registered with).
    // Only for the words said: another reading (a nickname's registered form) is a guess at a
    // registered name, and its words alone are the words said or a form nobody said; that step
    // reads every patient of each word, to add patients the words said already reach.
    if (i === 0) out.push({ where: plan.words.flatMap((w) => firstOrLast(near(w))), final: () => true });
    return out;
  });

  // The patients of the names found: patientsOfNames (search-store.ts) reads the best
  // `candidates` of each reading by trigram similarity, and each distinct name is scored here.
  const answers: Array<Candidate[] | null> = plans.map(() => null);
  const step = plans.map(() => 0);
  // A step without conditions finds nobody: its answer is known without a read, so a reading
  // whose words reach no name ("tina rossi": no Tina in the clinic) asks for its next step in
  // the same statement as the others' first.
  const skipEmpty = () =>
    plans.forEach((_, i) => {
      while (answers[i] === null && steps[i]![step[i]!]!.where.length === 0) {
        if (steps[i]![step[i]!]!.final([]) || step[i] === steps[i]!.length - 1) answers[i] = [];
        else step[i] = step[i]! + 1;
      }
    });
  skipEmpty();
  // The words said go on to any one word (their last step) only when no reading found a patient
  // by the name as cut: a nickname's registered form found ("melina vaccaro nardi" as Carmela
  // Vaccaro Nardi) is the name said, as "Carmela Vaccaro Nardi" would have found her alone, and
  // that step reads every patient of each word for looser matches (the patients README). So it
  // waits for the other readings' answers, and is dropped when one found somebody.
  const lastOfSaid = steps[0]!.length - 1;
  const waiting = (i: number) => i === 0 && step[0] === lastOfSaid && answers.slice(1).some((a) => a === null);
  while (answers.some((a) => a === null)) {
    if (answers[0] === null && step[0] === lastOfSaid && answers.slice(1).some((a) => (a?.length ?? 0) > 0)) {
      answers[0] = [];
      continue;
    }
    const asked = plans.flatMap((_, i) => (answers[i] === null && !waiting(i) ? [i] : []));
    const rows = await patientsOfNames(
      db,
      scope,
      birthYear,
      asked.map((i) => ({ name: plans[i]!.name, conditions: steps[i]![step[i]!]!.where })),
      SEARCH_TUNING.candidates,
    );
    const found = new Map<number, Candidate[]>(plans.map((_, i) => [i, []]));
    // Namesakes are many (a common surname alone): each distinct name is scored once.
    const scores = new Map<string, number>();
    for (const r of rows) {
      const i = asked[r.g]!;
      const key = `${i}|${r.first_norm}|${r.last_norm}`;
      let s = scores.get(key);
      if (s === undefined) scores.set(key, (s = nameScore(plans[i]!.name, r.first_norm, r.last_norm)));
      const score = round(Math.min(1, 0.9 * s + 0.1 * Number(r.trgm)));
      if (score >= SEARCH_TUNING.minScore) found.get(i)!.push({ id: r.id, score, matchedBy: 'name', active: r.is_active });
    }
    plans.forEach((_, i) => {
      if (answers[i] !== null || !asked.includes(i)) return;
      const mine = found.get(i)!;
      if (steps[i]![step[i]!]!.final(mine) || step[i] === steps[i]!.length - 1) answers[i] = mine;
      else step[i] = step[i]! + 1;
    });
    skipEmpty();
  }
  return answers as Candidate[][];
}
