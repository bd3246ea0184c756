import { Worker } from 'node:worker_threads';

/**
 * Starts the worker module `name` (without extension) that sits beside the module at `callerUrl`: JavaScript when the
 * caller runs from dist/, TypeScript when it runs from src/ under tsx. Workers do not inherit tsx's loader on Node 20,
 * and `execArgv: ['--import', 'tsx']` fails the same way (tsx issue #354), so a TypeScript worker starts from a small
 * evaluated script that registers tsx's ESM hooks in the worker and then imports the module.
 */
export function startModuleWorker(callerUrl: string, name: string, workerData?: unknown): Worker {
  const typescript = callerUrl.endsWith('.ts');
  const url = new URL(`./${name}.${typescript ? 'ts' : 'js'}`, callerUrl);
  if (!typescript) return new Worker(url, { workerData });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** Whether the module at `url` runs as compiled JavaScript (from dist/) rather than TypeScript under tsx. */
export function runsCompiled(url: string): boolean {
  return !url.endsWith('.ts');
}
