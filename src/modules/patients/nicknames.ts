/**
 * Italian hypocoristic first names: what callers say ("Pino", "Totò", "Checco") for the name
 * the clinic registered (Giuseppe, Salvatore, Francesco). The search tries a query's word
 * found here also as each registered form, and scores those hits below the registered name
 * (NICKNAME_WEIGHT), so a patient registered as "Pino" still comes before a Giuseppe.
 *
 * Where the names come from: the usual short, pet and regional forms of the most common
 * Italian first names (the hypocoristics listed by it.wikipedia.org, "Ipocoristico", and the
 * ISTAT lists of the most given names). Some are registered names too (Franco, Rita, Gianni):
 * a patient registered so still scores above one found through the table. A nickname of
 * several names lists the most common registered name first: it ranks first among them when
 * the clinic has as many patients of each form with the rest of the name said (nicknameWeights).
 * How to add one: a line `nickname: ['registered form', …]`, lowercase, without accents
 * ("Totò" is `toto`: queries are compared after normalizeName); at most 6 forms are tried per
 * query, all in the same reads as the words said (name-candidates.ts).
 * test/modules/patients/search-identity.test.ts checks that every key and form is normalized,
 * and that the forms are not keys themselves; `npm run bench:search -- --kinds=nickname`
 * measures how often the patient meant comes first (the patients README).
 */
import { normalizeName } from './normalize.js';

export const NICKNAMES: Readonly<Record<string, readonly string[]>> = {
  // Men
  pino: ['giuseppe'],
  peppe: ['giuseppe'],
  peppino: ['giuseppe'],
  beppe: ['giuseppe'],
  bepi: ['giuseppe'],
  geppino: ['giuseppe'],
  toto: ['salvatore', 'antonio'],
  turi: ['salvatore'],
  turiddu: ['salvatore'],
  tore: ['salvatore'],
  salvo: ['salvatore'],
  checco: ['francesco'],
  cecco: ['francesco'],
  ciccio: ['francesco'],
  franco: ['francesco'],
  chicco: ['francesco', 'federico', 'enrico'],
  mimmo: ['domenico', 'cosimo'],
  mimi: ['domenico'],
  memmo: ['domenico'],
  nico: ['domenico', 'nicola'],
  tonino: ['antonio'],
  totonno: ['antonio'],
  toni: ['antonio'],
  anto: ['antonio', 'antonella'],
  nino: ['antonino', 'giovanni'],
  gianni: ['giovanni'],
  giannino: ['giovanni'],
  nanni: ['giovanni'],
  vanni: ['giovanni'],
  gigi: ['luigi'],
  gino: ['luigi'],
  luigino: ['luigi'],
  sandro: ['alessandro'],
  ale: ['alessandro', 'alessandra', 'alessia'],
  max: ['massimo', 'massimiliano'],
  enzo: ['vincenzo'],
  vince: ['vincenzo'],
  cenzo: ['vincenzo'],
  nando: ['ferdinando'],
  dado: ['edoardo'],
  edo: ['edoardo'],
  ricky: ['riccardo'],
  teo: ['matteo'],
  fede: ['federico', 'federica'],
  lele: ['gabriele', 'emanuele', 'daniele'],
  lello: ['raffaele'],
  raffa: ['raffaele', 'raffaella'],
  pippo: ['filippo'],
  carletto: ['carlo'],
  gabri: ['gabriele', 'gabriella'],
  robi: ['roberto', 'roberta'],
  renzo: ['lorenzo'],
  lollo: ['lorenzo'],
  tommy: ['tommaso'],
  lino: ['pasquale'],
  pasqualino: ['pasquale'],
  gennarino: ['gennaro'],
  genny: ['gennaro'],
  mauri: ['maurizio'],
  dani: ['daniele', 'daniela'],
  giacomino: ['giacomo'],
  gio: ['giorgia', 'giorgio', 'giovanni'],
  // Women
  rita: ['margherita'],
  ghita: ['margherita'],
  marghe: ['margherita'],
  pina: ['giuseppina'],
  peppina: ['giuseppina'],
  giusy: ['giuseppina'],
  franca: ['francesca'],
  checca: ['francesca'],
  fra: ['francesca', 'francesco'],
  franci: ['francesca'],
  mimma: ['domenica'],
  tota: ['salvatrice'],
  tina: ['martina', 'valentina', 'cristina', 'concetta', 'giuseppina', 'agostina'],
  titti: ['concetta'],
  cetta: ['concetta'],
  concettina: ['concetta'],
  nunzia: ['annunziata'],
  nuccia: ['annunziata', 'giovanna'],
  vanna: ['giovanna'],
  gianna: ['giovanna'],
  lina: ['carolina', 'pasqualina', 'angelina'],
  tere: ['teresa'],
  teresina: ['teresa'],
  sandra: ['alessandra'],
  betta: ['elisabetta', 'benedetta'],
  lisa: ['elisabetta'],
  vale: ['valentina'],
  manu: ['emanuela', 'emanuele'],
  bea: ['beatrice'],
  bice: ['beatrice'],
  ele: ['eleonora', 'elena'],
  nora: ['eleonora'],
  lella: ['raffaella', 'eleonora', 'gabriella'],
  lena: ['elena'],
  marti: ['martina'],
  stefi: ['stefania'],
  vero: ['veronica'],
  vicky: ['vittoria'],
  ludo: ['ludovica'],
  patty: ['patrizia'],
  nella: ['antonella'],
  cri: ['cristina'],
  carmen: ['carmela'],
  melina: ['carmela'],
  rosina: ['rosa'],
  rosetta: ['rosa'],
  susi: ['assunta'],
  assuntina: ['assunta'],
  benny: ['benedetta'],
  cami: ['camilla'],
  ila: ['ilaria'],
  cate: ['caterina'],
};

