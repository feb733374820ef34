import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../functions/shared/lossless-json.js';

describe('parseJson', () => {
  it('reads an integer past 2^53 as a bigint with its digits, everything else as JSON.parse does', () => {
    expect(parseJson('{"a":12345678901234567890,"b":-9007199254740993,"c":9007199254740991,"d":1.5,"e":1e300}')).toEqual({
      a: 12345678901234567890n,
      b: -9007199254740993n,
      c: 9007199254740991,
      d: 1.5,
      e: 1e300,
    });
  });

  it('leaves digits inside strings alone, escaped quotes included', () => {
    expect(parseJson('{"s":"12345678901234567890\\" 12345678901234567890","n":[12345678901234567890.5]}')).toEqual({
      s: '12345678901234567890" 12345678901234567890',
      n: [Number('12345678901234567890.5')],
    });
  });

  it('cannot be fooled by a string that looks like its own mark', () => {
    expect(parseJson('["\\u0000abc:1",12345678901234567890]')).toEqual(['\u0000abc:1', 12345678901234567890n]);
  });

  it('throws SyntaxError on text that is not JSON', () => {
    expect(() => parseJson('{"a":12345678901234567890')).toThrow(SyntaxError);
  });
});

describe('stringifyJson', () => {
  it('writes a bigint as its digits and reads back the same', () => {
    const text = '{"a":[12345678901234567890123,{"b":-9007199254740993}],"c":"x"}';

    expect(stringifyJson(parseJson(text))).toBe(text);
  });
});
