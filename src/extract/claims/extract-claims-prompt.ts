import type { PromptTemplate } from '../../core/prompt-library.js';

const steps = (output: string): string => `---Goal---

You help an analyst find claims about entities in a text. You are given the text, an entity specification and a claim description. Find the entities that match the specification, and the claims in the text about them that match the claim description.

---Steps---

1. Find every named entity in the text that matches the entity specification. The specification is either a list of entity names or a list of entity types.

2. For each entity from step 1, find every claim in the text that matches the claim description and has the entity as its subject. For each claim, give:
- subject: the entity the claim is about, capitalized as it is written in the text
- object: the entity the claim involves or affects, capitalized as written; ${output === 'json' ? 'null' : 'NONE'} if there is none
- type: a short upper-case category for the claim that could be reused for other texts, e.g. FRAUD or SAFETY VIOLATION
- status: TRUE if the text confirms the claim, FALSE if the text shows it to be false, SUSPECTED if it is not verified
- start date and end date: the period the claim covers, in ISO-8601 (YYYY-MM-DD); the same date twice if it is one day; ${output === 'json' ? 'null' : 'NONE'} if the text gives no date
- description: a detailed description of the claim, with the reasons and evidence behind it
- source text: the passages of the text that support the claim, quoted word for word`;

const jsonExtract = `${steps('json')}

3. Write every description in English. Reply with one JSON object and nothing else — no explanations, no markdown fences:
{"claims": [{"subject": "...", "object": "..." or null, "type": "...", "status": "TRUE" or "FALSE" or "SUSPECTED", "start_date": "YYYY-MM-DD" or null, "end_date": "YYYY-MM-DD" or null, "description": "...", "source_text": "..."}]}
If the text holds no such claims, reply {"claims": []}.

---Examples---

Example 1
Entity specification: organization
Claim description: warning signs associated with an entity
Text:
On 2030-03-04 the Orvane Port Authority fined Brightline Freight for falsifying the cargo weight records of its shipments. Brightline's founder, Tomas Reiter, is suspected of approving the false records since 2028.
Output:
{"claims": [{"subject": "Brightline Freight", "object": "Orvane Port Authority", "type": "FRAUD", "status": "TRUE", "start_date": "2030-03-04", "end_date": "2030-03-04", "description": "Brightline Freight falsified the cargo weight records of its shipments and was fined for it by the Orvane Port Authority on 2030-03-04", "source_text": "On 2030-03-04 the Orvane Port Authority fined Brightline Freight for falsifying the cargo weight records of its shipments."}]}

Example 2
Entity specification: Castellan Bank, Mirela Vos
Claim description: statements about the handling of client money
Text:
Castellan Bank denied reports that it moved client deposits into offshore accounts between January and June 2029. The auditor Mirela Vos found that no such transfers took place.
Output:
{"claims": [{"subject": "Castellan Bank", "object": null, "type": "MISUSE OF CLIENT FUNDS", "status": "FALSE", "start_date": "2029-01-01", "end_date": "2029-06-30", "description": "Reports said Castellan Bank moved client deposits offshore in the first half of 2029; the bank denied it and the auditor Mirela Vos found no such transfers", "source_text": "Castellan Bank denied reports that it moved client deposits into offshore accounts between January and June 2029. The auditor Mirela Vos found that no such transfers took place."}, {"subject": "Mirela Vos", "object": "Castellan Bank", "type": "AUDIT FINDING", "status": "TRUE", "start_date": null, "end_date": null, "description": "The auditor Mirela Vos found that Castellan Bank made no offshore transfers of client deposits", "source_text": "The auditor Mirela Vos found that no such transfers took place."}]}

---Real Data---

Entity specification: {entity_specs}
Claim description: {claim_description}
Text:
{input_text}

---Reminder---

Reply with the JSON object only: "claims", each with subject, object (or null), type, status (TRUE, FALSE or SUSPECTED), start_date and end_date (or null), description and source_text, about entities matching: {entity_specs}.
Output:`;

const jsonContinue = `MANY claims were missed in the last extraction. Add them now, for entities matching the same specification: {entity_specs}.
Reply with one JSON object of the same shape as before, {"claims": [...]}, holding only claims you have not given yet; do not repeat earlier ones. If nothing is missing, reply {"claims": []}.`;

