/**
 * Whether a document's bytes are plain text, decided on every byte as they
 * stream by, never only on a head: text followed by an ELF or a ZIP is not text. Plain text is
 * UTF-8 (a BOM allowed) without control characters other than tab, line feed, form feed and
 * carriage return, and without markup: a tag of an HTML element (`<p>`, `<script …`, `</div`,
 * SVG and MathML included), a doctype, a comment, CDATA or an XML declaration. Markup declared
 * as `text/plain` is what a browser that sniffs would render as a page.
 */
import { isUtf8 } from 'node:buffer';
import htmlTags from 'html-tags';

export type TextVerdict = 'text' | 'binary' | 'markup';

/** Longest names first, so `<b` does not stop the alternation before `<blockquote`. */
const TAGS = [...htmlTags].sort((a, b) => b.length - a.length).join('|');
/**
 * A tag opens (`<b>`, `<br/>`, `<img src=…`, `<input disabled>`) or closes (`</div >`); a word
 * after a tag name is markup only as an attribute (followed by `=` or the tag's end), so prose such
 * as "se a<b allora b>a" stays text.
 */
const MARKUP = new RegExp(`<(?:${TAGS})(?:\\/?>|\\s+[a-z_:][\\w:.-]*\\s*(?:=|\\/?>))|<\\/(?:${TAGS})\\s*>|<!doctype|<!--|<\\?xml|<!\\[cdata\\[`, 'i');
/**
 * What one chunk hands the next, so markup split across two chunks is seen: the text from its
 * last `<` (a tag may be long), up to CARRY_MAX characters. A longer tag split across chunks may
 * go unseen; its download is still `attachment` and `nosniff`.
 */
const CARRY_MAX = 1024;

/** ASCII control bytes other than tab, line feed, form feed and carriage return (C1 controls are checked after UTF-8 validity). */
const CONTROL_BYTES = [...Array(0x20).keys()].filter((b) => ![0x09, 0x0a, 0x0c, 0x0d].includes(b)).concat(0x7f);

/** How many bytes at the end of `bytes` begin a UTF-8 character the next chunk completes (0-3). */
function cutCharacter(bytes: Buffer): number {
  for (let k = 1; k <= Math.min(3, bytes.length); k++) {
    const b = bytes[bytes.length - k]!;
    if ((b & 0xc0) === 0x80) continue;
    if (b < 0xc0) return 0;
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return length > k ? k : 0;
  }
  return 0;
}

/**
 * Works on the bytes (memchr-like searches, `isUtf8`): a chunk is decoded to a string only from
 * its first `<`, where markup could start, so text without markup costs little more than its hash.
 */
export class TextCheck {
  /** The start of a character the previous chunk cut (at most 3 bytes). */
  private partial: Buffer = Buffer.alloc(0);
  private carry = '';
  private state: TextVerdict = 'text';

  add(data: Buffer): void {
    // Once not text, the rest is not read: a binary file costs one failed check.
    if (this.state !== 'text') return;
    const bytes = this.partial.length > 0 ? Buffer.concat([this.partial, data]) : data;
    const whole = bytes.length - cutCharacter(bytes);
    this.partial = Buffer.from(bytes.subarray(whole));
    this.look(bytes.subarray(0, whole));
  }

  /** The verdict on all the bytes added (a multi-byte character cut at the end is not text). */
  result(): TextVerdict {
    if (this.state === 'text' && this.partial.length > 0) this.state = 'binary';
    return this.state;
  }

  private look(body: Buffer): void {
    if (!isUtf8(body) || CONTROL_BYTES.some((b) => body.includes(b))) {
      this.state = 'binary';
      return;
    }
    // C1 controls, U+0080-U+009F: 0xC2 then 0x80-0x9F.
    for (let i = body.indexOf(0xc2); i >= 0; i = body.indexOf(0xc2, i + 1)) {
      if (body[i + 1]! <= 0x9f) {
        this.state = 'binary';
        return;
      }
    }
    // A tag the previous chunk began, with the start of this one.
    if (this.carry && MARKUP.test(this.carry + body.toString('utf8', 0, Math.min(body.length, 4 * CARRY_MAX)))) {
      this.state = 'markup';
      return;
    }
    const first = body.indexOf(0x3c);
    this.carry = '';
    if (first < 0) return;
    const text = body.toString('utf8', first);
    if (MARKUP.test(text)) {
      this.state = 'markup';
      return;
    }
    const open = text.lastIndexOf('<');
    if (text.length - open <= CARRY_MAX) this.carry = text.slice(open);
  }
}
