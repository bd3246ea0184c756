import { resolve } from 'node:path';
import { KgragError } from '../../core/errors.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { writeOutputFile } from '../../core/write-output-file.js';
import { generateGlobalQuestions } from '../../eval/judge/question-generation.js';
import { openWorkspace } from '../open-workspace.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';

/** Options of `kgrag generate-questions`. */
export interface GenerateQuestionsOptions {
  description: string;
  personas: number;
  tasks: number;
  questions: number;
  out?: string;
}

/**
 * `kgrag generate-questions`: GraphRAG's activity-centred question generation. Writes the questions in
 * the custom evaluation format (no answers, no gold passages), ready for `kgrag eval --judge`.
 */
export async function generateQuestionsCommand(options: GenerateQuestionsOptions, global: GlobalOptions, io: CliIo): Promise<void> {
  const kgrag = await openWorkspace(workspaceOptions(global, io), io);
  try {
    if (!kgrag.llm) {
      throw new KgragError('question generation needs an LLM, and none is configured', {
        code: 'CLI_GENERATE_NEEDS_LLM',
        category: 'config',
        hint: 'set KGRAG_LLM_BASE_URL (e.g. Ollama) or OPENAI_API_KEY; see the README',
      });
    }
    const generated = await generateGlobalQuestions(kgrag.llm, {
      datasetDescription: options.description,
      personas: options.personas,
      tasksPerPersona: options.tasks,
      questionsPerTask: options.questions,
    });
    const lines = generated.questions.map((question) =>
      JSON.stringify({ id: question.id, question: question.question, answers: [], gold_passages: [], type: 'global', persona: question.persona, task: question.task }),
    );
    const text = `${lines.join('\n')}\n`;
    if (options.out) {
      const path = resolve(io.cwd, options.out);
      await writeOutputFile(path, text, 'the questions');
      writeLine(io.stderr, `wrote ${generated.questions.length} questions to ${sanitizeForTerminal(path)} (${generated.duplicatesRemoved} duplicates removed)`);
    } else {
      io.stdout.write(text);
    }
  } finally {
    await kgrag.close();
  }
}
