/**
 * A JSON reader that keeps every integer literal exact: the clearing-member API sends int64
 * centicents, which JSON.parse would round past 2^53 (Node 20 has no reviver source text). Integer
 * literals (no fraction, no exponent) become bigint; other numbers keep their source text in a
 * JsonDecimal (this API has none, so a decoder that wants an integer rejects them); strings,
 * booleans, null, arrays and objects are as JSON.parse gives them, objects without a prototype
 * (a "__proto__" key is just a key). Syntax errors throw JsonSyntaxError with the offset. Nesting
 * is bounded (DEPTH_MAX) so a hostile body cannot overflow the stack; the caller bounds the size.
 * This file only reads text; it knows nothing of obligations.
 */

/** A non-integer number literal, kept as its text (never rounded through a float). */
export class JsonDecimal {
  constructor(readonly text: string) {}
}

export type ExactJson = null | boolean | string | bigint | JsonDecimal | ExactJson[] | { [key: string]: ExactJson };

export class JsonSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(`${message} at offset ${offset}`);
  }
}

/** Arrays and objects nested deeper than this are refused (the API nests four levels). */
export const DEPTH_MAX = 64;

export function parseExactJson(text: string): ExactJson {
  const reader = new Reader(text);
  reader.skipSpace();
  const value = reader.value(0);
  reader.skipSpace();
  if (reader.at < text.length) throw new JsonSyntaxError('unexpected text after the value', reader.at);
  return value;
}

class Reader {
  at = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    const text = this.text;
    while (this.at < text.length) {
      const code = text.charCodeAt(this.at);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return;
      this.at++;
    }
  }

  value(depth: number): ExactJson {
    if (this.at >= this.text.length) throw new JsonSyntaxError('unexpected end of text', this.at);
    const code = this.text.charCodeAt(this.at);
    if (code === 0x7b) return this.object(depth + 1); // {
    if (code === 0x5b) return this.array(depth + 1); // [
    if (code === 0x22) return this.string(); // "
    if (code === 0x2d || (code >= 0x30 && code <= 0x39)) return this.number();
    if (this.text.startsWith('true', this.at)) return this.literal(4, true);
    if (this.text.startsWith('false', this.at)) return this.literal(5, false);
    if (this.text.startsWith('null', this.at)) return this.literal(4, null);
    throw new JsonSyntaxError(`unexpected character ${JSON.stringify(this.text[this.at])}`, this.at);
  }

  literal<T>(length: number, value: T): T {
    this.at += length;
    return value;
  }

  object(depth: number): { [key: string]: ExactJson } {
    if (depth > DEPTH_MAX) throw new JsonSyntaxError(`nesting deeper than ${DEPTH_MAX}`, this.at);
    const out: { [key: string]: ExactJson } = Object.create(null);
    this.at++; // {
    this.skipSpace();
    if (this.text.charCodeAt(this.at) === 0x7d) {
      this.at++;
      return out;
    }
    for (;;) {
      if (this.text.charCodeAt(this.at) !== 0x22) throw new JsonSyntaxError('expected a string key', this.at);
      const key = this.string();
      this.skipSpace();
      if (this.text.charCodeAt(this.at) !== 0x3a) throw new JsonSyntaxError("expected ':'", this.at);
      this.at++;
      this.skipSpace();
      out[key] = this.value(depth);
      this.skipSpace();
      const next = this.text.charCodeAt(this.at);
      this.at++;
      if (next === 0x7d) return out; // }
      if (next !== 0x2c) throw new JsonSyntaxError("expected ',' or '}'", this.at - 1);
      this.skipSpace();
    }
  }

  array(depth: number): ExactJson[] {
    if (depth > DEPTH_MAX) throw new JsonSyntaxError(`nesting deeper than ${DEPTH_MAX}`, this.at);
    const out: ExactJson[] = [];
    this.at++; // [
    this.skipSpace();
    if (this.text.charCodeAt(this.at) === 0x5d) {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth));
      this.skipSpace();
      const next = this.text.charCodeAt(this.at);
      this.at++;
      if (next === 0x5d) return out; // ]
      if (next !== 0x2c) throw new JsonSyntaxError("expected ',' or ']'", this.at - 1);
      this.skipSpace();
    }
  }

  string(): string {
    const text = this.text;
    const start = this.at;
    this.at++; // opening quote
    let out = '';
    let chunkStart = this.at;
    while (this.at < text.length) {
      const code = text.charCodeAt(this.at);
      if (code === 0x22) {
        out += text.slice(chunkStart, this.at);
        this.at++;
        return out;
      }
      if (code < 0x20) throw new JsonSyntaxError('control character in a string', this.at);
      if (code !== 0x5c) {
        this.at++;
        continue;
      }
      out += text.slice(chunkStart, this.at);
      const escape = text[this.at + 1];
      this.at += 2;
      switch (escape) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const hex = text.slice(this.at, this.at + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new JsonSyntaxError('bad \\u escape', this.at - 2);
          out += String.fromCharCode(Number.parseInt(hex, 16));
          this.at += 4;
          break;
        }
        default:
          throw new JsonSyntaxError('bad escape', this.at - 2);
      }
      chunkStart = this.at;
    }
    throw new JsonSyntaxError('unterminated string', start);
  }

  number(): bigint | JsonDecimal {
    const text = this.text;
    const start = this.at;
    if (text.charCodeAt(this.at) === 0x2d) this.at++; // -
    const intStart = this.at;
    while (this.at < text.length && isDigit(text.charCodeAt(this.at))) this.at++;
    const intDigits = this.at - intStart;
    if (intDigits === 0) throw new JsonSyntaxError('expected a digit', this.at);
    if (intDigits > 1 && text.charCodeAt(intStart) === 0x30) throw new JsonSyntaxError('leading zero', intStart);
    let integer = true;
    if (text.charCodeAt(this.at) === 0x2e) { // .
      integer = false;
      this.at++;
      const fracStart = this.at;
      while (this.at < text.length && isDigit(text.charCodeAt(this.at))) this.at++;
      if (this.at === fracStart) throw new JsonSyntaxError('expected a digit after the point', this.at);
    }
    const e = text.charCodeAt(this.at);
    if (e === 0x65 || e === 0x45) { // e E
      integer = false;
      this.at++;
      const sign = text.charCodeAt(this.at);
      if (sign === 0x2b || sign === 0x2d) this.at++;
      const expStart = this.at;
      while (this.at < text.length && isDigit(text.charCodeAt(this.at))) this.at++;
      if (this.at === expStart) throw new JsonSyntaxError('expected an exponent digit', this.at);
    }
    const literal = text.slice(start, this.at);
    return integer ? BigInt(literal) : new JsonDecimal(literal);
  }
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
