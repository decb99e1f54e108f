/** @module Whether a path is there and of the kind asked: what site detection (Jekyll, Docusaurus) looks for. */
import { stat } from 'node:fs/promises';

/** Whether `path` is a file (or a folder, for `directory`); false when it is absent or unreadable. */
export async function exists(path: string, kind: 'file' | 'directory'): Promise<boolean> {
  try {
    const info = await stat(path);
    return kind === 'file' ? info.isFile() : info.isDirectory();
  } catch {
    return false;
  }
}
