import { describe, expect, it } from 'vitest';
import { reasonOnRiskLine, riskLine } from './risks';

describe('riskLine', () => {
  it('says Runs code once when the detail already says it', () => {
    const l = riskLine({ kind: 'interpreter', detail: 'sh is an interpreter: allowing it grants arbitrary code execution inside the sandbox' });
    expect(l).toEqual({ label: 'Runs code', text: 'sh is an interpreter: allowing it grants arbitrary code execution inside the sandbox.', fromDetail: true, extra: '' });
    const all = l.text + ' ' + l.extra;
    expect(all.match(/arbitrary code execution/g)).toHaveLength(1);
  });

  it('keeps the meaning, then a detail that adds to it', () => {
    expect(riskLine({ kind: 'sensitive', detail: '.env may hold credentials' })).toEqual({
      label: 'Sensitive',
      text: 'Touches credentials, keys or other secrets.',
      fromDetail: false,
      extra: '.env may hold credentials',
    });
  });

  it('leaves out a detail that is the card’s reason', () => {
    expect(riskLine({ kind: 'destructive', detail: 'rm -rf deletes a lot' }, 'rm -rf deletes a lot').extra).toBe('');
  });

  it('an interpreter risk without a detail says the meaning', () => {
    expect(riskLine({ kind: 'interpreter' })).toEqual({ label: 'Runs code', text: 'Allowing this grants arbitrary code execution inside the sandbox.', fromDetail: false, extra: '' });
  });

  it('a kind the UI does not know shows its detail as the sentence', () => {
    expect(riskLine({ kind: 'new-kind', detail: 'something new' })).toEqual({ label: 'new-kind', text: 'something new.', fromDetail: true, extra: '' });
  });

  it('No sandbox once when the detail says it runs outside the sandbox', () => {
    const l = riskLine({ kind: 'unconfined', detail: "it runs outside Gatehouse's sandbox, so nothing bounds what it does" });
    expect(l.fromDetail).toBe(true);
    expect(l.extra).toBe('');
  });
});

describe('reasonOnRiskLine', () => {
  const interp = { kind: 'interpreter', detail: 'sh is an interpreter: allowing it grants arbitrary code execution inside the sandbox' };
  it('is true when the Runs code line already says the reason', () => {
    expect(reasonOnRiskLine('sh is an interpreter: allowing it grants arbitrary code execution inside the sandbox', [interp])).toBe(true);
  });
  it('is true when the line says what the call does and what that means, which the reason joins', () => {
    expect(reasonOnRiskLine('sh is an interpreter: allowing it grants arbitrary code execution inside the sandbox', [{ kind: 'interpreter', detail: 'sh is an interpreter' }])).toBe(true);
  });
  it('is false for another reason, no risks, or a detail shown only as an aside', () => {
    expect(reasonOnRiskLine('sh runs inside the sandbox', [interp])).toBe(false);
    expect(reasonOnRiskLine('anything', undefined)).toBe(false);
    expect(reasonOnRiskLine('.env may hold credentials', [{ kind: 'sensitive', detail: '.env may hold credentials' }])).toBe(false);
  });
});
