/**
 * The synthetic patients of the search benchmark and the query shapes real callers produce.
 * Everything comes from a seeded generator, so a seeded database can be reused between runs
 * (bench/lib/search-seed.ts) and the queries are the same every run.
 */
import { normalizeName } from '../../src/modules/patients/index.js';

export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export type Rand = () => number;

export const FIRST = `Alessandro Alessia Alberto Alice Andrea Angela Angelo Anna Antonella Antonio Arianna Aurora Beatrice Benedetta Bruno Camilla Carla Carlo
Caterina Chiara Claudia Claudio Cristian Cristina Daniele Daniela Davide Debora Diego Domenico Edoardo Elena Eleonora Elisa Emanuele Emma Enrico
Enzo Erica Fabio Federica Federico Filippo Francesca Francesco Gabriele Gabriella Giacomo Giada Gianluca Giorgia Giorgio Giovanna Giovanni Giulia
Giuliano Giuseppe Ilaria Irene Jacopo Laura Leonardo Lorenzo Luca Lucia Luciano Luigi Manuela Marco Marta Martina Massimo Matteo Mattia Maurizio
Michela Michele Mirko Monica Nadia Nicola Nicolò Niccolò Noemi Paola Paolo Pietro Raffaele Riccardo Roberta Roberto Rosa Salvatore Samuele
Sara Serena Silvia Simone Sofia Stefania Stefano Tommaso Valentina Valerio Vanessa Veronica Vincenzo Vittoria Zoe Agnese Ludovica Rebecca Gaia
Mirella Ornella Rocco Sabrina Sergio Teresa Ugo Viola Walter Yuri Lucrezia Gioele Mattèo Elia Noè Josè Thomas Denis Ivan Nicolas Achille Ettore
Agnello Gennaro Ignazio Concetta Carmela Assunta Cosimo Gianni Franco Ciro Kevin Katia Chiaretta Donatella Graziella Pasquale Patrizia Mariangela`.split(/\s+/);

/** Compound first names, as the registry writes them (two words). */
export const COMPOUND_FIRST = [
  'Maria Grazia',
  'Anna Maria',
  'Gian Marco',
  'Pier Paolo',
  'Maria Teresa',
  'Gian Luca',
  'Maria Chiara',
  'Gian Piero',
  'Anna Rita',
  'Maria Luisa',
  'Pier Luigi',
  'Maria Rosa',
];

