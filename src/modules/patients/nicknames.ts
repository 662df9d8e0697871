/**
 * Italian hypocoristic first names: what callers say ("Pino", "Totò", "Checco") for the name
 * the clinic registered (Giuseppe, Salvatore, Francesco). The search tries a query's word
 * found here also as each registered form, and scores those hits below the registered name
 * (NICKNAME_WEIGHT), so a patient registered as "Pino" still comes before a Giuseppe.
 *
 * Where the names come from: the usual short, pet and regional forms of the most common
 * Italian first names (the hypocoristics listed by it.wikipedia.org, "Ipocoristico", and the
 * ISTAT lists of the most given names). Some are registered names too (Franco, Rita, Gianni):
 * a patient registered so still scores above one found through the table. How to add one: a line `nickname: ['registered form', …]`, lowercase, without
 * accents (queries are compared after normalizeName); test/modules/patients/search-identity.test.ts
 * checks that every key and form is normalized, and that the forms are not keys themselves.
 */
import { normalizeName } from './normalize.js';

export const NICKNAMES: Readonly<Record<string, readonly string[]>> = {
  // Men
  pino: ['giuseppe'],
  peppe: ['giuseppe'],
  peppino: ['giuseppe'],
  beppe: ['giuseppe'],
  toto: ['salvatore', 'antonio'],
  turi: ['salvatore'],
  turiddu: ['salvatore'],
  tore: ['salvatore'],
  checco: ['francesco'],
  cecco: ['francesco'],
  ciccio: ['francesco'],
  franco: ['francesco'],
  mimmo: ['domenico'],
  nico: ['domenico', 'nicola'],
  memmo: ['domenico'],
  tonino: ['antonio'],
  totonno: ['antonio'],
  nino: ['antonino', 'giovanni'],
  gianni: ['giovanni'],
  nanni: ['giovanni'],
  vanni: ['giovanni'],
  gigi: ['luigi'],
  gino: ['luigi'],
  bepi: ['giuseppe'],
  sandro: ['alessandro'],
  ale: ['alessandro', 'alessandra'],
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
  lele: ['emanuele', 'gabriele'],
  lello: ['raffaele'],
  pippo: ['filippo'],
  carletto: ['carlo'],
  // Women
  rita: ['margherita'],
  ghita: ['margherita'],
  pina: ['giuseppina'],
  peppina: ['giuseppina'],
  giusy: ['giuseppina'],
  franca: ['francesca'],
  checca: ['francesca'],
  fra: ['francesca', 'francesco'],
  mimma: ['domenica'],
  tota: ['salvatrice'],
  tina: ['concetta', 'agostina', 'giuseppina'],
  titti: ['concetta'],
  nunzia: ['annunziata'],
  nuccia: ['annunziata', 'giovanna'],
  vanna: ['giovanna'],
  gianna: ['giovanna'],
  lina: ['carolina', 'pasqualina', 'angelina'],
  tere: ['teresa'],
  sandra: ['alessandra'],
  betta: ['elisabetta'],
  lisa: ['elisabetta'],
  vale: ['valentina'],
  manu: ['emanuela'],
  cetta: ['concetta'],
};

/** A hit found through a nickname scores this much of what its registered name would. */
export const NICKNAME_WEIGHT = 0.9;
/** Variants tried per query at most: each one is a name search of its own. */
const MAX_VARIANTS = 4;

/**
 * The query's words with one nickname replaced by a registered form, for each nickname word
 * and form ("pino esposito" -> ["giuseppe", "esposito"]); none when no word is a nickname.
 */
export function nicknameVariants(words: readonly string[]): string[][] {
  const variants: string[][] = [];
  words.forEach((word, i) => {
    for (const form of NICKNAMES[word] ?? []) variants.push([...words.slice(0, i), ...form.split(' '), ...words.slice(i + 1)]);
  });
  return variants.slice(0, MAX_VARIANTS);
}

/** Every key and form as the search compares them (the table's own test). */
export const isNormalized = (name: string): boolean => normalizeName(name) === name;