const tuplesExtract = `${steps('tuples')}
Write each claim as one record:
(<subject><|><object><|><type><|><status><|><start date><|><end date><|><description><|><source text>)

3. Write every description in English. Output all the records as one list, one record per line, with a line containing only ## between two records. Do not use ## or <|> anywhere inside a field, and add no other text.

4. When you are finished, write <|COMPLETE|>

---Examples---

Example 1
Entity specification: organization
Claim description: warning signs associated with an entity
Text:
On 2030-03-04 the Orvane Port Authority fined Brightline Freight for falsifying the cargo weight records of its shipments. Brightline's founder, Tomas Reiter, is suspected of approving the false records since 2028.
Output:
(Brightline Freight<|>Orvane Port Authority<|>FRAUD<|>TRUE<|>2030-03-04<|>2030-03-04<|>Brightline Freight falsified the cargo weight records of its shipments and was fined for it by the Orvane Port Authority on 2030-03-04<|>On 2030-03-04 the Orvane Port Authority fined Brightline Freight for falsifying the cargo weight records of its shipments.)
<|COMPLETE|>

Example 2
Entity specification: Castellan Bank, Mirela Vos
Claim description: statements about the handling of client money
Text:
Castellan Bank denied reports that it moved client deposits into offshore accounts between January and June 2029. The auditor Mirela Vos found that no such transfers took place.
Output:
(Castellan Bank<|>NONE<|>MISUSE OF CLIENT FUNDS<|>FALSE<|>2029-01-01<|>2029-06-30<|>Reports said Castellan Bank moved client deposits offshore in the first half of 2029; the bank denied it and the auditor Mirela Vos found no such transfers<|>Castellan Bank denied reports that it moved client deposits into offshore accounts between January and June 2029. The auditor Mirela Vos found that no such transfers took place.)
##
(Mirela Vos<|>Castellan Bank<|>AUDIT FINDING<|>TRUE<|>NONE<|>NONE<|>The auditor Mirela Vos found that Castellan Bank made no offshore transfers of client deposits<|>The auditor Mirela Vos found that no such transfers took place.)
<|COMPLETE|>

---Real Data---

Entity specification: {entity_specs}
Claim description: {claim_description}
Text:
{input_text}

---Reminder---

Output only claim records (subject<|>object or NONE<|>type<|>TRUE, FALSE or SUSPECTED<|>start date or NONE<|>end date or NONE<|>description<|>source text) about entities matching: {entity_specs}, with ## between records, and end with <|COMPLETE|>.
Output:`;

const tuplesContinue = `MANY claims were missed in the last extraction. Add them now, for entities matching the same specification: {entity_specs}.
Use the same format as before: (subject<|>object<|>type<|>status<|>start date<|>end date<|>description<|>source text) records, with ## between records, ending with <|COMPLETE|>. Give only claims you have not given yet; do not repeat earlier ones. If nothing is missing, write only <|COMPLETE|>.`;

const loop = `Some claims may still be missing. Answer Y if there are still claims to add, or N if there are none. Answer with the single letter Y or N and nothing else.`;

/**
 * The claim extraction prompts (GraphRAG covariates, microsoft/graphrag `prompts/index/extract_claims.py`), in our words with
 * GraphRAG's structure: Goal, Steps, two short examples with fictional entities (the first shows a
 * person left out because the specification asks for organizations, the second a FALSE claim and a
 * claim without dates), Real Data, and the instructions again after the data. `json` asks for the
 * `extractedClaimsSchema` object, `tuples` for GraphRAG's eight-field records. The gleaning messages
 * talk about claims, where GraphRAG's reuse the graph wording ("entities"). Placeholders:
 * `{entity_specs}`, `{claim_description}`, `{input_text}` in `extract`; `{entity_specs}` in `continue`;
 * none in `loop`.
 */
export const extractClaimsPrompts = {
  json: {
    extract: {
      name: 'extract-claims',
      description: 'Claim extraction, JSON reply; placeholders {entity_specs}, {claim_description}, {input_text}',
      text: jsonExtract,
    },
    continue: {
      name: 'extract-claims-continue',
      description: 'Gleaning turn of JSON claim extraction (add what was missed); placeholder {entity_specs}',
      text: jsonContinue,
    },
  },
  tuples: {
    extract: {
      name: 'extract-claims-tuples',
      description: 'Claim extraction, GraphRAG tuple records (subject<|>…)##…<|COMPLETE|>; placeholders {entity_specs}, {claim_description}, {input_text}',
      text: tuplesExtract,
    },
    continue: {
      name: 'extract-claims-tuples-continue',
      description: 'Gleaning turn of tuple claim extraction (add what was missed); placeholder {entity_specs}',
      text: tuplesContinue,
    },
  },
  loop: {
    name: 'extract-claims-loop',
    description: 'Y/N check between claim extraction gleanings; no placeholders',
    text: loop,
  },
} as const satisfies {
  json: { extract: PromptTemplate; continue: PromptTemplate };
  tuples: { extract: PromptTemplate; continue: PromptTemplate };
  loop: PromptTemplate;
};
