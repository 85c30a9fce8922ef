import { describe, expect, it } from 'vitest';
import { formatSavedRequest, parseSavedRequest } from './saved-request-file';

describe('parseSavedRequest', () => {
  it('reads a request and writes it back the same', () => {
    const text = 'method: POST\nurl: https://api.example.com/users\nheaders:\n  content-type: application/json\nbody:\n  name: Ada\nexpected_status: [200, 201]\nignore_fields: [body.id]\n';
    const parsed = parseSavedRequest('requests/create-user.yaml', text);
    expect(parsed).toEqual({ ok: true, request: { method: 'POST', url: 'https://api.example.com/users', headers: { 'content-type': 'application/json' }, body: { name: 'Ada' }, expected_status: [200, 201], ignore_fields: ['body.id'] } });
    expect(parseSavedRequest('requests/create-user.yaml', formatSavedRequest(parsed.ok ? parsed.request : (undefined as never)))).toEqual(parsed);
  });

  it('names the file and the field at fault', () => {
    const error = (text: string) => {
      const { ok: _ok, ...rest } = parseSavedRequest('requests/bad.yaml', text);
      return rest;
    };
    expect(error('method: GET\nurl: /relative\n')).toEqual({ error: { file: 'requests/bad.yaml', field: 'url', message: 'must be an absolute URL, e.g. https://api.example.com/v1/items' } });
    expect(error('method: FETCH\nurl: https://a.example\n')).toMatchObject({ error: { field: 'method' } });
    expect(error('url: https://a.example\nexpected_status: 42\n')).toMatchObject({ error: { field: 'expected_status' } });
    expect(error('url: https://a.example\nbody: {a: 1}\n')).toMatchObject({ error: { field: 'body', message: 'a GET request carries no body' } });
    expect(error('url: https://a.example\nheaders: {host: evil}\n')).toMatchObject({ error: { field: 'headers.host' } });
    expect(error('url: https://a.example\nmethdo: GET\n')).toMatchObject({ error: { field: '(file)' } });
    expect(error('url: [unclosed\n')).toMatchObject({ error: { field: '(file)', message: expect.stringMatching(/^invalid YAML/) } });
    expect(error('- a list\n')).toMatchObject({ error: { field: '(file)' } });
    expect(error('url: https://a.example/?k={{secret:ZERO_HTTP_SECRET_A}}\n')).toMatchObject({ error: { field: 'url', message: 'secrets can be referenced in header values only' } });
    expect(error('method: POST\nurl: https://a.example\nbody: {token: "{{secret:ZERO_HTTP_SECRET_A}}"}\n')).toMatchObject({ error: { field: 'body' } });
  });
});
