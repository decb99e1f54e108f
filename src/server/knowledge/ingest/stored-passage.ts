/**
 * @module The passage of a section stored before the passage model, from its readable Markdown:
 * read once when the organization's index is built (an ingest stores the model itself).
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { codeBlock, type Passage, type PassageLink } from '../text/passage.js';
import { boundBlocks } from './markdown.js';
import { linksOf, passageOf, passageOfText } from './passage.js';

/**
 * The passage of a section's stored readable Markdown (`body`, then its `code`): for sections stored
 * before the passage model, read once when the index is built, and for text given to the composer
 * directly. micromark reads it in time linear in its length (`boundBlocks`).
 */
export function passageOfMarkdown(body: string, code = '', lang = '', codeLang = ''): Passage {
  let passage: Passage;
  try {
    passage = passageOf(fromMarkdown(boundBlocks(body), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }).children, { lang });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    passage = passageOfText(body, '', lang);
  }
  if (code.trim()) passage.blocks.push(codeBlock(code, codeLang));
  return passage;
}

/**
 * The links of a section's stored readable Markdown, for a passage stored before passages kept
 * their links (see text/passage.ts `Passage.links`): its links are already absolute addresses.
 */
export function linksOfMarkdown(body: string): PassageLink[] {
  try {
    return linksOf(fromMarkdown(boundBlocks(body), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }).children, undefined);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return [];
  }
}
