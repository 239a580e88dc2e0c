import { causedBy, toNewEvent } from '../src/handle-command';

const event = { type: 'x.Happened.v1', data: {} };

describe('the mode every event carries (DECISIONS 21)', () => {
  it("is the request's when given, else the mode of the data scope the metadata names (a timer's event too)", () => {
    expect(toNewEvent(event, { metadata: { projectId: 'p1', mode: 'test' } }).metadata.mode).toBe('test');
    expect(toNewEvent(event, { metadata: { projectId: 'p1:test', actor: 'system:auto-stop' } }).metadata.mode).toBe('test');
    expect(toNewEvent(event, { metadata: { projectId: 'p1', actor: 'system:auto-stop' } }).metadata.mode).toBe('live');
    expect(toNewEvent(event, { metadata: { actor: 'system:catalog' } }).metadata.mode).toBeUndefined();
  });

  it('is test for work caused by a test-mode event or done in a test-mode scope, else live', () => {
    expect(causedBy({ id: 'e1', metadata: { mode: 'test' } }, { projectId: 'p1:test', actor: 'system:x' }).mode).toBe('test');
    expect(causedBy({ id: 'e1', metadata: {} }, { projectId: 'p1:test', actor: 'system:x' }).mode).toBe('test');
    expect(causedBy({ id: 'e1', metadata: { mode: 'live' } }, { projectId: 'p1', actor: 'system:x' }).mode).toBe('live');
  });
});
