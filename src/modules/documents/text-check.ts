/**
 * Whether a document's bytes are plain text (issue 33, item 5), decided on every byte as they
 * stream by, never only on a head: text followed by an ELF or a ZIP is not text. Plain text is
 * UTF-8 (a BOM allowed) without control characters other than tab, line feed, form feed and
 * carriage return, and without markup: a tag of an HTML element (`<p>`, `<script …`, `</div`,
 * SVG and MathML included), a doctype, a comment, CDATA or an XML declaration. Markup declared
 * as `text/plain` is what a browser that sniffs would render as a page.
 */
import htmlTags from 'html-tags';

export type TextVerdict = 'text' | 'binary' | 'markup';

const CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f]/;
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

export class TextCheck {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private carry = '';
  private state: TextVerdict = 'text';

  add(data: Buffer): void {
    // Once not text, the rest is not read: a binary file costs one failed decode.
    if (this.state !== 'text') return;
    let chunk: string;
    try {
      chunk = this.decoder.decode(data, { stream: true });
    } catch {
      this.state = 'binary';
      return;
    }
    this.look(chunk);
  }

  /** The verdict on all the bytes added (a multi-byte character cut at the end is not text). */
  result(): TextVerdict {
    if (this.state === 'text') {
      try {
        this.look(this.decoder.decode());
      } catch {
        this.state = 'binary';
      }
    }
    return this.state;
  }

  private look(chunk: string): void {
    if (CONTROL.test(chunk)) {
      this.state = 'binary';
      return;
    }
    const window = this.carry + chunk;
    if (MARKUP.test(window)) this.state = 'markup';
    const open = window.lastIndexOf('<');
    this.carry = open >= 0 && window.length - open <= CARRY_MAX ? window.slice(open) : '';
  }
}
