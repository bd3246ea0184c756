const escape = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string }>;
  requestBody?: { content: Record<string, unknown> };
  security?: unknown[];
}

/**
 * The human-readable API page (`/docs`): every endpoint of the OpenAPI document grouped by tag, with its parameters
 * and a curl line to `origin` (the address the page was asked at). Rendered on the server from the same document,
 * with no script and nothing loaded from elsewhere.
 */
export function renderApiPage(document: Record<string, unknown>, origin: string): string {
  const info = document['info'] as { title: string; version: string; description: string };
  const paths = document['paths'] as Record<string, Record<string, Operation>>;
  const secured = (document['security'] as unknown[]).length > 0;
  const byTag = new Map<string, string[]>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = operation.tags?.[0] ?? 'other';
      const auth = secured && !(operation.security && operation.security.length === 0) ? ` -H "Authorization: Bearer $KGRAG_API_KEY"` : '';
      const body = operation.requestBody ? ` -H 'content-type: application/json' -d '{…}'` : '';
      const curl = `curl${method === 'get' ? '' : ` -X ${method.toUpperCase()}`}${auth}${body} ${origin}${path}`;
      const parameters = (operation.parameters ?? [])
        .map((parameter) => `<li><code>${escape(parameter.name)}</code> (${parameter.in}${parameter.required ? ', required' : ''})${parameter.description ? ` — ${escape(parameter.description)}` : ''}</li>`)
        .join('');
      const entry = [
        `<section><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>`,
        `<p>${escape(operation.summary ?? '')}</p>`,
        operation.description ? `<p class="d">${escape(operation.description)}</p>` : '',
        parameters ? `<ul>${parameters}</ul>` : '',
        `<pre>${escape(curl)}</pre></section>`,
      ].join('');
      byTag.set(tag, [...(byTag.get(tag) ?? []), entry]);
    }
  }
  const sections = [...byTag].map(([tag, entries]) => `<h2 id="${escape(tag)}">${escape(tag)}</h2>${entries.join('')}`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escape(info.title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:920px;margin:2rem auto;padding:0 1rem;color:#222}code,pre{font:13px ui-monospace,monospace}pre{background:#f4f4f4;padding:.5rem;overflow:auto}section{border-top:1px solid #ddd;padding:.4rem 0}.m{display:inline-block;min-width:4.5em;font-size:12px;padding:1px 4px;border-radius:3px;color:#fff;background:#555}.get{background:#2a7}.post{background:#27a}.delete{background:#c44}.d{color:#555}</style></head>
<body><h1>${escape(info.title)} <small>${escape(info.version)}</small></h1><p>${escape(info.description)}</p><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).${secured ? ' Every endpoint except <code>/health</code> needs <code>Authorization: Bearer &lt;key&gt;</code>.' : ''}</p>${sections}</body></html>`;
}
