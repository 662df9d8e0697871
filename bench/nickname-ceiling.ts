/**
 * How high the nickname shape's first hit can honestly go: `npx tsx bench/nickname-ceiling.ts
 * [--n=100000] [--queries=400] [--seed=…]`, the queries of `bench/search.ts --kinds=nickname`
 * with the same options, counted on the corpus itself (no database).
 *
 * For each query whose nickname has several registered forms ("Ale Bruno"), which full name
 * comes first under three rankings of the forms:
 * - the table's order (src/modules/patients/nicknames.ts), the first form the clinic has with
 *   that surname;
 * - the clinic's namesakes: the form whose full name the most patients carry;
 * - the namesakes, each form's count divided by how many nicknames the search's table lists for
 *   that form (what the search does, nicknameWeights: the table's forms taken as equally said);
 * - an oracle that also knows how often each name's bearers say that nickname (SAID_FOR's
 *   draw: every Alessia says "Ale", half the Alessandros): the benchmark's own odds, which
 *   neither the clinic's data nor the name said tell.
 * A query counts when the name ranked first is the patient's (as bench/search.ts counts it).
 */
import { normalizeName, NICKNAMES } from '../src/modules/patients/index.js';
import { SAID_FOR, SHAPES, commonSurnames, makePeople, rng } from './lib/search-corpus.js';
import { benchArgs } from './lib/harness.js';

const args = benchArgs();
const N = Number(args.n ?? 100_000);
const QUERIES = Number(args.queries ?? 400);
const SEED = Number(args.seed ?? 20260301);

const people = makePeople(N, rng(SEED));
const shape = SHAPES.find((s) => s.name === 'nickname')!;
const fullName = (first: string, last: string) => normalizeName(`${first} ${last}`);
const namesakes = new Map<string, number>();
for (const p of people) namesakes.set(fullName(p.first, p.last), (namesakes.get(fullName(p.first, p.last)) ?? 0) + 1);
const realNames = new Set(people.flatMap((p) => [fullName(p.first, p.last), fullName(p.last, p.first)]));
// How often a registered first name's bearers say a nickname, as SAID_FOR draws it.
const saidShare = (form: string, nickname: string) => {
  const said = Object.entries(SAID_FOR).find(([first]) => normalizeName(first) === form)?.[1] ?? [];
  return said.filter((s) => normalizeName(s) === nickname).length / Math.max(1, said.length);
};

// The queries bench/search.ts makes with --kinds=nickname (the same generator, draws and skips).
const qrand = rng(SEED + N);
const common = commonSurnames(people);
const counts = { queries: 0, several: 0, table: 0, namesakes: 0, tableShare: 0, oracle: 0 };
// How many nicknames the search's table lists for each registered form.
const shortForms = new Map<string, number>();
for (const forms of Object.values(NICKNAMES)) for (const form of forms) shortForms.set(form, (shortForms.get(form) ?? 0) + 1);
for (let attempt = 0; counts.queries < QUERIES && attempt < QUERIES * 200; attempt++) {
  const person = people[Math.floor(qrand() * people.length)]!;
  const q = shape.gen(person, qrand, common);
  if (!q || q.length < 2 || q.length > 100) continue;
  const nq = normalizeName(q);
  const own = fullName(person.first, person.last);
  if (realNames.has(nq) && nq !== own && nq !== fullName(person.last, person.first)) continue;
  counts.queries++;
  const nickname = nq.split(' ').find((w) => (NICKNAMES[w]?.length ?? 0) > 1);
  if (!nickname) continue;
  counts.several++;
  const last = normalizeName(person.last);
  const forms = NICKNAMES[nickname]!;
  const bearers = forms.map((f) => namesakes.get(`${f} ${last}`) ?? 0);
  const first = (score: (i: number) => number) => forms.reduce((best, _, i) => (score(i) > score(best) ? i : best), 0);
  if (`${forms[first((i) => Number(bearers[i]! > 0))]} ${last}` === own) counts.table++;
  if (`${forms[first((i) => bearers[i]!)]} ${last}` === own) counts.namesakes++;
  if (`${forms[first((i) => bearers[i]! / shortForms.get(forms[i]!)!)]} ${last}` === own) counts.tableShare++;
  if (`${forms[first((i) => bearers[i]! * saidShare(forms[i]!, nickname))]} ${last}` === own) counts.oracle++;
}
const whole = (right: number) => ((counts.queries - counts.several + right) / counts.queries).toFixed(4);
console.log(`${counts.queries} nickname queries, ${counts.several} of a nickname of several registered names (the others: one form, first when found)`);
console.log(`| ranking of the forms | right of ${counts.several} | first hit if every other query is right |\n|---|---:|---:|`);
console.log(`| the table's order | ${counts.table} | ${whole(counts.table)} |`);
console.log(`| the clinic's namesakes of each full name | ${counts.namesakes} | ${whole(counts.namesakes)} |`);
console.log(`| namesakes / nicknames the table lists for the form (the search) | ${counts.tableShare} | ${whole(counts.tableShare)} |`);
console.log(`| oracle: namesakes × how often the name's bearers say it | ${counts.oracle} | ${whole(counts.oracle)} |`);