/**
 * A hit found through a nickname scores this much of what its registered name would: below the
 * registered name (1), above a name one letter from the nickname ("Gianni Quaranta", 0.92, for
 * "Gianna Quaranta": the caller said Gianna), and each further form of the same nickname
 * FORM_STEP lower, so the likelier meaning comes first (nicknameWeights).
 */
const NICKNAME_WEIGHT = 0.95;
const FORM_STEP = 0.005;
/** Variants tried per query at most (their reads are shared: name-candidates.ts). */
const MAX_VARIANTS = 6;

/**
 * The table as a Map: a query's word is looked up here, never as a property of the object
 * (a caller who says "constructor" would find Object.prototype's).
 */
const FORMS: ReadonlyMap<string, readonly string[]> = new Map(Object.entries(NICKNAMES));

/** One way of reading a query's nickname: the words with the registered form, and which word it replaced. */
interface NicknameVariant {
  words: string[];
  /** The index of the nickname among the query's words. */
  word: number;
  /** The registered form read for it. */
  form: string;
}

/**
 * The query's words with one nickname replaced by a registered form, for each nickname word
 * and form in the table's order ("pino esposito" -> ["giuseppe", "esposito"]); none when no
 * word is a nickname.
 */
export function nicknameVariants(words: readonly string[]): NicknameVariant[] {
  const variants: NicknameVariant[] = [];
  words.forEach((word, i) => {
    for (const form of FORMS.get(word) ?? []) variants.push({ words: [...words.slice(0, i), ...form.split(' '), ...words.slice(i + 1)], word: i, form });
  });
  return variants.slice(0, MAX_VARIANTS);
}

/**
 * How many of the table's nicknames each registered form has (Domenico: mimmo, mimi, memmo,
 * nico; Cosimo: mimmo). Without counts of what callers say, each of a name's known short forms
 * is taken as equally likely, so a Cosimo says "Mimmo" four times as often as a Domenico does.
 */
const SHORT_FORMS = new Map<string, number>();
for (const forms of FORMS.values()) for (const form of forms) SHORT_FORMS.set(form, (SHORT_FORMS.get(form) ?? 0) + 1);

/**
 * The weight of each variant's hits. The forms of one nickname are ordered by how likely a
 * caller saying it is each form's bearer (Bayes' rule over what the clinic and the table hold):
 * how many of the clinic's patients carry the name as said with that form, at the best score
 * any of the forms reached, times how often that form's bearers say this nickname (one in as
 * many as the table lists for the form: SHORT_FORMS). "Mimmo Leone" with 3 Domenico Leone and
 * 1 Cosimo Leone: 3 × 1/4 against 1 × 1/1, the Cosimo first. Forms as likely (none found,
 * often) keep the table's order, the most common registered name first. The first form weighs
 * NICKNAME_WEIGHT, each next one FORM_STEP less.
 */
export function nicknameWeights(variants: readonly NicknameVariant[], found: ReadonlyArray<ReadonlyArray<{ score: number }>>): number[] {
  const weights = variants.map(() => NICKNAME_WEIGHT);
  const at = (score: number) => Math.round(score * 1000);
  for (const word of new Set(variants.map((v) => v.word))) {
    const forms = variants.flatMap((v, i) => (v.word === word ? [i] : []));
    const best = Math.max(0, ...forms.flatMap((i) => found[i]!.map((c) => at(c.score))));
    const likelihood = new Map(forms.map((i) => [i, found[i]!.filter((c) => at(c.score) === best).length / SHORT_FORMS.get(variants[i]!.form)!]));
    // Stable: forms as likely keep the table's order.
    forms.sort((a, b) => likelihood.get(b)! - likelihood.get(a)!).forEach((i, rank) => (weights[i] = NICKNAME_WEIGHT - FORM_STEP * rank));
  }
  return weights;
}

/** Every key and form as the search compares them (the table's own test). */
export const isNormalized = (name: string): boolean => normalizeName(name) === name;
