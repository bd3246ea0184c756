/** Where the generated types live, relative to the checkout. */
export declare const generatedApiTypesPath: string;
/** The TypeScript source of the types of an OpenAPI document, or undefined without openapi-typescript (a production install). */
export declare function apiTypesSource(document: Record<string, unknown>): Promise<string | undefined>;
