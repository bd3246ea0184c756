/*
 * The longest chain of dependent requests in a mock server's log (`MockOpenAiServer`'s `onResponse`), derived from the
 * log's timing and the requests' content alone — nothing the client says about itself. llm-throughput.ts checks each
 * LLM step's own `llmCriticalPath` against it.
 *
 * Request B depends on request A when A was answered before B reached the server, and
 * - **conversation**: B's messages begin with all of A's and, right after them, an assistant message (A's reply carried
 *   on: gleaning turns, loop questions, repair turns); or
 * - **quotation**: B's prompt quotes A's reply — the whole reply (12 characters or more) verbatim, when no prompt the
 *   server had received by the time A was answered held it (a reply that repeats a template's example proves
 *   nothing); or, for a text reply, three or more of its items (its comma-, semicolon- or line-separated parts) side by
 *   side in B's prompt in the reply's order, parted only by punctuation and spaces (a keyword list passed on as an avoid
 *   list or as the input of the next pass, joined anew, some items filtered out). A reply holding JSON (fenced or in
 *   prose too) has no items: its commas part descriptions, and its strings are names and types that templates and
 *   texts list too. When several replies hold the same quoted items (an echoing refinement, two clusterings that
 *   found the same list), the passage is credited to the reply whose run covers most of it, then to the one answered
 *   last before B was sent — the reply B's client was waiting for.
 *
 * A request that came later but quotes nothing of a reply, or a wait the client kept without using the reply (a parent
 * community's report after its children's when its context did not need their reports), is not a link.
 */
import { appendAll } from '../src/core/append-all.js';
import { parseJsonLoose } from '../src/providers/llm/parse-json-loose.js';

/** One chat request as the mock server logged it. */
export interface LoggedChat {
  /** When the request reached the server and when its answer was sent (ms, one clock for the whole log). */
  receivedAt: number;
  answeredAt: number;
  messages: ReadonlyArray<{ role: string; content: string }>;
  /** The reply's content; undefined for a request that was not answered with one. */
  reply: string | undefined;
}

/** How a request on a chain depends on the one before it. */
export type ChainLink = 'conversation' | 'quotation';

/** The longest chain of a log: its requests in order (indices into the log) and the link into each after the first. */
export interface DependencyChain {
  requests: number[];
  links: ChainLink[];
}

/** Fewest items of a text reply that, side by side in a prompt, make a quotation of it. */
const minimumRun = 3;
/** Shortest whole reply that, found verbatim in a later prompt, makes a quotation of it. */
const minimumWholeReply = 12;

/** A quoted passage of B's prompt: where it is and which reply it is credited to. */
interface QuotedRun {
  start: number;
  end: number;
  items: number;
  source: number;
}

/**
 * The parts of a text reply, trimmed, without a closing full stop, each once; none for a reply that holds a JSON object
 * or array (read as the client reads it: fences and prose around it allowed), whose commas part descriptions, not items.
 */
