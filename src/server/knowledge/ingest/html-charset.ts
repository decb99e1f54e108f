/**
 * @module An HTML page's bytes as text, in the encoding it declares: a byte order mark, else the
 * `charset` of its Content-Type header, else its `<meta charset>` or `<meta http-equiv>` (read by
 * parse5 from the first 1,024 bytes, as browsers prescan), else UTF-8.
 */
import { MIMEType } from 'node:util';
import { parse, type DefaultTreeAdapterMap } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];

/** Bytes browsers look through for a `<meta>` charset (the HTML standard's prescan). */
const PRESCAN_BYTES = 1_024;

/** The `charset` parameter of a MIME type, or null when there is none or the type does not parse. */
function charsetOf(mimeType: string): string | null {
  try {
    return new MIMEType(mimeType).params.get('charset');
  } catch {
    return null;
  }
}

/** A decoder for the label, or null for a label no decoder knows. UTF-16 named in a page's own bytes is read as UTF-8, as browsers do. */
function decoderFor(label: string | null, fromMeta = false): TextDecoder | null {
  if (!label) return null;
  try {
    const decoder = new TextDecoder(label.trim());
    return fromMeta && decoder.encoding.startsWith('utf-16') ? new TextDecoder('utf-8') : decoder;
  } catch {
    return null;
  }
}

/** The charset a page's `<meta>` declares in its first bytes, read by parse5. */
function metaCharset(bytes: Uint8Array): string | null {
  // Windows-1252 maps every byte to one character, so ASCII markup reads right whatever the page's encoding.
  const head = new TextDecoder('windows-1252').decode(bytes.subarray(0, PRESCAN_BYTES));
  const stack: Node[] = [parse(head)];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!('childNodes' in node)) continue;
    if (node.nodeName === 'meta') {
      const attrs = new Map((node as DefaultTreeAdapterMap['element']).attrs.map((a) => [a.name, a.value]));
      const charset = attrs.get('charset');
      if (charset) return charset;
      if (attrs.get('http-equiv')?.toLowerCase() === 'content-type') {
        const declared = charsetOf(attrs.get('content') ?? '');
        if (declared) return declared;
      }
    }
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!);
  }
  return null;
}

/** A page's bytes as text, decoded as it declares (see the module's note); unknown labels read as UTF-8. */
export function decodeHtml(bytes: Uint8Array, contentType: string): string {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 'utf-8' : bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : null;
  const decoder = decoderFor(bom) ?? decoderFor(charsetOf(contentType)) ?? decoderFor(metaCharset(bytes), true) ?? new TextDecoder('utf-8');
  return decoder.decode(bytes);
}
