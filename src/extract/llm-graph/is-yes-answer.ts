/**
 * Reads the reply to a gleaning loop check ("are entities still missing? Y or N"). GraphRAG continues
 * only when the reply is exactly `"Y"` (microsoft/graphrag `index/operations/extract_graph/graph_extractor.py`); we
 * also accept what models write for yes — `y`, `Yes`, `YES.`, `**Y**`, a fenced or quoted `Y`, a reply
 * after a `<think>` block — but nothing longer: "Yes, but only one" or anything else means stop, so an
 * unclear answer never buys another paid turn.
 */
export function isYesAnswer(reply: string): boolean {
  const answer = reply
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .replace(/```[A-Za-z0-9_-]*/g, '')
    .replace(/["'`*_“”‘’]/g, '')
    .trim();
  return /^(?:y|yes)[.!]?$/i.test(answer);
}
