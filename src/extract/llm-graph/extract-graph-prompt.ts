import type { PromptTemplate } from '../../core/prompt-library.js';

const jsonExtract = `---Goal---

You are given a text and a list of entity types. Find every entity of those types in the text, and every relationship between the entities you found.

---Steps---

1. Find the entities. For each one, give:
- name: the entity's name, capitalized as it is written in the text (use the fullest form the text gives, e.g. "Imani Osei" rather than "Osei")
- type: one of these entity types: {entity_types}
- description: a complete description of the entity's attributes and activities, using only what the text says

2. Among the entities from step 1, find every pair that is clearly related. For each pair, give:
- source: the name of one entity, exactly as written in step 1
- target: the name of the other entity, exactly as written in step 1
- description: why the two entities are related
- strength: a whole number from 1 to 10 saying how strong the relationship is (10 = very strong)
Relate only entities that you listed in step 1.

3. Write every description in English. Reply with one JSON object and nothing else — no explanations, no markdown fences:
{"entities": [{"name": "...", "type": "...", "description": "..."}], "relationships": [{"source": "...", "target": "...", "description": "...", "strength": 5}]}
If the text contains no entities of these types, reply {"entities": [], "relationships": []}.

---Examples---

Example 1
Entity types: organization, person, geo
Text:
The Harwick Valley Water Board appointed Dr. Imani Osei as its chief engineer on Tuesday. Osei previously ran the flood-defence program in the port town of Bellmar, where she redesigned the spillway of the Kessel Dam.
Output:
{"entities": [{"name": "Harwick Valley Water Board", "type": "organization", "description": "The Harwick Valley Water Board is a water authority that appointed Dr. Imani Osei as its chief engineer"}, {"name": "Imani Osei", "type": "person", "description": "Dr. Imani Osei is the new chief engineer of the Harwick Valley Water Board; she previously ran Bellmar's flood-defence program and redesigned the Kessel Dam spillway"}, {"name": "Bellmar", "type": "geo", "description": "Bellmar is a port town with a flood-defence program"}, {"name": "Kessel Dam", "type": "geo", "description": "The Kessel Dam is a dam near Bellmar whose spillway was redesigned by Imani Osei"}], "relationships": [{"source": "Imani Osei", "target": "Harwick Valley Water Board", "description": "Imani Osei was appointed chief engineer of the Harwick Valley Water Board", "strength": 9}, {"source": "Imani Osei", "target": "Bellmar", "description": "Imani Osei ran the flood-defence program of Bellmar", "strength": 7}, {"source": "Imani Osei", "target": "Kessel Dam", "description": "Imani Osei redesigned the spillway of the Kessel Dam", "strength": 8}]}

Example 2
Entity types: person, organization, event
Text:
At the Lumen Robotics Cup, the student team Northwind from Fjordheim University beat the defending champions, Tessellate Labs. Northwind's captain, Rafael Quintero, said the win came from a gripper designed by teammate Sun-hee Park.
Output:
{"entities": [{"name": "Lumen Robotics Cup", "type": "event", "description": "The Lumen Robotics Cup is a robotics competition won by the student team Northwind"}, {"name": "Northwind", "type": "organization", "description": "Northwind is a student robotics team from Fjordheim University that won the Lumen Robotics Cup"}, {"name": "Fjordheim University", "type": "organization", "description": "Fjordheim University is the university of the Northwind team"}, {"name": "Tessellate Labs", "type": "organization", "description": "Tessellate Labs were the defending champions of the Lumen Robotics Cup and lost to Northwind"}, {"name": "Rafael Quintero", "type": "person", "description": "Rafael Quintero is the captain of Northwind"}, {"name": "Sun-hee Park", "type": "person", "description": "Sun-hee Park is a Northwind team member who designed the team's gripper"}], "relationships": [{"source": "Northwind", "target": "Lumen Robotics Cup", "description": "Northwind won the Lumen Robotics Cup", "strength": 9}, {"source": "Northwind", "target": "Fjordheim University", "description": "Northwind is the student team of Fjordheim University", "strength": 8}, {"source": "Northwind", "target": "Tessellate Labs", "description": "Northwind beat Tessellate Labs, the defending champions", "strength": 6}, {"source": "Rafael Quintero", "target": "Northwind", "description": "Rafael Quintero is the captain of Northwind", "strength": 9}, {"source": "Sun-hee Park", "target": "Northwind", "description": "Sun-hee Park designed the gripper that won Northwind the cup", "strength": 7}]}

Example 3
Entity types: person, geo
Text:
Stir the flour into the warm water and knead for ten minutes.
Output:
{"entities": [], "relationships": []}

---Real Data---

Entity types: {entity_types}
Text:
{input_text}

---Reminder---

Reply with the JSON object only: "entities" (name, type, description) of the types {entity_types}, and "relationships" (source, target, description, strength from 1 to 10) between entities you listed.
Output:`;

