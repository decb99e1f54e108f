/** @module Styles of `<support-chat>`: custom properties for appearance, light and dark, phone-friendly. */
import { css } from 'lit';

/** The dark palette, for `theme="dark"`, and for `auto` when the page is dark (controllers/page-theme.ts) or, when it does not say, the system prefers dark. */
const dark = css`
  --sc-accent: var(--support-chat-accent, #a9b4ff);
  --sc-accent-text: var(--support-chat-accent-text, #10142a);
  --sc-bg: var(--support-chat-background, #171a23);
  --sc-fg: var(--support-chat-foreground, #e8eaf1);
  --sc-muted: var(--support-chat-muted, #a9b0c2);
  --sc-line: var(--support-chat-border, #343a4b);
  --sc-bubble: var(--support-chat-bubble, #222735);
  --sc-user-bubble: var(--support-chat-user-bubble, #2b3257);
  --sc-danger: var(--support-chat-danger, #ffb4ab);
  --sc-code-bg: var(--support-chat-code-background, #10131a);
  color-scheme: dark;
`;

export const styles = css`
  :host {
    --sc-accent: var(--support-chat-accent, #3246d3);
    --sc-accent-text: var(--support-chat-accent-text, #ffffff);
    --sc-bg: var(--support-chat-background, #ffffff);
    --sc-fg: var(--support-chat-foreground, #1b2030);
    --sc-muted: var(--support-chat-muted, #565f73);
    --sc-line: var(--support-chat-border, #d5d9e2);
    --sc-bubble: var(--support-chat-bubble, #f1f3f8);
    --sc-user-bubble: var(--support-chat-user-bubble, #e6e9fb);
    --sc-danger: var(--support-chat-danger, #b3261e);
    --sc-code-bg: var(--support-chat-code-background, #f4f5f8);
    --sc-radius: var(--support-chat-radius, 14px);
    --sc-font: var(--support-chat-font, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
    --sc-width: var(--support-chat-width, 400px);
    --sc-height: var(--support-chat-height, min(640px, calc(100dvh - 7rem)));
    --sc-z: var(--support-chat-z-index, 2147483000);
    color-scheme: light;
    font-family: var(--sc-font);
    font-size: 15px;
    line-height: 1.5;
    color: var(--sc-fg);
  }
  :host([theme='dark']),
  :host([theme='auto'][data-page-theme='dark']) {
    ${dark}
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme='light']):not([data-page-theme='light'])) {
      ${dark}
    }
  }
  :host([mode='inline']) {
    display: flex;
    flex-direction: column;
    height: 100%;
    min-height: 0;
    min-width: 0;
    max-inline-size: 100%;
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  [hidden] {
    display: none !important;
  }
  button,
  input,
  textarea {
    font: inherit;
    color: inherit;
  }
  :focus-visible {
    outline: 3px solid var(--sc-accent);
    outline-offset: 2px;
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    margin: -1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  .launcher {
    position: fixed;
    inset-block-end: 20px;
    inset-inline-end: 20px;
    z-index: var(--sc-z);
    inline-size: 56px;
    block-size: 56px;
    border-radius: 50%;
    border: none;
    background: var(--sc-accent);
    color: var(--sc-accent-text);
    cursor: pointer;
    box-shadow: 0 6px 24px rgb(0 0 0 / 0.25);
    display: grid;
    place-items: center;
  }
  .launcher svg {
    inline-size: 26px;
    block-size: 26px;
  }
  .panel {
    display: flex;
    flex-direction: column;
    background: var(--sc-bg);
    color: var(--sc-fg);
    min-height: 0;
    border: 1px solid var(--sc-line);
    border-radius: var(--sc-radius);
    overflow: hidden;
  }
  :host(:not([mode='inline'])) .panel {
    position: fixed;
    inset-block-end: 88px;
    inset-inline-end: 20px;
    z-index: var(--sc-z);
    inline-size: var(--sc-width);
    block-size: var(--sc-height);
    max-inline-size: calc(100vw - 40px);
    box-shadow: 0 12px 48px rgb(0 0 0 / 0.25);
  }
  :host([mode='inline']) .panel {
    flex: 1;
  }
  @media (max-width: 480px) {
    :host(:not([mode='inline'])) .panel {
      inset: 0;
      inline-size: 100vw;
      max-inline-size: 100vw;
      block-size: 100dvh;
      border-radius: 0;
      border: none;
    }
    :host(:not([mode='inline'])[open]) .launcher {
      display: none;
    }
  }
  .header {
    display: flex;
    align-items: center;
    gap: 8px;
    padding: 12px 14px;
    border-block-end: 1px solid var(--sc-line);
  }
  .header h2 {
    margin: 0;
    font-size: 16px;
    font-weight: 650;
    flex: 1;
  }
  .icon-button {
    border: 1px solid transparent;
    background: transparent;
    border-radius: 8px;
    padding: 6px 8px;
    cursor: pointer;
    color: var(--sc-muted);
    min-inline-size: 32px;
    min-block-size: 32px;
  }
  .icon-button:hover {
    background: var(--sc-bubble);
    color: var(--sc-fg);
  }
  .messages {
    position: relative;
    flex: 1;
    /* A long code line scrolls inside its block; it never widens the panel or the page around it. */
    contain: inline-size;
    overflow-y: auto;
    overscroll-behavior: contain;
    padding: 14px;
    display: flex;
    flex-direction: column;
    gap: 12px;
    min-height: 0;
  }
  .welcome {
    color: var(--sc-muted);
    display: grid;
    gap: 8px;
  }
  .welcome p {
    margin: 0;
  }
  .welcome .greeting {
    color: var(--sc-fg);
    font-size: 17px;
    font-weight: 650;
  }
  .starters {
    list-style: none;
    margin: 4px 0 0;
    padding: 0;
    display: grid;
    gap: 6px;
  }
  .starters button {
    inline-size: 100%;
    text-align: start;
    border: 1px solid var(--sc-line);
    background: var(--sc-bg);
    color: var(--sc-fg);
    border-radius: 10px;
    padding: 8px 12px;
    cursor: pointer;
  }
  .starters button:hover {
    border-color: var(--sc-accent);
  }
  .message {
    max-inline-size: 92%;
    padding: 10px 12px;
    border-radius: 12px;
    background: var(--sc-bubble);
    overflow-wrap: anywhere;
  }
  .message[data-role='user'] {
    align-self: flex-end;
    background: var(--sc-user-bubble);
  }
  /* Only the visitor's own text keeps its line breaks: the template's whitespace around it must not show. */
  .message[data-role='user'] > .content {
    white-space: pre-wrap;
  }
  .message.pending {
    border: 1px dashed var(--sc-muted);
  }
  .caption {
    margin: 4px 0 0;
    font-size: 12px;
    color: var(--sc-muted);
  }
  .message[data-role='assistant'] {
    align-self: flex-start;
  }
  .content > :first-child {
    margin-block-start: 0;
  }
  .content > :last-child {
    margin-block-end: 0;
  }
  .content p,
  .content ul,
  .content ol,
  .content blockquote,
  .content .code,
  .content .table {
    margin: 0 0 8px;
  }
  .content a,
  .sources a,
  .ticket a {
    color: var(--sc-accent);
    text-decoration: underline;
    text-underline-offset: 2px;
  }
  .sources {
    margin-block-start: 8px;
    padding-block-start: 8px;
    border-block-start: 1px solid var(--sc-line);
    font-size: 13px;
  }
  .sources-title {
    font-size: 12px;
    text-transform: uppercase;
    letter-spacing: 0.04em;
    color: var(--sc-muted);
    margin: 0 0 4px;
  }
  .sources ol {
    margin: 0;
    padding-inline-start: 24px;
  }
  .sources li {
    padding-block: 2px;
  }
  /* Related pages of a reply that found no direct answer: a plain list, set apart from an answer's sources. */
  .sources.related ul {
    margin: 0;
    padding-inline-start: 20px;
  }
  .message[data-uncertain] {
    border-inline-start: 3px solid var(--sc-muted);
  }
  .sources li::marker {
    font-variant-numeric: tabular-nums;
    color: var(--sc-muted);
  }
  /* A block link: the number lines up with the title's first line however it wraps, and each source
     is a touch target of at least 24 × 24 px (WCAG 2.2 target size). */
  .sources a {
    display: block;
    min-block-size: 24px;
    line-height: 1.4;
    padding-block: 2px;
  }
  .source-detail {
    color: var(--sc-muted);
    font-size: 12px;
  }
  .answer-actions {
    margin-block-start: 6px;
    display: flex;
    flex-wrap: wrap;
    gap: 8px;
  }
  .feedback-comment {
    flex-basis: 100%;
    display: grid;
    gap: 6px;
  }
  .feedback-comment button {
    justify-self: start;
  }
  .text-button {
    border: 1px solid transparent;
    background: transparent;
    color: var(--sc-muted);
    font-size: 13px;
    border-radius: 6px;
    padding: 2px 6px;
    min-block-size: 24px;
    cursor: pointer;
  }
  .text-button:hover,
  .text-button[aria-pressed='true'] {
    color: var(--sc-fg);
    border-color: var(--sc-line);
  }
  [data-copied] > span {
    display: none;
  }
  [data-copied]::after {
    content: attr(data-done);
  }
  .working {
    display: flex;
    align-items: center;
    gap: 8px;
    color: var(--sc-muted);
  }
  .dots {
    display: inline-flex;
    gap: 3px;
  }
  .dots span {
    inline-size: 6px;
    block-size: 6px;
    border-radius: 50%;
    background: currentColor;
    animation: blink 1.2s infinite ease-in-out;
  }
  .dots span:nth-child(2) {
    animation-delay: 0.2s;
  }
  .dots span:nth-child(3) {
    animation-delay: 0.4s;
  }
  @keyframes blink {
    0%,
    80%,
    100% {
      opacity: 0.25;
    }
    40% {
      opacity: 1;
    }
  }
  @media (prefers-reduced-motion: reduce) {
    .dots span {
      animation: none;
    }
  }
  .notice {
    margin: 0 14px 8px;
    padding: 8px 10px;
    border-radius: 8px;
    border: 1px solid var(--sc-line);
    font-size: 14px;
    display: flex;
    gap: 8px;
    align-items: center;
    justify-content: space-between;
  }
  .notice.error {
    border-color: var(--sc-danger);
    color: var(--sc-danger);
  }
  .escalation {
    padding: 0 14px 10px;
  }
  .secondary {
    border: 1px solid var(--sc-line);
    background: var(--sc-bg);
    border-radius: 999px;
    padding: 6px 14px;
    cursor: pointer;
  }
  .secondary:hover {
    border-color: var(--sc-accent);
  }
  form.escalation-form {
    display: grid;
    gap: 8px;
    padding: 12px;
    border: 1px solid var(--sc-line);
    border-radius: 10px;
  }
  form.escalation-form p {
    margin: 0;
    font-size: 14px;
  }
  .field {
    display: grid;
    gap: 2px;
  }
  label {
    font-size: 14px;
    font-weight: 600;
  }
  input,
  .field textarea {
    border: 1px solid var(--sc-muted);
    border-radius: 8px;
    padding: 8px 10px;
    background: var(--sc-bg);
    font-weight: 400;
  }
  input[aria-invalid='true'] {
    border-color: var(--sc-danger);
  }
  .field-error {
    color: var(--sc-danger);
    font-size: 13px;
    font-weight: 400;
  }
  .actions {
    display: flex;
    gap: 8px;
    justify-content: flex-end;
  }
  .primary {
    border: none;
    background: var(--sc-accent);
    color: var(--sc-accent-text);
    border-radius: 8px;
    padding: 8px 14px;
    cursor: pointer;
    font-weight: 600;
  }
  .primary:disabled {
    opacity: 0.6;
    cursor: default;
  }
  .ticket {
    padding: 10px 12px;
    border-radius: 10px;
    background: var(--sc-bubble);
    font-size: 14px;
  }
  .ticket p {
    margin: 0 0 4px;
  }
  .composer {
    display: flex;
    flex-wrap: wrap;
    gap: 8px;
    padding: 10px 14px 14px;
    border-block-start: 1px solid var(--sc-line);
    align-items: flex-end;
  }
  textarea {
    flex: 1;
    resize: none;
    border: 1px solid var(--sc-muted);
    border-radius: 10px;
    padding: 8px 10px;
    background: var(--sc-bg);
    max-block-size: 160px;
    min-block-size: 40px;
    field-sizing: content;
    min-inline-size: 0;
  }
  .composer-help {
    flex-basis: 100%;
    margin: 0;
    display: flex;
    gap: 8px;
    justify-content: space-between;
    font-size: 13px;
  }
  .counter {
    color: var(--sc-muted);
    margin-inline-start: auto;
  }
  .counter[data-over='true'] {
    color: var(--sc-danger);
    font-weight: 600;
  }
  @media (max-width: 480px), (pointer: coarse) {
    textarea,
    input {
      font-size: 16px;
    }
  }
`;