/** Ordered roughly by frequency: the generator draws the head more often. */
export const LAST = `Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Bruno Gallo Conti De Luca Mancini Costa Giordano Rizzo Lombardi
Moretti Barbieri Fontana Santoro Mariani Rinaldi Caruso Ferrara Galli Martini Leone Longo Gentile Martinelli Vitale Lombardo Serra Coppola De Santis
D'Angelo Marchetti Parisi Villa Conte Ferraro Ferri Fabbri Bianco Marini Grasso Valentini Messina Sala De Angelis Gatti Pellegrini Palumbo Sanna
Farina Rizzi Monti Cattaneo Morelli Amato Silvestri Mazza Testa Grassi Pellegrino Carbone Giuliani Benedetti Barone Rossetti Caputo Montanari
Guerra Palmieri Bernardi Martino Fiore De Rosa Ferretti Bellini Basile Riva Donati Piras Vitali Battaglia Sartori Neri Costantini Milani Pagano
Ruggiero Sorrentino D'Amico Orlando Damico Negri Cantù Donà Pelà Marzò Zanè Forlì Brambilla Cavallo Bassi Orsini Fumagalli Pace
Santini Marchi Bonetti Tedesco Gualtieri Cirillo Bonelli Monaco Ferrero Arena Rota Fadda Mele Mariotti Piazza Giorgi Lorusso Zanetti
Rocca Valenti Ferro Benedetto Bertolini Tosi Salvi Gatto Melis Cocco Pinna Porcu Deiana Murgia Usai Floris Mura
Cossu Carta Lai Manca Spano Atzeni Loi Contu Fois Cabras Iannone Iacovelli Iovine Lanza Lauria Lentini Longhi Lucchesi
Maggi Magnani Maiorano Malerba Mancuso Manfredi Marras Mastrangelo Mazzoni Melillo Merlo Micheli Minelli Modica Montalto Morabito Moro
Muratori Napolitano Nardi Natale Nicoletti Nobile Notaro Olivieri Orlandi Paganini Palladino Panzeri Paoletti Parodi Pastore Pavan
Pecoraro Pepe Perrone Petrucci Piccolo Pierro Pini Pirola Pisano Poli Porro Prati Puglisi Quaranta Raimondi Rampazzo Ravelli Re Redaelli
Riccardi Rinaldo Ripamonti Rizzoli Romeo Ronchi Rossini Ruggeri Rusconi Sabatini Salerno Salvadori Santucci Sarti Scala Schiavon Scotti
Sepe Simonetti Spinelli Stella Tamburini Tarantino Terzi Tiberi Tognoni Tonelli Torre Toscano Trevisan Turco Vaccaro Valli
Vanni Vecchi Venturi Verde Vianello Vinci Viola Zanella Zanini Zucchi Zullo Nicolò Gesù Fiorè Tosà Canò Falcò Cicchetti Chiesa Bagnoli
Gnocchi Zappa Pozzi Mazzocchi Cappelli Sciarra Scognamiglio Lo Russo La Rosa Di Stefano Lo Bianco Della Valle Dell'Acqua D'Alessandro
Di Pietro De Simone Lo Presti La Torre Dalla Costa Del Piero Di Maio D'Onofrio Dell'Orto De Marco Lo Giudice Di Benedetto`
  .split('\n')
  .flatMap((line) => line.match(/(?:(?:De|Di|Lo|La|Della|Del|Dalla) )?[\p{L}']+/gu) ?? []);

const DOMAINS = ['gmail.com', 'libero.it', 'hotmail.it', 'yahoo.it', 'outlook.com', 'alice.it', 'virgilio.it', 'tiscali.it'];
const MONTHS = 'ABCDEHLMPRST';
const LETTERS = 'abcdefghilmnoprstuvz';

export interface Person {
  index: number;
  first: string;
  last: string;
  phone: string;
  taxCode: string;
  email: string;
  dob: string;
}

/** Index into a list ordered by frequency: the head is drawn far more often (like real surnames). */
const skewed = (rand: Rand, length: number, power: number) => Math.min(length - 1, Math.floor(length * rand() ** power));

export function makePeople(n: number, rand: Rand): Person[] {
  const people: Person[] = [];
  for (let i = 0; i < n; i++) {
    const first = rand() < 0.06 ? COMPOUND_FIRST[Math.floor(rand() * COMPOUND_FIRST.length)]! : FIRST[skewed(rand, FIRST.length, 1.3)]!;
    const last = rand() < 0.05 ? `${LAST[skewed(rand, LAST.length, 1.5)]} ${LAST[skewed(rand, LAST.length, 1.5)]}` : LAST[skewed(rand, LAST.length, 1.5)]!;
    const mobile = rand() < 0.75;
    const digits = Array.from({ length: 7 }, () => Math.floor(rand() * 10)).join('');
    const phone = mobile
      ? `+393${Math.floor(rand() * 10)}${Math.floor(rand() * 10)}${digits}`
      : `+390${1 + Math.floor(rand() * 9)}${Math.floor(rand() * 10)}${digits}`;
    const year = 1935 + Math.floor(rand() * 80);
    const month = 1 + Math.floor(rand() * 12);
    const day = 1 + Math.floor(rand() * 28);
    const cons = (s: string) => (normalizeName(s).replace(/[aeiou ]/g, '') + 'xxx').slice(0, 3).toUpperCase();
    const taxCode = `${cons(last)}${cons(first)}${String(year).slice(2)}${MONTHS[month - 1]}${String(day).padStart(2, '0')}${'ABCDEFGHILM'[Math.floor(rand() * 11)]}${String(Math.floor(rand() * 1000)).padStart(3, '0')}${String.fromCharCode(65 + Math.floor(rand() * 26))}`;
    const email = `${normalizeName(first).replace(/ /g, '')}.${normalizeName(last).replace(/ /g, '')}${i}@${DOMAINS[Math.floor(rand() * DOMAINS.length)]}`;
    people.push({ index: i, first, last, phone, taxCode, email, dob: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}` });
  }
  return people;
}

// ---- errors -----------------------------------------------------------------------------

function editWord(word: string, rand: Rand, kind: 'sub' | 'del' | 'ins' | 'any' = 'any'): string {
  const k = kind === 'any' ? (['sub', 'del', 'ins'] as const)[Math.floor(rand() * 3)]! : kind;
  if (word.length < 4) return word;
  const i = 1 + Math.floor(rand() * (word.length - 2));
  const letter = LETTERS[Math.floor(rand() * LETTERS.length)]!;
  if (k === 'sub') return word.slice(0, i) + (word[i] === letter ? 'e' : letter) + word.slice(i + 1);
  if (k === 'del') return word.slice(0, i) + word.slice(i + 1);
  return word.slice(0, i) + letter + word.slice(i);
}
function transpose(word: string, rand: Rand): string {
  if (word.length < 4) return word;
  for (let tries = 0; tries < 10; tries++) {
    const i = 1 + Math.floor(rand() * (word.length - 2));
    if (word[i] !== word[i + 1]) return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  }
  return word;
}
/** One error in the longest word of a (possibly compound) name. */
function editLongestWord(name: string, rand: Rand): string {
  const words = name.split(' ');
  const at = words.reduce((best, w, i) => (w.length > words[best]!.length ? i : best), 0);
  words[at] = editWord(words[at]!, rand);
  return words.join(' ');
}
const stripAccents = (s: string) => s.normalize('NFD').replace(/\p{M}+/gu, '');
/** A surname of two or more words (a particle, or two surnames) or with an apostrophe. */
const hasParticle = (last: string) => /[ ']/.test(last);

/**
 * What speech-to-text makes of a name it heard: the spellings an Italian name is heard as
 * (c/ch/k, gn/ni, z/ts, double and single consonants, a missing final vowel). One or two
 * of those that apply, at random.
 */
const SOUND_ALIKES: Array<(s: string) => string> = [
  (s) => s.replace(/ch/i, 'k'),
  (s) => s.replace(/c([aou])/i, 'k$1'),
  (s) => s.replace(/k/i, 'c'),
  (s) => s.replace(/gn/i, 'ni'),
  (s) => s.replace(/zz/i, 'ts'),
  (s) => s.replace(/z/i, 'ts'),
  (s) => s.replace(/([bcdfglmnprstvz])\1/i, '$1'),
  (s) => s.replace(/([aeiou])([bcdfglmnprtvz])([aeiou])/i, '$1$2$2$3'),
  (s) => s.replace(/([^aeiou ])[aeiou]$/i, '$1'),
];
function heard(name: string, rand: Rand): string | null {
  let out = name;
  const changes = 1 + Math.floor(rand() * 2);
  let done = 0;
  for (let tries = 0; done < changes && tries < 12; tries++) {
    const next = SOUND_ALIKES[Math.floor(rand() * SOUND_ALIKES.length)]!(out);
    if (next !== out) {
      out = next;
      done++;
    }
  }
  return done > 0 ? out.toLowerCase() : null;
}

// ---- query shapes -----------------------------------------------------------------------

/** What counts as found: the same person (`id`), a person with the whole name, or with the part asked for. */
export type Expect = 'id' | 'name' | 'last' | 'first' | 'lastAndYear';

export interface Shape {
  name: string;
  expect: Expect;
  /** The recall target of the issue, when it names one. */
  target?: number;
  gen: (p: Person, rand: Rand, common: string[]) => string | null;
}

export const SHAPES: Shape[] = [
  {
    name: 'one_typo',
    expect: 'name',
    target: 0.98,
    gen: (p, r) => (r() < 0.5 ? `${editLongestWord(p.first, r)} ${p.last}` : `${p.first} ${editLongestWord(p.last, r)}`),
  },
  {
    name: 'transposition',
    expect: 'name',
    target: 0.98,
    gen: (p, r) => (r() < 0.5 ? `${transpose(p.first, r)} ${p.last}` : `${p.first} ${transpose(p.last, r)}`),
  },
  { name: 'missing_accent', expect: 'name', target: 0.98, gen: (p) => (/[^\x00-\x7f]/.test(p.first + p.last) ? stripAccents(`${p.first} ${p.last}`) : null) },
  {
    name: 'doubled_consonant',
    expect: 'name',
    target: 0.98,
    gen: (p) => {
      const name = `${p.first} ${p.last}`;
      const doubled = /([bcdfglmnprstvz])\1/i.exec(name);
      if (doubled) return name.slice(0, doubled.index) + name.slice(doubled.index + 1);
      const single = /[aeiou]([bcdfglmnprstvz])[aeiou]/i.exec(p.last);
      return single ? `${p.first} ${p.last.slice(0, single.index + 2)}${p.last.slice(single.index + 1)}` : null;
    },
  },
  {
    name: 'two_errors_one_word',
    expect: 'name',
    target: 0.95,
    gen: (p, r) => {
      const inFirst = r() < 0.5;
      const word = inFirst ? p.first : p.last;
      if (word.replace(/[ ']/g, '').length < 6) return null;
      const twice = editLongestWord(editLongestWord(word, r), r);
      return inFirst ? `${twice} ${p.last}` : `${p.first} ${twice}`;
    },
  },
  { name: 'two_typos', expect: 'name', target: 0.95, gen: (p, r) => `${editLongestWord(p.first, r)} ${editLongestWord(p.last, r)}` },
  { name: 'swapped', expect: 'name', target: 0.98, gen: (p) => `${p.last} ${p.first}` },
  {
    name: 'swapped_with_typo',
    expect: 'name',
    target: 0.95,
    gen: (p, r) => (r() < 0.5 ? `${p.last} ${editLongestWord(p.first, r)}` : `${editLongestWord(p.last, r)} ${p.first}`),
  },
  {
    name: 'compound_first',
    expect: 'name',
    gen: (p, r) => {
      if (!p.first.includes(' ')) return null;
      const x = r();
      if (x < 0.4) return `${p.first} ${p.last}`;
      if (x < 0.7) return `${p.first.replace(' ', '')} ${p.last}`;
      return `${editLongestWord(p.first, r)} ${p.last}`;
    },
  },
  {
    name: 'particle_surname_alone',
    expect: 'last',
    gen: (p, r) => (hasParticle(p.last) ? [p.last, p.last.replace(/[ ']/g, ''), p.last.replace("'", ' '), p.last.toLowerCase()][Math.floor(r() * 4)]! : null),
  },
  {
    name: 'particle_surname_full',
    expect: 'name',
    gen: (p, r) => (hasParticle(p.last) ? (r() < 0.5 ? `${p.first} ${p.last}` : `${p.first} ${p.last.replace(/[ ']/g, '')}`) : null),
  },
  { name: 'surname_alone', expect: 'last', gen: (p) => (hasParticle(p.last) ? null : p.last) },
  { name: 'first_name_alone', expect: 'first', gen: (p) => p.first },
  { name: 'common_surname', expect: 'last', gen: (p, _r, common) => (common.includes(p.last) ? p.last : null) },
  { name: 'speech_to_text', expect: 'name', gen: (p, r) => heard(`${p.first} ${p.last}`, r) },
  { name: 'surname_birth_year', expect: 'lastAndYear', gen: (p) => `${p.last} ${p.dob.slice(0, 4)}` },
  {
    name: 'phone',
    expect: 'id',
    target: 1,
    gen: (p, r) => {
      const national = p.phone.slice(3);
      const forms = [
        national,
        `+39 ${national.slice(0, 3)} ${national.slice(3)}`,
        `0039${national}`,
        `${national.slice(0, 3)}-${national.slice(3, 6)}-${national.slice(6)}`,
        `(${national.slice(0, 3)}) ${national.slice(3)}`,
      ];
      return forms[Math.floor(r() * forms.length)]!;
    },
  },
  {
    name: 'tax_code',
    expect: 'id',
    target: 1,
    gen: (p, r) => (r() < 0.5 ? p.taxCode.toLowerCase() : p.taxCode.slice(0, 8).toLowerCase() + ' ' + p.taxCode.slice(8)),
  },
  { name: 'email', expect: 'id', target: 1, gen: (p, r) => (r() < 0.5 ? p.email.toUpperCase() : p.email[0]!.toUpperCase() + p.email.slice(1)) },
  // Last: a shape added later leaves the queries of the others as they were (one generator).
  {
    name: 'nickname',
    expect: 'name',
    target: 0.9,
    gen: (p, r) => {
      const said = SAID_FOR[p.first];
      if (!said) return null;
      const nick = said[Math.floor(r() * said.length)]!;
      return r() < 0.7 ? `${nick} ${p.last}` : `${p.last} ${nick}`;
    },
  },
];

/**
 * The names callers say for a first name of the corpus (what they are called by, as they say
 * it, accents included: "Totò", "Mimì"), written from usage and not from the search's table
 * (src/modules/patients/nicknames.ts), so the `nickname` shape also measures the short forms the
 * table lacks. Names that are registered names of the corpus too (Enzo, Franco, Gianni) are
 * kept: a query that is exactly another patient's name is skipped, as for every name shape.
 */
export const SAID_FOR: Readonly<Record<string, readonly string[]>> = {
  Giuseppe: ['Pino', 'Peppe', 'Peppino', 'Beppe', 'Bepi', 'Geppino'],
  Salvatore: ['Totò', 'Turi', 'Tore', 'Salvo', 'Turiddu'],
  Francesco: ['Checco', 'Ciccio', 'Franco', 'Cecco'],
  Domenico: ['Mimmo', 'Mimì', 'Memmo', 'Nico'],
  Antonio: ['Tonino', 'Totonno', 'Toni', 'Totò', 'Antò'],
  Giovanni: ['Gianni', 'Nanni', 'Vanni', 'Giannino'],
  Luigi: ['Gigi', 'Gino', 'Luigino'],
  Alessandro: ['Sandro', 'Ale'],
  Massimo: ['Max'],
  Vincenzo: ['Enzo', 'Vince', 'Cenzo'],
  Edoardo: ['Edo', 'Dado'],
  Riccardo: ['Ricky'],
  Matteo: ['Teo'],
  Federico: ['Fede', 'Chicco'],
  Emanuele: ['Lele', 'Manu'],
  Gabriele: ['Lele', 'Gabri'],
  Raffaele: ['Lello', 'Raffa'],
  Filippo: ['Pippo'],
  Roberto: ['Robi'],
  Lorenzo: ['Renzo', 'Lollo'],
  Tommaso: ['Tommy'],
  Pasquale: ['Lino', 'Pasqualino'],
  Gennaro: ['Gennarino', 'Genny'],
  Cosimo: ['Mimmo'],
  Maurizio: ['Mauri'],
  Daniele: ['Dani', 'Lele'],
  Giacomo: ['Giacomino'],
  Francesca: ['Franca', 'Checca', 'Fra', 'Franci'],
  Giovanna: ['Vanna', 'Gianna', 'Nuccia'],
  Concetta: ['Tina', 'Cetta', 'Titti', 'Concettina'],
  Valentina: ['Vale', 'Tina'],
  Federica: ['Fede'],
  Alessia: ['Ale'],
  Beatrice: ['Bea', 'Bice'],
  Eleonora: ['Ele', 'Nora', 'Lella'],
  Elena: ['Ele', 'Lena'],
  Martina: ['Marti', 'Tina'],
  Stefania: ['Stefi'],
  Veronica: ['Vero'],
  Vittoria: ['Vicky'],
  Ludovica: ['Ludo'],
  Patrizia: ['Patty'],
  Antonella: ['Anto', 'Nella'],
  Cristina: ['Cri', 'Tina'],
  Daniela: ['Dani'],
  Gabriella: ['Gabri'],
  Carmela: ['Carmen', 'Melina'],
  Teresa: ['Tere', 'Teresina'],
  Rosa: ['Rosina', 'Rosetta'],
  Assunta: ['Susi', 'Assuntina'],
  Benedetta: ['Benny', 'Betta'],
  Camilla: ['Cami'],
  Ilaria: ['Ila'],
  Giorgia: ['Giò'],
  Giorgio: ['Giò'],
  Caterina: ['Cate'],
};

/** The `count` most frequent surnames of the corpus. */
export function commonSurnames(people: Person[], count = 10): string[] {
  const freq = new Map<string, number>();
  for (const p of people) if (!p.last.includes(' ')) freq.set(p.last, (freq.get(p.last) ?? 0) + 1);
  return [...freq.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([n]) => n);
}

/** Whether a hit answers the query the way `expect` asks. */
export function isFound(expect: Expect, person: Person, hit: { id: string; name: string; birthYear: number | null }, id: string): boolean {
  if (hit.id === id) return true;
  const name = normalizeName(hit.name);
  switch (expect) {
    case 'id':
      return false;
    case 'name':
      return name === normalizeName(`${person.first} ${person.last}`);
    case 'last':
      return name.endsWith(` ${normalizeName(person.last)}`);
    case 'first':
      return name.startsWith(`${normalizeName(person.first)} `);
    case 'lastAndYear':
      return name.endsWith(` ${normalizeName(person.last)}`) && hit.birthYear === Number(person.dob.slice(0, 4));
  }
}