const jsonContinue = `MANY entities and relationships were missed in the last extraction. Add them now, using only these entity types: {entity_types}.
Reply with one JSON object of the same shape as before, {"entities": [...], "relationships": [...]}, holding only entities and relationships you have not given yet; do not repeat earlier ones. A new relationship may connect a new entity to one you listed before. If nothing is missing, reply {"entities": [], "relationships": []}.`;

const tuplesExtract = `---Goal---

You are given a text and a list of entity types. Find every entity of those types in the text, and every relationship between the entities you found.

---Steps---

1. Find the entities. For each one, give:
- entity_name: the entity's name, capitalized as it is written in the text (use the fullest form the text gives, e.g. "Imani Osei" rather than "Osei")
- entity_type: one of these entity types: {entity_types}
- entity_description: a complete description of the entity's attributes and activities, using only what the text says
Write each entity as one record:
("entity"<|><entity_name><|><entity_type><|><entity_description>)

2. Among the entities from step 1, find every pair that is clearly related. For each pair, give:
- source_entity: the name of one entity, exactly as written in step 1
- target_entity: the name of the other entity, exactly as written in step 1
- relationship_description: why the two entities are related
- relationship_strength: a whole number from 1 to 10 saying how strong the relationship is (10 = very strong)
Write each relationship as one record:
("relationship"<|><source_entity><|><target_entity><|><relationship_description><|><relationship_strength>)
Relate only entities that you listed in step 1.

3. Write every description in English. Output all the records as one list, one record per line, with a line containing only ## between two records. Do not use ## or <|> anywhere inside a name or description, and add no other text.

4. When you are finished, write <|COMPLETE|>

---Examples---

Example 1
Entity types: organization, person, geo
Text:
The Harwick Valley Water Board appointed Dr. Imani Osei as its chief engineer on Tuesday. Osei previously ran the flood-defence program in the port town of Bellmar, where she redesigned the spillway of the Kessel Dam.
Output:
("entity"<|>Harwick Valley Water Board<|>organization<|>The Harwick Valley Water Board is a water authority that appointed Dr. Imani Osei as its chief engineer)
##
("entity"<|>Imani Osei<|>person<|>Dr. Imani Osei is the new chief engineer of the Harwick Valley Water Board; she previously ran Bellmar's flood-defence program and redesigned the Kessel Dam spillway)
##
("entity"<|>Bellmar<|>geo<|>Bellmar is a port town with a flood-defence program)
##
("entity"<|>Kessel Dam<|>geo<|>The Kessel Dam is a dam near Bellmar whose spillway was redesigned by Imani Osei)
##
("relationship"<|>Imani Osei<|>Harwick Valley Water Board<|>Imani Osei was appointed chief engineer of the Harwick Valley Water Board<|>9)
##
("relationship"<|>Imani Osei<|>Bellmar<|>Imani Osei ran the flood-defence program of Bellmar<|>7)
##
("relationship"<|>Imani Osei<|>Kessel Dam<|>Imani Osei redesigned the spillway of the Kessel Dam<|>8)
<|COMPLETE|>

Example 2
Entity types: person, organization, event
Text:
At the Lumen Robotics Cup, the student team Northwind from Fjordheim University beat the defending champions, Tessellate Labs. Northwind's captain, Rafael Quintero, said the win came from a gripper designed by teammate Sun-hee Park.
Output:
("entity"<|>Lumen Robotics Cup<|>event<|>The Lumen Robotics Cup is a robotics competition won by the student team Northwind)
##
("entity"<|>Northwind<|>organization<|>Northwind is a student robotics team from Fjordheim University that won the Lumen Robotics Cup)
##
("entity"<|>Fjordheim University<|>organization<|>Fjordheim University is the university of the Northwind team)
##
("entity"<|>Tessellate Labs<|>organization<|>Tessellate Labs were the defending champions of the Lumen Robotics Cup and lost to Northwind)
##
("entity"<|>Rafael Quintero<|>person<|>Rafael Quintero is the captain of Northwind)
##
("entity"<|>Sun-hee Park<|>person<|>Sun-hee Park is a Northwind team member who designed the team's gripper)
##
("relationship"<|>Northwind<|>Lumen Robotics Cup<|>Northwind won the Lumen Robotics Cup<|>9)
##
("relationship"<|>Northwind<|>Fjordheim University<|>Northwind is the student team of Fjordheim University<|>8)
##
("relationship"<|>Northwind<|>Tessellate Labs<|>Northwind beat Tessellate Labs, the defending champions<|>6)
##
("relationship"<|>Rafael Quintero<|>Northwind<|>Rafael Quintero is the captain of Northwind<|>9)
##
("relationship"<|>Sun-hee Park<|>Northwind<|>Sun-hee Park designed the gripper that won Northwind the cup<|>7)
<|COMPLETE|>

Example 3
Entity types: person, geo
Text:
Stir the flour into the warm water and knead for ten minutes.
Output:
<|COMPLETE|>

---Real Data---

Entity types: {entity_types}
Text:
{input_text}

---Reminder---

Output only ("entity"<|>…) and ("relationship"<|>…) records of the types {entity_types}, with ## between records, and end with <|COMPLETE|>.
Output:`;

