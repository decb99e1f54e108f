/**
 * @module The passage of a section stored before the passage model, from its readable Markdown:
 * read once when the organization's index is built (an ingest stores the model itself).
 */
import type { RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { codeBlock, type Passage, type PassageLink } from '../text/passage.js';
import { boundBlocks } from './markdown.js';
import { linksOf, passageOf, passageOfText } from './passage.js';

/**
 * A section's stored readable Markdown as blocks; null when micromark gives up on it (a
 * RangeError). micromark reads it in time linear in its length (`boundBlocks`).
 */
function blocksOfMarkdown(body: string): RootContent[] | null {
  try {
    return fromMarkdown(boundBlocks(body), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }).children;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return null;
  }
}

/**
 * The passage of a section's stored readable Markdown (`body`, then its `code`): for sections stored
 * before the passage model, read once when the index is built, and for text given to the composer
 * directly; read as plain paragraphs when micromark gives up on it.
 */
export function passageOfMarkdown(body: string, code = '', lang = '', codeLang = ''): Passage {
  const blocks = blocksOfMarkdown(body);
  const passage = blocks ? passageOf(blocks, { lang }) : passageOfText(body, '', lang);
  if (code.trim()) passage.blocks.push(codeBlock(code, codeLang));
  return passage;
}

/**
 * The links of a section's stored readable Markdown, for a passage stored before passages kept
 * their links (see text/passage.ts `Passage.links`): its links are already absolute addresses.
 */
export function linksOfMarkdown(body: string): PassageLink[] {
  const blocks = blocksOfMarkdown(body);
  return blocks ? linksOf(blocks, undefined) : [];
}
