/**
 * @module kramdown's extension tags (Jekyll's Markdown): `{::comment}…{:/comment}` hides what it
 * holds, `{::nomarkdown}…{:/}` passes raw HTML on, `{::options … /}` sets a parser option. CommonMark
 * reads the tags as text, so a reply quoted `{::nomarkdown}` and `{:/}` around a table cell's list.
 *
 * A micromark text construct reads each tag as syntax (kramdown's syntax reference, "Extensions":
 * `{::` a name, attributes, then `}` or `/}`; a closing `{:/name}` or `{:/}`), and
 * `dropExtensionTags` removes the tags from the tree, with what a comment holds. A tag stays on one
 * line and its attributes hold at most `MAX_ATTRIBUTES` characters, so reading one is bounded.
 * What a `nomarkdown` tag holds is raw HTML, read as the rest of the page's HTML is.
 */
import type { Parent, Root, RootContent } from 'mdast';
import type { CompileContext, Extension as FromMarkdownExtension, Token } from 'mdast-util-from-markdown';
import type { Code, Construct, Effects, Extension, State, TokenizeContext } from 'micromark-util-types';

/** The longest attribute list a tag may hold (`{::options parse_block_html="true" /}` is 30). */
const MAX_ATTRIBUTES = 200;

const LEFT_BRACE = 123;
const RIGHT_BRACE = 125;
const COLON = 58;
const SLASH = 47;

const isLetter = (code: Code): boolean => code !== null && ((code >= 65 && code <= 90) || (code >= 97 && code <= 122));
const isNameCode = (code: Code): boolean => code !== null && ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45);
/** A line ending or the end of the input: a tag ends before either, or is text. */
const endsLine = (code: Code): boolean => code === null || code < 0 || code === 10 || code === 13;

/** One extension tag, `kramdownExtensionTag`, from its `{` to its `}`. */
function tokenizeTag(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
  let closing = false;
  let nameLength = 0;
  let attributes = 0;
  const start: State = (code) => {
    effects.enter('kramdownExtensionTag' as never);
    effects.consume(code);
    return afterBrace;
  };
  const afterBrace: State = (code) => {
    if (code !== COLON) return nok(code);
    effects.consume(code);
    return kind;
  };
  const kind: State = (code) => {
    if (code === COLON || code === SLASH) {
      closing = code === SLASH;
      effects.consume(code);
      return name;
    }
    return nok(code);
  };
  const name: State = (code) => {
    if (nameLength > 0 ? isNameCode(code) : isLetter(code)) {
      nameLength++;
      effects.consume(code);
      return name;
    }
    // `{:/}` closes whatever is open; an opening tag needs its name.
    if (code === RIGHT_BRACE && (nameLength > 0 || closing)) return end(code);
    if (closing || nameLength === 0) return nok(code);
    if (code === SLASH) return selfClosing(code);
    if (code === 32 || code === 9) return inAttributes(code);
    return nok(code);
  };
  const inAttributes: State = (code) => {
    if (endsLine(code) || attributes++ > MAX_ATTRIBUTES) return nok(code);
    if (code === RIGHT_BRACE) return end(code);
    if (code === SLASH) return selfClosing(code);
    effects.consume(code);
    return inAttributes;
  };
  const selfClosing: State = (code) => {
    effects.consume(code);
    return (next) => (next === RIGHT_BRACE ? end(next) : inAttributes(next));
  };
  const end: State = (code) => {
    effects.consume(code);
    effects.exit('kramdownExtensionTag' as never);
    return ok;
  };
  return start;
}

const TAG: Construct = { name: 'kramdownExtensionTag', tokenize: tokenizeTag, add: 'before' };

/** The micromark extension: a tag wherever text is read (a paragraph, a heading, a table cell). */
export const kramdownExtensionSyntax: Extension = { text: { [LEFT_BRACE]: TAG } };

/** A tag in the tree: the tag as written. */
interface TagNode {
  type: 'kramdownExtensionTag';
  value: string;
}

