import { describe, expect, it } from 'vitest';
import { requestIdOf, traceparentOf } from '../../shared/request-log.server.ts';

/** ADR 038: one id names a request in the back office's log, the API's log and the change history. */
describe('request ids', () => {
  const idOf = (headers: Record<string, string>) => requestIdOf({ headers }, true);

  it('takes the trace id of a valid W3C traceparent, before X-Request-Id', () => {
    expect(idOf({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'x-request-id': 'other' })).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('refuses a malformed traceparent (all-zero ids, another version, wrong lengths) and falls back', () => {
    for (const bad of [
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\nforged: yes',
    ])
      expect(idOf({ traceparent: bad, 'x-request-id': 'proxy-1' })).toBe('proxy-1');
  });

  it('takes a plain X-Request-Id, refuses one that could forge a log line, and makes a trace id otherwise', () => {
    expect(idOf({ 'x-request-id': 'abc_DEF-123' })).toBe('abc_DEF-123');
    const fresh = idOf({ 'x-request-id': 'bad id\n' });
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(idOf({})).not.toBe(fresh);
  });

  it('takes no id from a caller without the back office’s secret: the history’s request id is not theirs to pick (ADR 058)', () => {
    for (const headers of [{ 'x-request-id': 'chosen-by-me' }, { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }]) {
      const id = requestIdOf({ headers }, false);
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(id).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    }
  });

  it('carries a trace id to the API as a traceparent with a new span, and nothing else as one', () => {
    const id = '4bf92f3577b34da6a3ce929d0e0e4736';
    const header = traceparentOf(id)!;
    expect(header).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(idOf({ traceparent: header })).toBe(id);
    expect(traceparentOf('proxy-1')).toBeUndefined();
  });
});
