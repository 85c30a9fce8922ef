import { describe, expect, it } from 'vitest';
import { cleanTitle } from './session-title';

describe('cleanTitle: what the model wrote, made safe to show in the console and a terminal', () => {
  it('keeps the first line, without quotes, Markdown, a label or a final period', () => {
    expect(cleanTitle('"Capital of France"\nTrip planning')).toBe('Capital of France');
    expect(cleanTitle('\n\n**Title: Budget review.**')).toBe('Budget review');
    expect(cleanTitle('# Deploy   to  staging')).toBe('Deploy to staging');
  });

  it('drops control and format characters (terminal escapes, bidi overrides) and cuts long titles', () => {
    expect(cleanTitle('Red\u001b]0;owned\u0007 title\u202e')).not.toMatch(/[\u0000-\u001f\u007f\u202e]/);
    expect(cleanTitle('x'.repeat(200))).toHaveLength(60);
  });

  it('gives nothing for an answer without words', () => {
    expect(cleanTitle('  \n "" ')).toBeUndefined();
  });
});
