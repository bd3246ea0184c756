import type { CooperativeTask } from '../core/cooperative-task.js';
import type { IdenticalRowGroups } from './identical-row-groups.js';
import type { KnnGraph } from './knn-graph.js';

/*
 * The kNN graph of every row from the kNN graph of one representative per group of identical rows. Copies score
 * alike, so a row's candidates are the other copies of its own row (scored ⟨x, x⟩) and the rows of the groups
 * nearest its representative; ranked, like the exact graph, by score descending, then index ascending.
 *
 * Why the representatives' k nearest groups are enough: a group outside them has k groups ranking above its best
 * row (its representative, the group's lowest row), whose representatives are k rows ranking above every row of
 * it. Likewise at most the k + 1 lowest rows of the own group and the k lowest of another can be among a row's k
 * nearest. So each group ranks at most (k + 1) + k·k candidates once, keeps its best k + 1, and each of its
 * rows takes the first k of them that are not itself: O(n·k) for n rows, whatever the copies.
 */

/** Candidates ranked per group between two pauses of the task. */
const candidatesPerPause = 1 << 15;

/**
 * Expands `groupGraph` (the graph of `groups.representatives`, in group order, with k′ = min(k, groups − 1)
 * neighbours) to the k-nearest-neighbour graph of all rows. `selfScores[g]` is ⟨x, x⟩ of group g's row as the
 * kernel that scored `groupGraph` computes it (read only for groups of more than one row); NaN never ranks.
 */
export function* expandGroupKnnGraphTask(groups: IdenticalRowGroups, groupGraph: KnnGraph, selfScores: Float32Array, k: number): CooperativeTask<KnnGraph> {
  const rows = groups.groupOf.length;
  const indices = new Int32Array(rows * k).fill(-1);
  const similarities = new Float32Array(rows * k).fill(Number.NEGATIVE_INFINITY);
  if (k === 0) return { n: rows, k, indices, similarities };
  const { starts, members } = groups;
  const candidateScores: number[] = [];
  const candidateRows: number[] = [];
  const order: number[] = [];
  const take = (group: number, count: number, score: number): void => {
    const first = starts[group] as number;
    const end = Math.min(starts[group + 1] as number, first + count);
    for (let member = first; member < end; member++) {
      candidateScores.push(score);
      candidateRows.push(members[member] as number);
    }
  };
  let sincePause = 0;
  for (let group = 0; group < groups.count; group++) {
    candidateScores.length = 0;
    candidateRows.length = 0;
    const size = (starts[group + 1] as number) - (starts[group] as number);
    if (size > 1 && !Number.isNaN(selfScores[group] as number)) take(group, k + 1, selfScores[group] as number);
    // Neighbour groups come best first; once k + 1 of their rows are in, a group scoring lower cannot enter.
    let fromNeighbours = 0;
    let lastScore = Number.NaN;
    for (let slot = group * groupGraph.k; slot < (group + 1) * groupGraph.k; slot++) {
      const neighbour = groupGraph.indices[slot] as number;
      if (neighbour < 0) break;
      const score = groupGraph.similarities[slot] as number;
      if (fromNeighbours >= k + 1 && score !== lastScore) break;
      const before = candidateRows.length;
      take(neighbour, k, score);
      fromNeighbours += candidateRows.length - before;
      lastScore = score;
    }
    order.length = 0;
    for (let candidate = 0; candidate < candidateRows.length; candidate++) order.push(candidate);
    order.sort((a, b) => (candidateScores[b] as number) - (candidateScores[a] as number) || (candidateRows[a] as number) - (candidateRows[b] as number));
    const best = Math.min(order.length, k + 1);
    for (let member = starts[group] as number; member < (starts[group + 1] as number); member++) {
      const row = members[member] as number;
      let slot = row * k;
      for (let rank = 0; rank < best && slot < (row + 1) * k; rank++) {
        const candidate = order[rank] as number;
        if (candidateRows[candidate] === row) continue;
        indices[slot] = candidateRows[candidate] as number;
        similarities[slot] = candidateScores[candidate] as number;
        slot++;
      }
    }
    sincePause += candidateRows.length + size;
    if (sincePause >= candidatesPerPause) {
      sincePause = 0;
      yield;
    }
  }
  return { n: rows, k, indices, similarities };
}
