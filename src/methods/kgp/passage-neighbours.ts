import type { PassageGraph } from './build/passage-graph.js';

/** A passage's out-neighbours through the selected kinds, ascending, with the kind bits of each link. */
export interface PassageNeighbours {
  passages: number[];
  kinds: number[];
}

/** The neighbours of `passage` linked by at least one kind of `kindMask` (bits of `passageEdgeBit`). */
export function passageNeighbours(graph: PassageGraph, passage: number, kindMask: number): PassageNeighbours {
  const passages: number[] = [];
  const kinds: number[] = [];
  for (let entry = graph.rowPointers[passage] as number; entry < (graph.rowPointers[passage + 1] as number); entry++) {
    const linked = (graph.kinds[entry] as number) & kindMask;
    if (linked === 0) continue;
    passages.push(graph.neighbours[entry] as number);
    kinds.push(linked);
  }
  return { passages, kinds };
}
