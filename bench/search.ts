/**
 * Patient search benchmark: `npm run bench:search [-- --n=10000,100000 --engines=pglite,postgres --queries=200]`.
 *
 * Generates N synthetic Italian patients from a fixed seed (first and last names with and
 * without accents, mobile and landline numbers, tax codes, emails) in a fresh database, then
 * runs queries with realistic errors and prints, per kind of query, recall@1, recall@5 and
 * the p50/p99 latency of the search service (searchPatients, the code behind
 * GET /v1/patients/search, without HTTP).
 *
 * A name query counts as found when the hit carries the target's name (after normalization):
 * namesakes cannot be told apart by a name, and closeMatches reports them. Phone, tax code
 * and email queries count as found only with the target patient itself (or one with the
 * same value).
 *
 * PostgreSQL is used when DATABASE_URL is set (a scratch database is created and dropped).
 */
import os from 'node:os';
import { dedicatedDatabase } from './lib/harness.js';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { backOffice } from '../src/db/tenant.js';
import { createClinic } from '../src/modules/clinics/service.js';
import { normalizeName } from '../src/modules/patients/normalize.js';
import { SEARCH_TUNING, searchPatients } from '../src/modules/patients/search.js';
import { addNameTerms, searchColumns } from '../src/modules/patients/service.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const SIZES = (args.n ?? '10000,100000').split(',').map(Number);
const ENGINES = (args.engines ?? (process.env.DATABASE_URL ? 'pglite,postgres' : 'pglite')).split(',');
const QUERIES = Number(args.queries ?? 200);
const SEED = Number(args.seed ?? 20260301);
if (args.sim) SEARCH_TUNING.similarityThreshold = Number(args.sim);
if (args.wsim) SEARCH_TUNING.wordSimilarityThreshold = Number(args.wsim);

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = `Alessandro Alessia Alberto Alice Andrea Angela Angelo Anna Antonella Antonio Arianna Aurora Beatrice Benedetta Bruno Camilla Carla Carlo
Caterina Chiara Claudia Claudio Cristian Cristina Daniele Daniela Davide Debora Diego Domenico Edoardo Elena Eleonora Elisa Emanuele Emma Enrico
Enzo Erica Fabio Federica Federico Filippo Francesca Francesco Gabriele Gabriella Giacomo Giada Gianluca Giorgia Giorgio Giovanna Giovanni Giulia
Giuliano Giuseppe Ilaria Irene Jacopo Laura Leonardo Lorenzo Luca Lucia Luciano Luigi Manuela Marco Marta Martina Massimo Matteo Mattia Maurizio
Michela Michele Mirko Monica Nadia Nicola Nicolò Niccolò Noemi Paola Paolo Pietro Raffaele Riccardo Roberta Roberto Rosa Salvatore Samuele
Sara Serena Silvia Simone Sofia Stefania Stefano Tommaso Valentina Valerio Vanessa Veronica Vincenzo Vittoria Zoe Agnese Ludovica Rebecca Gaia
Mirella Ornella Rocco Sabrina Sergio Teresa Ugo Viola Walter Yuri Lucrezia Gioele Mattèo Elia Noè Josè Thomas Denis Ivan Nicolas Achille Ettore`.split(/\s+/);

