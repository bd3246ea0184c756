import type { PromptTemplate } from '../../core/prompt-library.js';

/*
 * Tree-of-Traversals' prompts (Markowitz et al., ACL 2024; amazon-science/tree-of-traversals
 * `prompts/prompts_llama.py`, the set `treeoftraversals.py` imports, and `wikidata/inital_state.py`;
 * amazon-science/tree-of-traversals). The texts follow the reference closely — they are the method. Changes:
 * the two value prompts ask for a final `RATING: <number>` line, because the reference read the first
 * decimal anywhere in the reply, which for the answer prompt (reasoning first) is often not the score; and
 * the selection prompts say that ids are written as shown, since our graphs are not all Wikidata.
 */

/**
 * Entity extraction (`extract_entities_prompt_template`): the named entities of the question, one per line
 * as `label - disambiguation`, with the reference's eight examples. Placeholder: `{query}`.
 */
const extractEntitiesText = `Query: {query}

Identify unique knowledge graph entities in the above query. Include only specific entities named in the query (people/places/organizations/events).
Add a 1-3 word disambiguation if necessary. The disambiguation should be clear from the query. Otherwise, leave disambiguation blank.
Separate the entity label and description with a ' - '

<< EXAMPLE >>
Query: What is the place of birth of the performer of song When I was Your Man?
Entities:
When I was Your Man - song

Query: What book series are Ron Weasley and Hermione Granger from?
Entities:
Ron Weasley - character of Harry Potter series
Hermione Granger - character from the Harry Potter stories

Query: When did Jean Martin's husband die?
Entities:
Jean Martin - 

Query: What actors played in the Dark Knight?
Entities:
The Dark Knight - film

Query: "How many languages are widely used in India?"
Entities:
India - country

Query: "Who is older Leonardo DiCaprio or George Clooney?"
Entities:
Leonardo DiCaprio - actor
George Clooney - actor

Query: "Where was the director of film Batman (1989) born?"
Entities:
Batman - a 1989 film

Query: "Who is the husband of John McGregor?"
Entities:
John McGregor - 
<< END EXAMPLE >>

Query: "{query}"
Entities:
`;

/**
 * Disambiguation (`match_prompt_template`): the candidates of one mention as `i: label (description)`;
 * the reply is an index or `None`. Placeholders: `{options}`, `{text}`.
 */
const matchEntityText = `Knowledge graph entities:
{options}

Choose which of the above entities best matches the following. Do not select list pages or disambiguation pages. Select an entity by index number based on matching entity label. The disambiguations may not be correct, in which case select the closest entity to the label. If there is no entity that could be a match say 'None'.

Entity to match: {text}
Based on the given entity label, the entity index that best matches is:`;

/**
 * The wrapper of every traversal prompt (`FULL_PROMPT`): the query, the local subgraph, the query again,
 * the trajectory, then the current step's prompt. Placeholders: `{query}`, `{kg_state}`, `{trajectory}`,
 * `{current_prompt}`.
 */
const fullText = `Original Query: {query}

{kg_state}

Original Query: {query}

Previous actions:
{trajectory}

{current_prompt}`;

/**
 * The DEFAULT state (`ACTION_DESCRIPTIONS_TEXT` + `BASE_ACTION_SELECTION_PROMPT`): THINK, EXPAND or
 * ANSWER. `{options}` is `THINK: <thought>/EXPAND/ANSWER: <answer>`, without THINK right after a THINK.
 */
const selectActionText = `You are a superintelligent AI equipped with the ability to search a knowledge graph for definitive, up-to-date answers. Your task is to interface with the knowledge graph in order to answer the above query. You will be able to expand the knowledge graph until you have found the answer. Think in detail before acting or answering.

Available actions:
'THINK' - Generate relevant thoughts to solving the problem. This could include recalling well known facts from memory.
	e.g.
		THINK: I should search for the movies directed by...
		THINK: I know that Biden is American, therefore...
		THINK: I see that John Cena is in both The Independent and Vacation Friends, therefore...
'EXPAND' - Search for edges of entities in the knowledge graph using an external API. This is a useful function for getting to the correct answer.
	e.g. EXPAND: I should search for the country of origin of Jonathon Taylor
'ANSWER' - Generate the final answer once the problem is solved. Just state the best answer, do not output a full sentence.
	e.g. 
		ANSWER: No
		ANSWER: Harry Potter
		ANSWER: [Harry Potter, Ron Weasley, Hermione Granger]

Next action [{options}]:
I suggest the next action is`;

/** The SELECTING_ENTITIES state (`EXPAND_KG_ENTITY_SELECTION_PROMPT`). Placeholder: `{options}` (the ids). */
const selectEntitiesText = `Current task
EXPAND takes two parameters. The first is the entity or entity group to get more information about. Select which entity or entities from the KG to expand, you can select more than one at a time.
Provide the ids exactly as listed (e.g. Q42). Options include {options}
SELECT ENTITIES:
You have selected the following entities to expand:`;

