/**
 * @module Icons as inline SVG, drawn in the text colour: they render where no emoji or symbol font
 * is installed (Close is ×, a Latin-1 character every font has). Paths after Feather icons (MIT).
 */
import { html } from 'lit';

const icon = (d: string, flip = false) =>
  html`<svg viewBox="0 0 24 24" width="16" height="16" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true" transform=${flip ? 'scale(1 -1)' : ''}><path d=${d}></path></svg>`;

const THUMB = 'M14 9V5a3 3 0 0 0-3-3l-4 9v11h11.28a2 2 0 0 0 2-1.7l1.38-9a2 2 0 0 0-2-2.3zM7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3';
export const thumbUp = icon(THUMB);
/** The thumb turned upside down. */
export const thumbDown = icon(THUMB, true);
