import { describe, expect, it } from 'vitest';
import { MAX_FIELD_CHARS, renderTemplate } from './template';

describe('prompt templates', () => {
  const payload = { action: 'opened', pull_request: { title: 'Fix the parser', number: 7, draft: false, labels: [{ name: 'bug' }] } };

  it('fills fields, array elements and objects', () => {
    const out = renderTemplate('#{{pull_request.number}} {{ pull_request.title }} ({{pull_request.labels.0.name}}, draft {{pull_request.draft}})', payload);
    expect(out).toEqual({ text: '#7 Fix the parser (bug, draft false)', missing: [], cut: [] });
    expect(renderTemplate('{{pull_request.labels}}', payload).text).toBe('[{"name":"bug"}]');
  });

  it('marks a missing field as a visible gap and names it', () => {
    const out = renderTemplate('Review {{pull_request.title}} by {{pull_request.user.login}}; {{pull_request.user.login}}', payload);
    expect(out.text).toBe('Review Fix the parser by [missing: pull_request.user.login]; [missing: pull_request.user.login]');
    expect(out.missing).toEqual(['pull_request.user.login']);
  });

  it('does not walk into inherited properties', () => {
    expect(renderTemplate('{{constructor.name}} {{__proto__}}', {}).missing).toEqual(['constructor.name', '__proto__']);
  });

  it('cuts an oversized value with a marker', () => {
    const out = renderTemplate('{{body}}', { body: 'x'.repeat(MAX_FIELD_CHARS + 10) });
    expect(out.cut).toEqual(['body']);
    expect(out.text).toContain(`[cut: body is ${MAX_FIELD_CHARS + 10} characters]`);
  });
});