/**
 * The SELECTING_RELATION state (`EXPAND_KG_RELATION_SELECTION_PROMPT`): forward options as `P57: director`,
 * backward ones as `~P57: is director of`. Placeholders: `{selected_entities}`, `{outgoing}`, `{incoming}`.
 */
const selectRelationText = `Your current task is to select the property (PID) to expand along for the selected entities.
The selected entities are: {selected_entities}

The options of properties to choose from are:
{outgoing}
{incoming}

Select exactly one property (PID e.g. P10) from those listed above, written exactly as listed (with its ~ if it has one)
SELECT PROPERTY:
I suggest selecting property:`;

/** Forced answer at the depth limit and when the expansions run out (`ANSWER_PROMPT`). No placeholders. */
const answerText = `Give your best answer based on the knowledge graph. Give your reasoning and then state the best answer.

e.g.
THOUGHT: ...
ANSWER: ...

THOUGHT:`;

/**
 * Value of an intermediate state (`EVALUATE_STATE_PROMPT`, the llama set's 0.1–1.0 range), asking for a
 * final `RATING:` line. No placeholders (it is the `{current_prompt}` of the full prompt).
 */
const evaluateStateText = `Your current task is to evaluate the above knowledge graph and action history.
Based on the original query, the current knowledge graph, and the action history, give the likelihood that the model will correctly answer the question. 
If the most recent action provided information towards the goal and followed the preceding thought, give a high score. 
If the last action was unhelpful, give a low score. 

The output should be a number between 0.1 and 1 with one decimal, on a line of the form
RATING: <number>
Do not output anything else.`;

/**
 * Value of an answer (`EVALUATE_ANSWER_PROMPT`): reasoning, then a pessimistic score on a final `RATING:`
 * line. Placeholders: `{query}`, `{kg_state}`, `{answer}`.
 */
const evaluateAnswerText = `Query: {query}

{kg_state}

Provided answer: {answer}

Your task is to score the correctness of the provided answer based on the original query, and the knowledge graph.
Give a pessimistic score from 0.0 to 1.0 on how likely the answer is to be correct. 
0.0 if definitely wrong
0.0 if unable to answer based on the knowledge graph
0.5 if unsure
0.7 for probably correct but not confirmed in knowledge graph
1.0 for definitely correct and confirmed in knowledge graph.

Give reasoning to get to the correct answer. Then provide the score on a final line of the form RATING: <number>
E.g. 
Reasoning...
So the score for the provided answer should be...
RATING: 0.5`;

/** Every Tree-of-Traversals prompt, by role. */
export const totPrompts = {
  extractEntities: {
    name: 'tot-extract-entities',
    description: 'Tree-of-Traversals: named entities of the question, one "label - disambiguation" per line; placeholder {query}',
    text: extractEntitiesText,
  },
  matchEntity: {
    name: 'tot-match-entity',
    description: 'Tree-of-Traversals: pick the knowledge-graph candidate (by index) matching a mention, or None; placeholders {options}, {text}',
    text: matchEntityText,
  },
  full: {
    name: 'tot-full',
    description: 'Tree-of-Traversals: wrapper of every traversal prompt; placeholders {query}, {kg_state}, {trajectory}, {current_prompt}',
    text: fullText,
  },
  selectAction: {
    name: 'tot-select-action',
    description: 'Tree-of-Traversals: next action THINK / EXPAND / ANSWER; placeholder {options}',
    text: selectActionText,
  },
  selectEntities: {
    name: 'tot-select-entities',
    description: 'Tree-of-Traversals: entities to expand; placeholder {options} (entity ids)',
    text: selectEntitiesText,
  },
  selectRelation: {
    name: 'tot-select-relation',
    description: 'Tree-of-Traversals: relation to expand along; placeholders {selected_entities}, {outgoing}, {incoming}',
    text: selectRelationText,
  },
  answer: {
    name: 'tot-answer',
    description: 'Tree-of-Traversals: forced answer with reasoning, at the depth limit or when the expansions run out; no placeholders',
    text: answerText,
  },
  evaluateState: {
    name: 'tot-evaluate-state',
    description: 'Tree-of-Traversals: value of an intermediate state, final line "RATING: <number>"; no placeholders (inside tot-full)',
    text: evaluateStateText,
  },
  evaluateAnswer: {
    name: 'tot-evaluate-answer',
    description: 'Tree-of-Traversals: value of an answer, reasoning then final line "RATING: <number>"; placeholders {query}, {kg_state}, {answer}',
    text: evaluateAnswerText,
  },
} as const satisfies Record<string, PromptTemplate>;

/** The templates in the order `kgrag init` writes them. */
export const totPromptTemplates: readonly PromptTemplate[] = Object.values(totPrompts);
