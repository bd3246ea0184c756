/*
 * LLM test doubles for the public `kgrag/testing` entry: a scripted fake model, a loopback
 * OpenAI-compatible server with fault injection, and an in-memory response cache.
 */
export { createScriptedLanguageModel } from './scripted-language-model.js';
export type {
  ScriptedLanguageModel,
  ScriptedLanguageModelOptions,
  ScriptedReply,
  ScriptedResponse,
} from './scripted-language-model.js';
export { FAULT_KINDS, startMockOpenAiServer } from './mock-openai-server.js';
export type {
  FaultKind,
  MockAnsweredRequest,
  MockChatCompletionRequest,
  MockFaultOptions,
  MockOpenAiServer,
  MockOpenAiServerOptions,
  MockOpenAiServerStats,
  MockRecordedRequest,
} from './mock-openai-server.js';
export { createMemoryLlmCache } from './memory-llm-cache.js';
export type { MemoryLlmCache } from './memory-llm-cache.js';
export type { CachedChat, LlmResponseCache } from '../providers/llm/llm-response-cache.js';