const LAST = `Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Bruno Gallo Conti De Luca Mancini Costa Giordano Rizzo Lombardi
Moretti Barbieri Fontana Santoro Mariani Rinaldi Caruso Ferrara Galli Martini Leone Longo Gentile Martinelli Vitale Lombardo Serra Coppola De Santis
D'Angelo Marchetti Parisi Villa Conte Ferraro Ferri Fabbri Bianco Marini Grasso Valentini Messina Sala De Angelis Gatti Pellegrini Palumbo Sanna
Farina Rizzi Monti Cattaneo Morelli Amato Silvestri Mazza Testa Grassi Pellegrino Carbone Giuliani Benedetti Barone Rossetti Caputo Montanari
Guerra Palmieri Bernardi Martino Fiore De Rosa Ferretti Bellini Basile Riva Donati Piras Vitali Battaglia Sartori Neri Costantini Milani Pagano
Ruggiero Sorrentino D'Amico Orlando Damico Negri Cantù Donà Pelà Marzò Zanè Forlì Brambilla Cavallo Bassi Orsini Fumagalli Sartori Pace
Santini Marchi Bonetti Tedesco Gualtieri Cirillo Bonelli Monaco Ferrero Arena Rota Fadda Mele Mariotti Piazza Giorgi Lorusso Zanetti Sala
Rocca Valenti Farina Ferro Greco Benedetto Bertolini Tosi Salvi Gatto Russo Melis Cocco Pinna Porcu Deiana Murgia Serra Usai Floris Mura
Cossu Carta Lai Sanna Manca Spano Atzeni Loi Piras Contu Fois Cabras Esposito Iannone Iacovelli Iovine Lanza Lauria Lentini Longhi Lucchesi
Maggi Magnani Maiorano Malerba Mancuso Manfredi Marras Mastrangelo Mazzoni Melillo Merlo Micheli Minelli Modica Montalto Morabito Moro
Muratori Napolitano Nardi Natale Nicoletti Nobile Notaro Olivieri Orlandi Pace Paganini Palladino Panzeri Paoletti Parodi Pastore Pavan
Pecoraro Pepe Perrone Petrucci Piccolo Pierro Pini Pirola Pisano Poli Porro Prati Puglisi Quaranta Raimondi Rampazzo Ravelli Re Redaelli
Riccardi Rinaldo Ripamonti Rizzoli Romeo Ronchi Rossini Ruggeri Rusconi Sabatini Salerno Salvadori Santucci Sarti Scala Schiavon Scotti
Sepe Simonetti Sorrentino Spinelli Stella Tamburini Tarantino Terzi Tiberi Tognoni Tonelli Torre Toscano Trevisan Turco Vaccaro Valli
Vanni Vecchi Venturi Verde Vianello Vinci Viola Zanella Zanini Zucchi Zullo Nicolò Gesù Fiorè Tosà Canò Falcò`.split(/\s+/).concat([]);

const DOMAINS = ['gmail.com', 'libero.it', 'hotmail.it', 'yahoo.it', 'outlook.com', 'alice.it', 'virgilio.it', 'tiscali.it'];
const MONTHS = 'ABCDEHLMPRST';
const LETTERS = 'abcdefghilmnoprstuvz';

interface Person { first: string; last: string; phone: string; taxCode: string; email: string; dob: string }

