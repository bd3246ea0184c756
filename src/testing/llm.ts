/*
 * LLM test doubles for the public `kgrag/testing` entry: a scripted fake model, a loopback
 * OpenAI-compatible server with fault injection, and an in-memory response cache.
 */
export { createScriptedLanguageModel } from '../providers/llm/scripted-language-model.js';
export type {
  ScriptedLanguageModel,
  ScriptedLanguageModelOptions,
  ScriptedReply,
  ScriptedResponse,
} from '../providers/llm/scripted-language-model.js';
export { FAULT_KINDS, startMockOpenAiServer } from '../providers/llm/mock-openai-server.js';
export type {
  FaultKind,
  MockAnsweredRequest,
  MockChatCompletionRequest,
  MockFaultOptions,
  MockOpenAiServer,
  MockOpenAiServerOptions,
  MockOpenAiServerStats,
  MockRecordedRequest,
} from '../providers/llm/mock-openai-server.js';
export { createMemoryLlmCache } from '../providers/llm/memory-llm-cache.js';
export type { MemoryLlmCache } from '../providers/llm/memory-llm-cache.js';
export type { CachedChat, LlmResponseCache } from '../providers/llm/llm-response-cache.js';