/** The mdast extension: each tag a `kramdownExtensionTag` node holding the tag as written. */
export const kramdownExtensionFromMarkdown: FromMarkdownExtension = {
  enter: {
    kramdownExtensionTag(this: CompileContext, token: Token) {
      this.enter({ type: 'kramdownExtensionTag', value: this.sliceSerialize(token) } as unknown as RootContent as never, token);
    },
  },
  exit: {
    kramdownExtensionTag(this: CompileContext, token: Token) {
      this.exit(token);
    },
  },
};

/** What a tag is: an opening one (with its name), a closing one (with its name, '' for `{:/}`), or one that closes itself. */
function tagOf(value: string): { kind: 'open' | 'close' | 'self'; name: string } {
  const closing = value.startsWith('{:/');
  const body = value.slice(3, -1);
  let nameEnd = 0;
  while (nameEnd < body.length && isNameCode(body.charCodeAt(nameEnd))) nameEnd++;
  const name = body.slice(0, nameEnd);
  if (closing) return { kind: 'close', name };
  return { kind: body.endsWith('/') ? 'self' : 'open', name };
}

const isTag = (node: RootContent | undefined): boolean => (node as { type: string } | undefined)?.type === 'kramdownExtensionTag';

/** Whether a node is blank text (what stays between tags on their lines). */
const isBlank = (node: RootContent): boolean => node.type === 'text' && node.value.trim() === '';

/** A paragraph holding tags alone (and blanks): a tag on a line of its own, as blocks are written. */
function blockTags(node: RootContent): TagNode[] | null {
  if (node.type !== 'paragraph' || !node.children.some(isTag) || !node.children.every((c) => isTag(c) || isBlank(c))) return null;
  return node.children.filter(isTag) as unknown as TagNode[];
}

/**
 * The children of one parent without extension tags: a comment's content goes with its tags, when
 * it closes in the same parent (an unclosed comment loses its tag alone: nothing is dropped on a
 * guess). A tag is a child of its own (in text) or a paragraph holding tags alone (between blocks).
 * One pass, then one more for each comment that closes, over the children after it.
 */
function withoutTags(children: RootContent[]): RootContent[] {
  // The tags each child stands for (none for content), read once.
  const tags = children.map((child) => (isTag(child) ? [child as unknown as TagNode] : blockTags(child)));
  // Where the next tag closing a comment is, from each child on (one pass from the end).
  const nextClose = new Int32Array(children.length + 1).fill(-1);
  for (let i = children.length - 1; i >= 0; i--) {
    const closes = tags[i]?.some((tag) => {
      const { kind, name } = tagOf(tag.value);
      return kind === 'close' && (name === 'comment' || name === '');
    });
    nextClose[i] = closes ? i : nextClose[i + 1]!;
  }
  const out: RootContent[] = [];
  for (let i = 0; i < children.length; i++) {
    const own = tags[i];
    if (!own) {
      out.push(children[i]!);
      continue;
    }
    const opensComment = own.some((tag) => {
      const { kind, name } = tagOf(tag.value);
      return kind === 'open' && name === 'comment';
    });
    // A comment opened and closed by one paragraph of tags (`{::comment}{:/}`) holds nothing.
    if (opensComment && nextClose[i + 1]! > i) i = nextClose[i + 1]!;
  }
  return out;
}

/**
 * The tree without kramdown's extension tags (see the module's note). Paragraphs left empty go
 * too. Walks the containers with a stack of its own: a deep page costs no recursion.
 */
export function dropExtensionTags(root: Root): void {
  const stack: Parent[] = [root];
  while (stack.length > 0) {
    const parent = stack.pop()!;
    const before = parent.children.length;
    let children = withoutTags(parent.children as RootContent[]);
    if (children.length !== before) children = children.filter((child) => child.type !== 'paragraph' || child.children.length > 0);
    parent.children = children as Parent['children'];
    for (const child of parent.children) if ('children' in child) stack.push(child as Parent);
  }
}
