import { findUnstorable, isUnstorable } from '../src/hostile-input';
import type { HttpApp } from '../src';
import { call, owner, startApp } from './fixtures';

describe('strings the event store cannot hold', () => {
  it('are NUL and unpaired surrogates; paired surrogates and other controls are fine', () => {
    for (const bad of ['\u0000', 'a\u0000b', '\ud800', 'x\udbff', '\udc00', 'a\udfffb', '\udc00\ud800']) expect(isUnstorable(bad)).toBe(true);
    for (const ok of ['', 'plain', '😀', 'a\ud83d\ude00b', '\u0001\u001f\u007f', '\ufffd', 'é']) expect(isUnstorable(ok)).toBe(false);
  });

  it('are found in values and keys at any depth, with their path', () => {
    expect(findUnstorable({ a: [1, { b: 'ok' }, { c: ['x', 'y\u0000'] }] })).toEqual({ path: ['a', 2, 'c', 1], inKey: false });
    expect(findUnstorable({ tags: { 'k\ud800': 'v' } })).toEqual({ path: ['tags', 'k\ud800'], inKey: true });
    expect(findUnstorable('\u0000')).toEqual({ path: [], inKey: false });
    expect(findUnstorable({ a: 1, b: [true, null, 'ok'], '😀': '😀' })).toBeUndefined();
    expect(findUnstorable(undefined)).toBeUndefined();
  });
});

describe('control characters in name-like fields', () => {
  it('are found in names, titles, subjects and hostnames at any depth; free text keeps its newlines', () => {
    expect(findUnstorable({ name: 'a\u001b[31mb' }, true)).toEqual({ path: ['name'], inKey: false, control: true });
    expect(findUnstorable({ members: [{ displayName: 'x\ry' }] }, true)).toEqual({ path: ['members', 0, 'displayName'], inKey: false, control: true });
    for (const key of ['hostname', 'title', 'subject', 'label', 'companyName']) expect(findUnstorable({ [key]: 'a\nb' }, true)?.path).toEqual([key]);
    for (const text of ['\t', '\u007f', '\u0085']) expect(findUnstorable({ name: text }, true)?.control).toBe(true);
    expect(findUnstorable({ description: 'line 1\nline 2', body: 'a\r\nb', user_data: '#!/bin/sh\n' }, true)).toBeUndefined();
    expect(findUnstorable({ name: 'a\nb' })).toBeUndefined(); // queries and path ids: NUL and surrogates only
    expect(findUnstorable({ name: 'Zoë 😀 – ok' }, true)).toBeUndefined();
  });
});

describe('refused at the edge of every route', () => {
  let http: HttpApp;
  let url: string;
  beforeAll(async () => {
    ({ http, url } = await startApp());
  });
  afterAll(async () => http?.close());

  it('a body string: 400 BAD_REQUEST pointing at the field, flat or JSON:API', async () => {
    const flat = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { name: 'a\u0000b' } });
    expect(flat.status).toBe(400);
    expect(flat.json.errors).toEqual([{ status: '400', code: 'BAD_REQUEST', detail: expect.stringContaining('name must not contain NUL'), source: { pointer: '/name' } }]);
    const wrapped = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { data: { type: 'widgets', attributes: { name: '\ud800' } } } });
    expect(wrapped.status).toBe(400);
    expect(wrapped.json.errors[0].source).toEqual({ pointer: '/data/attributes/name' });
  });

  it('a control character in a name: 400 pointing at it, saying which characters', async () => {
    for (const name of ['\u001b[2J', 'a\r\nb', 'tab\there']) {
      const r = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { data: { type: 'widgets', attributes: { name } } } });
      expect([r.status, r.json.errors[0].code, r.json.errors[0].source]).toEqual([400, 'BAD_REQUEST', { pointer: '/data/attributes/name' }]);
      expect(r.json.errors[0].detail).toContain('control characters');
    }
  });

  it('a body key: 400 pointing at the key, even where the schema would drop it', async () => {
    const r = await call(`${url}/v1/api-keys`, { method: 'POST', headers: owner, body: { name: 'ok', 'x\u0000/y': 1 } });
    expect(r.status).toBe(400);
    expect(r.json.errors[0]).toMatchObject({ code: 'BAD_REQUEST', source: { pointer: '/x\u0000~1y' } });
  });

  it('a lone surrogate escaped in raw JSON text', async () => {
    const r = await call(`${url}/v1/api-keys`, { method: 'POST', headers: { ...owner, 'content-type': 'application/json' }, raw: '{"name":"\\udc00"}' });
    expect(r.status).toBe(400);
    expect(r.json.errors[0].source).toEqual({ pointer: '/name' });
  });

  it('a path id: 404 NOT_FOUND, before the params schema', async () => {
    for (const id of ['%00', 'w_1%00']) {
      const r = await call(`${url}/v1/widgets/${id}`, { headers: owner });
      expect([r.status, r.json.errors[0].code, r.json.errors[0].source]).toEqual([404, 'NOT_FOUND', { parameter: 'id' }]);
    }
    // An encoded lone surrogate is not even a URL: the router refuses it, in the JSON:API shape.
    const surrogate = await call(`${url}/v1/widgets/%ED%A0%80`, { headers: owner });
    expect([surrogate.status, surrogate.json.errors[0].code]).toEqual([400, 'BAD_REQUEST']);
    const del = await call(`${url}/v1/widgets/%00`, { method: 'DELETE', headers: owner });
    expect(del.status).toBe(404);
  });

  it('a query parameter or its name: 400 INVALID_QUERY naming it', async () => {
    const v = await call(`${url}/v1/widgets?color=%00`, { headers: owner });
    expect([v.status, v.json.errors[0].code, v.json.errors[0].source]).toEqual([400, 'INVALID_QUERY', { parameter: 'color' }]);
    const repeated = await call(`${url}/v1/widgets?color=red&color=%00`, { headers: owner });
    expect([repeated.status, repeated.json.errors[0].source]).toEqual([400, { parameter: 'color' }]);
    const name = await call(`${url}/v1/public/ping?a%00=1`, {});
    expect([name.status, name.json.errors[0].code, name.json.errors[0].detail]).toEqual([400, 'INVALID_QUERY', expect.stringContaining('Query parameter names')]);
  });

  it('authentication still comes first', async () => {
    const r = await call(`${url}/v1/widgets/%00`, {});
    expect(r.status).toBe(401);
  });
});
