import type { ExtractiveRecord } from '../../answer/extractive-answer.js';
import type { LocalContext } from './build-local-context.js';

/**
 * The records of a local context the extractive answer may quote besides its text units: community reports an LLM
 * wrote, and — when an LLM wrote the entity graph (standard mode, or an imported GraphRAG index) — the entities'
 * descriptions and the relationships'. GraphRAG's own descriptions often name the answer that the text units only
 * surround ("designed by Tommy Flowers at Dollis Hill"). A fast index's descriptions and extractive reports are
 * sentences of the text units themselves: quoting them again would only add copies of passages.
 */
export function writtenRecords(built: Pick<LocalContext, 'entities' | 'relations' | 'reports' | 'endpointTitles'>, llmGraph: boolean): ExtractiveRecord[] {
  const records: ExtractiveRecord[] = [];
  if (llmGraph) {
    for (const entity of built.entities) {
      if (entity.hid !== undefined && entity.description.trim() !== '') records.push({ dataset: 'Entities', hid: entity.hid, id: entity.id, title: entity.title, text: entity.description });
    }
    for (const relation of built.relations) {
      if (relation.hid === undefined || relation.description.trim() === '') continue;
      const title = `${built.endpointTitles.get(relation.source) ?? relation.source} → ${built.endpointTitles.get(relation.target) ?? relation.target}`;
      records.push({ dataset: 'Relationships', hid: relation.hid, id: relation.id, title, text: relation.description });
    }
  }
  for (const report of built.reports) {
    if (report.generatedBy !== 'llm' || report.hid === undefined) continue;
    const text = [report.summary, ...report.findings.map((finding) => finding.explanation)].filter((part) => part.trim() !== '').join('\n');
    records.push({ dataset: 'Reports', hid: report.hid, id: report.communityId, title: report.title, text });
  }
  return records;
}
