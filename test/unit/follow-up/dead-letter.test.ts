import { describe, expect, it } from 'vitest';
import { withRequestId } from '../../../functions/follow-up/dead-letter.js';

describe('withRequestId', () => {
  it('writes the defaulted request id into the body, so a redriven copy is the same request', () => {
    const body = JSON.stringify({ projectId: 'proj_a', jobId: 'job_1', prompt: 'Add a FAQ' });

    expect(JSON.parse(withRequestId(body, 'msg-123'))).toEqual({ projectId: 'proj_a', jobId: 'job_1', prompt: 'Add a FAQ', requestId: 'msg-123' });
  });

  it('keeps a requestId the caller chose, even an invalid one that must be fixed first', () => {
    const body = JSON.stringify({ jobId: 'job_1', prompt: 'x', requestId: 'req.1' });

    expect(withRequestId(body, 'msg-123')).toBe(body);
  });

  it('leaves a body that is not a JSON object unchanged', () => {
    expect(withRequestId('not json', 'msg-1')).toBe('not json');
    expect(withRequestId('[1,2]', 'msg-1')).toBe('[1,2]');
    expect(withRequestId('null', 'msg-1')).toBe('null');
  });
});