const tuplesContinue = `MANY entities and relationships were missed in the last extraction. Add them now, using only these entity types: {entity_types}.
Use the same format as before: ("entity"<|>…) and ("relationship"<|>…) records, with ## between records, ending with <|COMPLETE|>. Give only records you have not given yet; do not repeat earlier ones. A new relationship may connect a new entity to one you listed before. If nothing is missing, write only <|COMPLETE|>.`;

const loop = `Some entities or relationships may still be missing. Answer Y if there are still entities or relationships to add, or N if there are none. Answer with the single letter Y or N and nothing else.`;

/**
 * The graph extraction prompts (microsoft/graphrag `prompts/index/extract_graph.py`), in our words with GraphRAG's structure:
 * Goal, Steps, three short examples with fictional entities (the third has none, against invented
 * output on text without entities, microsoft/graphrag#1881), Real Data, then the instructions again
 * after the data for models that lose them in a long chunk. Two formats, chosen by
 * `extract.llm.format`: `json` asks for the `extractedGraphSchema` object (sent as structured output),
 * `tuples` for GraphRAG's `("entity"<|>…)##…<|COMPLETE|>` records, with delimiters hard-coded as in
 * GraphRAG v3. `continue` is the gleaning turn, `loop` the Y/N check between gleanings (shared by both
 * formats). Placeholders: `{entity_types}` (comma-separated) and `{input_text}` in `extract`;
 * `{entity_types}` in `continue` (GraphRAG's CONTINUE says "same types" without naming them); none in `loop`.
 */
export const extractGraphPrompts = {
  json: {
    extract: {
      name: 'extract-graph',
      description: 'LLM graph extraction, JSON reply (entities, relationships); placeholders {entity_types}, {input_text}',
      text: jsonExtract,
    },
    continue: {
      name: 'extract-graph-continue',
      description: 'Gleaning turn of JSON graph extraction (add what was missed); placeholder {entity_types}',
      text: jsonContinue,
    },
  },
  tuples: {
    extract: {
      name: 'extract-graph-tuples',
      description: 'LLM graph extraction, GraphRAG tuple records ("entity"<|>…)##…<|COMPLETE|>; placeholders {entity_types}, {input_text}',
      text: tuplesExtract,
    },
    continue: {
      name: 'extract-graph-tuples-continue',
      description: 'Gleaning turn of tuple graph extraction (add what was missed); placeholder {entity_types}',
      text: tuplesContinue,
    },
  },
  loop: {
    name: 'extract-graph-loop',
    description: 'Y/N check between graph extraction gleanings; no placeholders',
    text: loop,
  },
} as const satisfies {
  json: { extract: PromptTemplate; continue: PromptTemplate };
  tuples: { extract: PromptTemplate; continue: PromptTemplate };
  loop: PromptTemplate;
};
