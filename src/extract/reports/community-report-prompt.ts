import type { PromptTemplate } from '../../core/prompt-library.js';

/**
 * The community report prompt, structured like GraphRAG's graph-based `community_report` prompt
 * (microsoft/graphrag `prompts/index/community_report.py`) and written in our own words: the analyst role, the five report sections
 * (title, summary, impact rating 0–10, one-sentence rating explanation, 5–10 detailed findings), the JSON
 * shape, grounding as `[Data: <dataset> (ids)]` with at most five ids then "+more", one short worked example,
 * the data, and the instructions repeated after the data ("sandwich", as GraphRAG does, so that a long
 * context does not push the format out of the model's attention). Placeholders: `{input_text}` (the CSV
 * context) and `{max_report_length}` (words).
 */
export const communityReportPrompt: PromptTemplate = {
  name: 'community-report',
  description: 'Writes the report of one community of the graph. Placeholders: {input_text}, {max_report_length}',
  text: `---Role---

You are an analyst helping people discover what a collection of documents says about a network of entities: people, organizations, places, events and the relationships among them.

---Goal---

Write a report about one community of the network, using only the data tables below: its entities, their relationships, optional claims about them, and optional reports on smaller communities inside it. The report tells a decision-maker who the key entities are, how they are connected, and what about them matters most. Keep it under {max_report_length} words.

---Report structure---

- TITLE: a short, specific name for the community that mentions its most important entities.
- SUMMARY: an executive summary of the community's overall structure, how its entities relate to each other, and the most significant information about them.
- IMPACT RATING: a number from 0 to 10 for how important or consequential the community is (0: negligible, 10: critical).
- RATING EXPLANATION: one sentence justifying the rating.
- DETAILED FINDINGS: 5 to 10 key insights about the community. Each finding has a short summary and an explanation of several sentences, grounded in the data.

---Output format---

Reply with only a JSON object in exactly this shape, with no text before or after it:
{
  "title": "<report title>",
  "summary": "<executive summary>",
  "rating": <number from 0 to 10>,
  "rating_explanation": "<one sentence>",
  "findings": [
    { "summary": "<insight summary>", "explanation": "<insight explanation>" }
  ]
}

---Grounding rules---

Support every statement with references to the records it comes from, in this form:
"The cooperative owns the mill on the river [Data: Entities (3, 8); Relationships (12)]."
Use the human_readable_id values of the tables. Name the table (Reports, Entities, Relationships or Claims) before its ids. List at most 5 ids in one reference; if more records support the statement, give the 5 most relevant and add "+more", e.g. [Data: Relationships (2, 5, 9, 11, 14, +more)]. Do not state anything the data does not support.

---Example---

Input:
-----Entities-----
human_readable_id,title,type,description,degree
5,VERDANT GROWERS,organization,A farming cooperative in the Ash valley,3
6,ASH VALLEY MILL,organization,The grain mill that buys most of the valley's harvest,2
7,ASH VALLEY,geo,A river valley known for its wheat,2
-----Relationships-----
human_readable_id,source,target,description,combined_degree
21,VERDANT GROWERS,ASH VALLEY MILL,Verdant Growers sells its wheat to the mill,5
22,VERDANT GROWERS,ASH VALLEY,Verdant Growers farms most of the land in the valley,5

Output:
{
  "title": "Verdant Growers and the Ash Valley Mill",
  "summary": "The community centres on Verdant Growers, a farming cooperative that works most of the Ash Valley and sells its wheat to the Ash Valley Mill [Data: Entities (5, 6, 7); Relationships (21, 22)].",
  "rating": 4.0,
  "rating_explanation": "The community is a local supply chain whose disruption would mainly affect the valley's economy.",
  "findings": [
    {
      "summary": "Verdant Growers dominates farming in the valley",
      "explanation": "Verdant Growers farms most of the land in the Ash Valley, so the valley's harvest depends largely on the cooperative [Data: Entities (5, 7); Relationships (22)]."
    },
    {
      "summary": "The mill depends on a single supplier",
      "explanation": "The Ash Valley Mill buys most of the valley's harvest, and that harvest comes from Verdant Growers, which ties the mill's supply to one cooperative [Data: Entities (6); Relationships (21)]."
    }
  ]
}

---Data---

{input_text}

---Reminder---

Write the report from the data above only. Reply with only the JSON object with the keys "title", "summary", "rating" (0 to 10), "rating_explanation" and "findings" (5 to 10 objects with "summary" and "explanation"). Ground statements as [Data: <table> (ids)] with at most 5 ids then "+more". Keep the report under {max_report_length} words.`,
};

/**
 * The note appended to the report prompt for the one retry after an invalid reply (see
 * `generateCommunityReport`). Placeholder: `{problems}` (one per line).
 */
export const communityReportRepairPrompt: PromptTemplate = {
  name: 'community-report-repair',
  description: 'Appended to the community report prompt when its reply could not be used. Placeholder: {problems}',
  text: `---Important---

An earlier reply to this request could not be used:
{problems}
Reply with only the JSON object described above: valid JSON, no markdown fences, no text before or after it.`,
};
