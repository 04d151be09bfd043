// The one encoder of every x-svc-* header value. A header value is bytes, and
// Bun refuses (throws on) control characters and anything past U+00FF, while a
// value it accepts can still carry a raw ESC or DEL to the client. Values are
// made of client text (the model asked for, unknown parameter names) and of
// plugin text (strategy, tier, reasons), so each goes through here: printable
// ASCII is kept as it is, every other character and `%` itself become the
// percent-encoded bytes of its UTF-8 (RFC 3986 style, as in RFC 8187's
// value-chars), so `decodeURIComponent` gives the text back exactly. Lone
// surrogates become U+FFFD. Never throws.

/** The longest value a header gets; a longer one is cut (never inside an escape) and ends in `…` encoded. */
export const HEADER_VALUE_MAX = 512;
const ELLIPSIS = "%E2%80%A6";

const plain = (c: number): boolean => c >= 0x20 && c <= 0x7e && c !== 0x25;

export function headerValue(s: string, max = HEADER_VALUE_MAX): string {
  let i = 0;
  while (i < s.length && plain(s.charCodeAt(i))) i++;
  if (i === s.length) return s.length > max ? cut(s, max) : s;
  let out = s.slice(0, i);
  for (const ch of s.slice(i).toWellFormed()) out += ch.length === 1 && plain(ch.charCodeAt(0)) ? ch : encodeURIComponent(ch);
  return out.length > max ? cut(out, max) : out;
}

/** At most `max` characters, ending in an encoded ellipsis, never splitting an escape or a character's UTF-8 bytes. */
function cut(encoded: string, max: number): string {
  let end = Math.max(0, max - ELLIPSIS.length);
  const escape = encoded.lastIndexOf("%", end - 1);
  if (escape !== -1 && escape > end - 3) end = escape;
  // A UTF-8 continuation byte (%80-%BF) belongs to the character before it.
  while (end >= 3 && encoded.charCodeAt(end) === 0x25 && "89AB".includes(encoded[end + 1]!)) end -= 3;
  return encoded.slice(0, end) + ELLIPSIS;
}
