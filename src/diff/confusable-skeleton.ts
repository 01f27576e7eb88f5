import unhomoglyph from 'unhomoglyph';

/**
 * Confusable skeletons after Unicode UTS #39 (section 4): NFD, every character replaced by
 * its prototype from Unicode's confusables table, NFD again. Two strings that look alike
 * have the same skeleton. The table is the one the `unhomoglyph` package ships, generated
 * from Unicode's confusables.txt; none is written by hand here.
 */
export function skeleton(text: string): string {
  let out = '';
  for (const char of text.normalize('NFD')) {
    // The table maps single code points; one lookup each, remembered (the package's own
    // replace runs a regular expression of thousands of alternatives over the string).
    let proto = PROTOTYPES.get(char);
    if (proto === undefined) {
      proto = unhomoglyph(char);
      PROTOTYPES.set(char, proto);
    }
    out += proto;
  }
  return out.normalize('NFD');
}

const PROTOTYPES = new Map<string, string>();

/**
 * The skeleton tool names are compared by: case and `-`/`_` do not tell tools apart for a
 * reader either, and combining marks (an accent on a Latin letter) are dropped.
 */
const NAMES = new Map<string, string>();

export function nameSkeleton(name: string): string {
  let known = NAMES.get(name);
  if (known === undefined) {
    known = computeNameSkeleton(name);
    // Tool names repeat across listings; the cache stays small enough to keep whole.
    if (NAMES.size > 100_000) NAMES.clear();
    NAMES.set(name, known);
  }
  return known;
}

function computeNameSkeleton(name: string): string {
  return skeleton(name.normalize('NFKC'))
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/-/g, '_');
}

// eslint-disable-next-line no-control-regex -- ASCII is what needs no folding
const NON_ASCII = /[^\x00-\x7f]/gu;
const cache = new Map<string, string>();

/**
 * Non-ASCII letters replaced by the ASCII they imitate (Cyrillic "а", Greek "ο", Cherokee
 * "Ꭺ"…), ASCII left alone: matching text reads "ignore" in "іgnоrе", while an ASCII
 * word is not turned into its skeleton ("m" would become "rn"). A character whose
 * prototype is not ASCII stays as it is, so that Chinese or Russian words stay words.
 */
export function foldConfusables(text: string): string {
  return text.replace(NON_ASCII, (char) => {
    let folded = cache.get(char);
    if (folded === undefined) {
      const proto = skeleton(char).replace(/\p{M}+/gu, '');
      // Only an ASCII prototype is a fold.
      folded = proto !== '' && /^[\x20-\x7e]+$/.test(proto) ? proto.toLowerCase() : char;
      cache.set(char, folded);
    }
    return folded;
  });
}