function replyItems(reply: string): string[] {
  const trimmed = reply.trim();
  const json = parseJsonLoose(trimmed);
  if (json.ok && typeof json.value === 'object' && json.value !== null) return [];
  const items: string[] = [];
  for (const part of trimmed.split(/[,;\n]/)) {
    const item = part.trim().replace(/\.$/, '').trim();
    if (item.length > 0 && !items.includes(item)) items.push(item);
  }
  return items;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Runs of `minimumRun` or more of `items` side by side in `prompt`, in the items' order: each found as a whole word,
 * two neighbours parted by at most four characters that are neither letters nor digits.
 */
function itemRuns(items: readonly string[], pattern: RegExp, prompt: string, source: number): QuotedRun[] {
  const order = new Map(items.map((item, index) => [item, index]));
  const runs: QuotedRun[] = [];
  let run: { start: number; end: number; items: number; last: number } | undefined;
  const close = (): void => {
    if (run !== undefined && run.items >= minimumRun) runs.push({ start: run.start, end: run.end, items: run.items, source });
    run = undefined;
  };
  for (const match of prompt.matchAll(pattern)) {
    const index = order.get(match[0]) as number;
    const start = match.index;
    if (run !== undefined && index > run.last && start - run.end <= 4 && !/[\p{L}\p{N}]/u.test(prompt.slice(run.end, start))) {
      run.items++;
      run.end = start + match[0].length;
      run.last = index;
      continue;
    }
    close();
    run = { start, end: start + match[0].length, items: 1, last: index };
  }
  close();
  return runs;
}

/** Whether `later`'s messages continue `earlier`'s conversation: all of them, then an assistant turn. */
function continues(earlier: LoggedChat, later: LoggedChat): boolean {
  if (later.messages.length <= earlier.messages.length || later.messages[earlier.messages.length]?.role !== 'assistant') return false;
  return earlier.messages.every((message, index) => later.messages[index]?.role === message.role && later.messages[index]?.content === message.content);
}

/** The longest chain of requests of `log` that each depend on the one before (see the file's comment). */
export function longestDependencyChain(log: readonly LoggedChat[]): DependencyChain {
  const order = log.map((_, index) => index).sort((left, right) => (log[left] as LoggedChat).receivedAt - (log[right] as LoggedChat).receivedAt || left - right);
  const prompts = log.map((request) => request.messages.map((message) => message.content).join('\n'));
  const wholeReplies = log.map((request, index) => {
    const reply = request.reply?.trim() ?? '';
    if (reply.length < minimumWholeReply) return undefined;
    const heldBefore = log.some((other, otherIndex) => other.receivedAt <= request.answeredAt && prompts[otherIndex]?.includes(reply));
    return heldBefore ? undefined : reply;
  });
  const items = log.map((request) => replyItems(request.reply ?? ''));
  const patterns = items.map((list) =>
    list.length < minimumRun
      ? undefined
      : new RegExp(
          `(?<![\\p{L}\\p{N}])(?:${[...list]
            .sort((left, right) => right.length - left.length)
            .map(escapeRegExp)
            .join('|')})(?![\\p{L}\\p{N}])`,
          'gu',
        ),
  );

  const depth = new Array<number>(log.length).fill(1);
  const previous = new Array<{ request: number; link: ChainLink } | undefined>(log.length).fill(undefined);
  for (const later of order) {
    const request = log[later] as LoggedChat;
    const prompt = prompts[later] as string;
    const links: Array<{ request: number; link: ChainLink }> = [];
    const runs: QuotedRun[] = [];
    for (const earlier of order) {
      const candidate = log[earlier] as LoggedChat;
      if (earlier === later || candidate.answeredAt > request.receivedAt) continue;
      if (continues(candidate, request)) links.push({ request: earlier, link: 'conversation' });
      else if (wholeReplies[earlier] !== undefined && prompt.includes(wholeReplies[earlier] as string)) links.push({ request: earlier, link: 'quotation' });
      else if (patterns[earlier] !== undefined) appendAll(runs, itemRuns(items[earlier] as string[], patterns[earlier] as RegExp, prompt, earlier));
    }
    // A passage held by several replies goes to the fullest run, then to the reply answered last.
    const outranks = (left: QuotedRun, right: QuotedRun): boolean =>
      left.items > right.items || (left.items === right.items && (log[left.source] as LoggedChat).answeredAt > (log[right.source] as LoggedChat).answeredAt);
    for (const run of runs) {
      const beaten = runs.some((other) => other !== run && other.source !== run.source && other.start < run.end && run.start < other.end && outranks(other, run));
      if (!beaten) links.push({ request: run.source, link: 'quotation' });
    }
    for (const link of links) {
      if ((depth[link.request] as number) + 1 > (depth[later] as number)) {
        depth[later] = (depth[link.request] as number) + 1;
        previous[later] = link;
      }
    }
  }

  let end = order[0];
  for (const index of order) if (end === undefined || (depth[index] as number) > (depth[end] as number)) end = index;
  const requests: number[] = [];
  const links: ChainLink[] = [];
  for (let at = end; at !== undefined; at = previous[at]?.request) {
    requests.unshift(at);
    const link = previous[at]?.link;
    if (link !== undefined) links.unshift(link);
  }
  return { requests, links };
}