function makePeople(n: number, rand: () => number): Person[] {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const people: Person[] = [];
  for (let i = 0; i < n; i++) {
    const first = pick(FIRST);
    const last = rand() < 0.05 ? `${pick(LAST)} ${pick(LAST)}` : pick(LAST);
    const mobile = rand() < 0.75;
    const digits = Array.from({ length: 7 }, () => Math.floor(rand() * 10)).join('');
    const phone = mobile ? `+393${Math.floor(rand() * 10)}${Math.floor(rand() * 10)}${digits}` : `+390${1 + Math.floor(rand() * 9)}${Math.floor(rand() * 10)}${digits}`;
    const year = 1935 + Math.floor(rand() * 80);
    const month = 1 + Math.floor(rand() * 12);
    const day = 1 + Math.floor(rand() * 28);
    const cons = (s: string) => (normalizeName(s).replace(/[aeiou ]/g, '') + 'xxx').slice(0, 3).toUpperCase();
    const taxCode = `${cons(last)}${cons(first)}${String(year).slice(2)}${MONTHS[month - 1]}${String(day).padStart(2, '0')}${'ABCDEFGHILM'[Math.floor(rand() * 11)]}${String(Math.floor(rand() * 1000)).padStart(3, '0')}${String.fromCharCode(65 + Math.floor(rand() * 26))}`;
    const email = `${normalizeName(first).replace(/ /g, '')}.${normalizeName(last).replace(/ /g, '')}${i}@${pick(DOMAINS)}`;
    people.push({ first, last, phone, taxCode, email, dob: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}` });
  }
  return people;
}

// ---- query generators: each takes a person and returns a query with a realistic error ----
type Gen = (p: Person, rand: () => number) => string | null;

function editWord(word: string, rand: () => number, kind: 'sub' | 'del' | 'ins' | 'any'): string {
  const k = kind === 'any' ? (['sub', 'del', 'ins'] as const)[Math.floor(rand() * 3)]! : kind;
  if (word.length < 4) return word;
  const i = 1 + Math.floor(rand() * (word.length - 2));
  const letter = LETTERS[Math.floor(rand() * LETTERS.length)]!;
  if (k === 'sub') return word.slice(0, i) + (word[i] === letter ? 'e' : letter) + word.slice(i + 1);
  if (k === 'del') return word.slice(0, i) + word.slice(i + 1);
  return word.slice(0, i) + letter + word.slice(i);
}
function transpose(word: string, rand: () => number): string {
  if (word.length < 4) return word;
  for (let tries = 0; tries < 10; tries++) {
    const i = 1 + Math.floor(rand() * (word.length - 2));
    if (word[i] !== word[i + 1]) return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  }
  return word;
}
const stripAccents = (s: string) => s.normalize('NFD').replace(/\p{M}+/gu, '');
const oneOf = (p: Person, rand: () => number) => (rand() < 0.5 ? 'first' : 'last');

const GENERATORS: Record<string, Gen> = {
  one_typo: (p, r) => (oneOf(p, r) === 'first' ? `${editWord(p.first, r, 'any')} ${p.last}` : `${p.first} ${editWord(p.last, r, 'any')}`),
  missing_accent: (p) => (/[^\x00-\x7f]/.test(p.first + p.last) ? stripAccents(`${p.first} ${p.last}`) : null),
  doubled_consonant: (p) => {
    const name = `${p.first} ${p.last}`;
    const doubled = /([bcdfglmnprstvz])\1/i.exec(name);
    if (doubled) return name.slice(0, doubled.index) + name.slice(doubled.index + 1);
    const single = /[aeiou]([bcdfglmnprstvz])[aeiou]/i.exec(p.last);
    return single ? `${p.first} ${p.last.slice(0, single.index + 2)}${p.last.slice(single.index + 1)}` : null;
  },
  transposition: (p, r) => (oneOf(p, r) === 'first' ? `${transpose(p.first, r)} ${p.last}` : `${p.first} ${transpose(p.last, r)}`),
  swapped_with_typo: (p, r) => (oneOf(p, r) === 'first' ? `${p.last} ${editWord(p.first, r, 'any')}` : `${editWord(p.last, r, 'any')} ${p.first}`),
  two_typos: (p, r) => `${editWord(p.first, r, 'any')} ${editWord(p.last, r, 'any')}`,
  phone: (p, r) => {
    const national = p.phone.slice(3);
    const forms = [national, `+39 ${national.slice(0, 3)} ${national.slice(3)}`, `0039${national}`, `${national.slice(0, 3)}-${national.slice(3, 6)}-${national.slice(6)}`, `(${national.slice(0, 3)}) ${national.slice(3)}`];
    return forms[Math.floor(r() * forms.length)]!;
  },
  tax_code: (p, r) => (r() < 0.5 ? p.taxCode.toLowerCase() : p.taxCode.slice(0, 8).toLowerCase() + p.taxCode.slice(8)),
  email: (p, r) => (r() < 0.5 ? p.email.toUpperCase() : p.email[0]!.toUpperCase() + p.email.slice(1)),
};
const NAME_KINDS = new Set(['one_typo', 'missing_accent', 'doubled_consonant', 'transposition', 'swapped_with_typo', 'two_typos']);

async function openEngine(engine: string): Promise<{ database: Database; drop: () => Promise<void> }> {
  if (engine === 'pglite') {
    const database = await openDatabase({ databaseUrl: null, dataDir: null });
    await migrate(database);
    return { database, drop: () => database.close() };
  }
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('postgres needs DATABASE_URL');
  const dedicated = await dedicatedDatabase(base, 'dcm_bench');
  const database = await openDatabase({ databaseUrl: dedicated.url, dataDir: null });
  await migrate(database);
  return {
    database,
    drop: async () => {
      await database.close();
      await dedicated.drop();
    },
  };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function run(engine: string, n: number): Promise<void> {
  const rand = rng(SEED);
  const people = makePeople(n, rand);
  const { database, drop } = await openEngine(engine);
  const db = database.db;
  try {
    const clinic = await createClinic(db, { name: 'Bench' });
    const ids: string[] = [];
    const t0 = performance.now();
    for (let i = 0; i < people.length; i += 1000) {
      const batch = people.slice(i, i + 1000);
      const rows = await db
        .insertInto('patients')
        .values(batch.map((p) => ({
          id: crypto.randomUUID(), clinic_id: clinic.id, first_name: p.first, last_name: p.last, phone: p.phone, email: p.email,
          tax_code: p.taxCode, date_of_birth: p.dob, ...searchColumns(p.first, p.last, p.taxCode),
        })))
        .returning('id')
        .execute();
      ids.push(...rows.map((r) => r.id));
      await addNameTerms(db, clinic.id, batch.flatMap((p) => [p.first, p.last]));
    }
    await sql`ANALYZE patients`.execute(db);
    const loadSeconds = (performance.now() - t0) / 1000;
    console.log(`\n## ${engine}, N = ${n.toLocaleString('en')} (loaded in ${loadSeconds.toFixed(1)} s; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})\n`);
    console.log('| query kind | queries | skipped | recall@1 | recall@5 | p50 ms | p99 ms |');
    console.log('|---|---|---|---|---|---|---|');
    // A "misspelling" that is exactly another patient's name (Niccolò -> Nicolò) is not an
    // error any search can undo: such queries are skipped (counted in the skipped column).
    const realNames = new Set(people.flatMap((p) => [normalizeName(`${p.first} ${p.last}`), normalizeName(`${p.last} ${p.first}`)]));
    const qrand = rng(SEED + n);
    const scope = backOffice(clinic.id);
    for (const [kind, gen] of Object.entries(GENERATORS)) {
      if (args.kinds && !args.kinds.split(',').includes(kind)) continue;
      let hit1 = 0;
      let hit5 = 0;
      let count = 0;
      let skipped = 0;
      const times: number[] = [];
      for (let attempt = 0; count < QUERIES && attempt < QUERIES * 50; attempt++) {
        const index = Math.floor(qrand() * people.length);
        const person = people[index]!;
        const q = gen(person, qrand);
        if (!q || q.length < 2 || q.length > 100) continue;
        const nq = normalizeName(q);
        if (NAME_KINDS.has(kind) && realNames.has(nq) && nq !== normalizeName(`${person.first} ${person.last}`) && nq !== normalizeName(`${person.last} ${person.first}`)) {
          skipped++;
          continue;
        }
        count++;
        const start = performance.now();
        const res = await searchPatients(db, scope, 'IT', { q, limit: 5 });
        times.push(performance.now() - start);
        const targetName = normalizeName(`${person.first} ${person.last}`);
        const ok = (h: { id: string; name: string; phoneLast4: string | null }) => {
          if (h.id === ids[index]) return true;
          if (NAME_KINDS.has(kind)) return normalizeName(h.name) === targetName;
          return false;
        };
        if (res.data[0] && ok(res.data[0])) hit1++;
        else if (args.failures) console.log(`  miss ${kind}: "${q}" -> want ${person.first} ${person.last}; got ${res.data.slice(0, 3).map((h) => `${h.name} ${h.score}`).join(', ')}`);
        if (res.data.slice(0, 5).some(ok)) hit5++;
      }
      console.log(`| ${kind} | ${count} | ${skipped} | ${(hit1 / count).toFixed(3)} | ${(hit5 / count).toFixed(3)} | ${pct(times, 50).toFixed(2)} | ${pct(times, 99).toFixed(2)} |`);
    }
  } finally {
    await drop();
  }
}

const cpu = os.cpus();
console.log(`# Patient search benchmark\n\nMachine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, Node ${process.version}, ${os.platform()} ${os.release()}`);
console.log(`Seed ${SEED}, ${QUERIES} queries per kind, tuning ${JSON.stringify(SEARCH_TUNING)}, sizes ${SIZES.join(', ')}, engines ${ENGINES.join(', ')}`);
for (const engine of ENGINES) for (const n of SIZES) await run(engine, n);
