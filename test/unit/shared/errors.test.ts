import { describe, expect, it } from 'vitest';
import { ApiError, describeError } from '../../../functions/shared/errors.js';
import { PaginationError } from '../../../functions/export/errors.js';

describe('error messages', () => {
  it('never carry a character a terminal would act on (C0, C1, DEL)', () => {
    const error = new PaginationError('path "a\u001b[31mb\u009b0mc\u0007d\u007fe" appeared again');
    expect(error.message).toBe('path "a[31mb0mcde" appeared again');
  });

  it('keep tabs and line breaks', () => {
    expect(new ApiError('first\tline\nsecond line', 400).message).toBe('first\tline\nsecond line');
  });

  it('are described without control characters even when the error is not ours', () => {
    expect(describeError(new Error('bell\u0007 and csi\u009b'))).toBe('Error: bell and csi');
  });
});
