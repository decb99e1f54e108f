import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../../src/server/answers/ingest/markdown.js';

const parse = (text: string) => parseMarkdown(text, { url: 'https://docs.example.com/page', fallbackTitle: 'page' });

describe('Markdown sections', () => {
  it('keeps a `# line` after a titled page’s H2 sections as text of the current section', () => {
    const page = parse(`---
title: Ticket routing
url: https://docs.example.com/routing
---

# Ticket routing

## Prompting Claude

Build the prompt like this:

# Create an instance of the client
client = Client()

## Evaluation

Measure accuracy.
`);
    expect(page.sections.map((s) => s.url)).toEqual(['https://docs.example.com/routing#prompting-claude', 'https://docs.example.com/routing#evaluation']);
    expect(page.sections[0]!.body).toContain('Create an instance of the client');
  });

  it('still cuts sections at every H1 of a page whose structure is H1 headings', () => {
    const page = parse('# One\n\nFirst.\n\n# Two\n\nSecond.\n');
    expect(page.sections.map((s) => s.title)).toEqual(['One', 'Two']);
    expect(page.title).toBe('One');
    const untitled = parse('Intro.\n\n# One\n\nFirst.\n\n# Two\n\nSecond.\n');
    expect(untitled.sections.map((s) => s.url)).toEqual(['https://docs.example.com/page', 'https://docs.example.com/page#one', 'https://docs.example.com/page#two']);
  });
});
