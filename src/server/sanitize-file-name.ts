/**
 * A safe file name for an upload: the last path segment of what the client sent, with control characters, path
 * separators, reserved punctuation and leading dots replaced, at most 120 characters with the extension kept. The
 * result cannot name a path outside the uploads folder, a hidden file, or a Windows device name.
 */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  let cleaned = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/[<>:"|?*#%&{}$!'`@+=;,[\]^~]/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s_-]+/, '');
  if (/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i.test(cleaned)) cleaned = `_${cleaned}`;
  if (cleaned.length > 120) {
    const dot = cleaned.lastIndexOf('.');
    const extension = dot > 0 && cleaned.length - dot <= 10 ? cleaned.slice(dot) : '';
    cleaned = cleaned.slice(0, 120 - extension.length) + extension;
  }
  return cleaned.length === 0 || /^\.+$/.test(cleaned) ? 'upload.txt' : cleaned;
}
