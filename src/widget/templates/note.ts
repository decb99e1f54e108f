/** @module An optional free text of at most 2,000 characters: the escalation note and the comment of a "not helpful". */
import { html, nothing, type TemplateResult } from 'lit';
import { characterCount } from '../../protocol/index.js';
import { format, type Strings } from '../strings.js';

/**
 * Why `text` is refused (longer than `max` characters, the proxy's limit, counted in code points as
 * the server counts them: an emoji is one), or undefined when it can be sent.
 */
export function lengthError(text: string, max: number, t: Strings, lang: string): string | undefined {
  const n = (x: number) => x.toLocaleString(lang);
  const count = characterCount(text);
  return count > max ? format(t.tooLong, { count: n(count), max: n(max) }) : undefined;
}

/** The labelled field (`name`, labelled `t.note`) and, after a refusal, its error. */
export function noteField(id: string, name: string, t: Strings, error: string | undefined): TemplateResult {
  return html`<div class="field">
    <label for=${id}>${t.note}</label>
    <textarea id=${id} name=${name} rows="2" dir="auto" aria-invalid=${error ? 'true' : 'false'} aria-describedby=${error ? `${id}-error` : nothing}></textarea>
    ${error ? html`<span class="field-error" id="${id}-error" role="alert">${error}</span>` : nothing}
  </div>`;
}
