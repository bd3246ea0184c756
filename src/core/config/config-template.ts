import { stringify } from 'yaml';
import type { z } from 'zod';
import { configSchema } from './config-schema.js';
import { configKeys, environmentName } from './load-config.js';

/** Example values shown (commented out) for keys that have no default. */
const examples: Record<string, unknown> = {
  'llm.baseURL': 'http://localhost:11434/v1',
  'llm.apiKey': '${OPENAI_API_KEY}',
  'llm.maxOutputTokens': 4000,
  'llm.pricePerMillionTokens.input': 0.4,
  'llm.pricePerMillionTokens.output': 1.6,
  'llm.prices': { 'qwen2.5:7b': { input: 0, output: 0 } },
  'llm.headers': { 'X-Team': 'search' },
  'embeddings.baseURL': 'http://localhost:11434/v1',
  'embeddings.apiKey': '${OPENAI_API_KEY}',
  'embeddings.dimensions': 1024,
  'embeddings.maxReplyBytes': 67108864,
  'input.textField': 'text',
  'input.titleField': 'title',
  'input.idField': 'id',
  'server.apiKeys': ['${KGRAG_SERVER_KEY}'],
  'server.corsOrigins': ['https://app.example.com'],
  'extract.nlp.keepApart': ['Babbage'],
  'server.jobMemoryMb': 4096,
  'index.knn.exactUpTo': 200000,
  'store.url': 'postgres://kgrag:secret@localhost:5432/kgrag',
  'store.workspace': 'team-docs',
  plugins: [],
  methods: { basic: { variant: 'hybrid' } },
  'methods.tot.knowledgeGraphs': { wikidata: { type: 'sparql', endpoint: 'https://query.wikidata.org/sparql' } },
};

/** One line of YAML: folding a long value would break it over lines the template cannot indent. */
function yamlValue(value: unknown): string {
  return stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trim();
}

function hasDefault(key: { default: unknown }): boolean {
  const value = key.default;
  return value !== undefined && !(typeof value === 'object' && value !== null && Object.keys(value).length === 0);
}

/**
 * The commented `kgrag.yaml` written by `kgrag init`, generated from the configuration schema so
 * that it always lists every key with its default and description.
 */
export function renderConfigTemplate(schema: z.ZodType = configSchema): string {
  const lines = [
    '# kgrag configuration. Every key is optional: the values shown are the defaults.',
    '# Precedence: defaults < this file < KGRAG_* environment variables < command-line flags.',
    '# Each key also has an environment variable, e.g. llm.baseURL -> KGRAG_LLM_BASE_URL.',
    '# Secrets belong in the environment (KGRAG_LLM_API_KEY or OPENAI_API_KEY), not in this file; a value may name a',
    '# variable instead: ${NAME} is replaced by its value (an unset or empty variable is an error), $${ writes a literal ${.',
  ];
  const keys = configKeys(schema);
  // A section whose keys all lack defaults is written commented out, or it would parse as null.
  const activeSections = new Set(keys.filter(hasDefault).flatMap((key) => key.path.slice(0, -1).map((_, depth) => key.path.slice(0, depth + 1).join('.'))));
  let previous: string[] = [];
  for (const key of keys) {
    const common = previous.findIndex((part, index) => key.path[index] !== part);
    const shared = common === -1 ? Math.min(previous.length, key.path.length - 1) : common;
    for (let depth = shared; depth < key.path.length - 1; depth++) {
      if (depth === 0) lines.push('');
      const section = key.path.slice(0, depth + 1).join('.');
      lines.push(`${'  '.repeat(depth)}${activeSections.has(section) ? '' : '# '}${key.path[depth]}:`);
    }
    const indent = '  '.repeat(key.path.length - 1);
    const name = key.path[key.path.length - 1] as string;
    const dotted = key.path.join('.');
    if (key.path.length === 1) lines.push('');
    if (key.description) lines.push(`${indent}# ${key.description} [${environmentName(key.path)}]`);
    if (hasDefault(key)) {
      lines.push(`${indent}${name}: ${yamlValue(key.default)}`);
    } else {
      const example = examples[dotted];
      lines.push(`${indent}# ${name}: ${example === undefined ? '' : yamlValue(example)}`.trimEnd());
    }
    previous = key.path;
  }
  return `${lines.join('\n')}\n`;
}
