import type { EmbeddingModel as AnyEmbeddingModel, LanguageModel as AnyLanguageModel } from 'ai';

/*
 * The AI SDK's model specification types, taken from `ai`'s own unions so that kgrag needs no direct dependency
 * on `@ai-sdk/provider` (the package that declares them): whatever version `ai` was built against is the one used.
 */

/** An AI SDK language model of specification v3 (`@ai-sdk/provider`'s `LanguageModelV3`): what every AI SDK 6 provider returns. */
export type SdkLanguageModel = Extract<AnyLanguageModel, { specificationVersion: 'v3' }>;
/** An AI SDK language model of the previous specification (AI SDK 5 providers). */
export type SdkLanguageModelV2 = Extract<AnyLanguageModel, { specificationVersion: 'v2' }>;
/** The options of one `doGenerate`/`doStream` call. */
export type SdkCallOptions = Parameters<SdkLanguageModel['doGenerate']>[0];
/** What `doGenerate` resolves to. */
export type SdkGenerateResult = Awaited<ReturnType<SdkLanguageModel['doGenerate']>>;
/** What `doStream` resolves to. */
export type SdkStreamResult = Awaited<ReturnType<SdkLanguageModel['doStream']>>;
/** One part of a `doStream` stream. */
export type SdkStreamPart = SdkStreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
/** Token usage as the v3 specification reports it. */
export type SdkUsage = SdkGenerateResult['usage'];
/** Why generation stopped, as the v3 specification reports it. */
export type SdkFinishReason = SdkGenerateResult['finishReason'];
/** Provider-specific metadata of a reply, by provider key. */
export type SdkProviderMetadata = NonNullable<SdkGenerateResult['providerMetadata']>;
/** An AI SDK middleware over a v3 language model (`LanguageModelV3Middleware`). */
export type { LanguageModelMiddleware as SdkLanguageModelMiddleware } from 'ai';

/** An AI SDK embedding model of specification v3 (`EmbeddingModelV3`). */
export type SdkEmbeddingModel = Extract<AnyEmbeddingModel, { specificationVersion: 'v3' }>;
/** An AI SDK embedding model of the previous specification. */
export type SdkEmbeddingModelV2 = Extract<AnyEmbeddingModel, { specificationVersion: 'v2' }>;
