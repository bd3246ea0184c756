/*
 * The generated kernel modules of math/wasm/ are built and compiled once per process (per builder), and a module the
 * engine does not validate (no SIMD) is remembered as null, so its caller takes its JavaScript path from then on.
 * Process-wide on purpose: compiled code never changes, and there is one entry per builder (a handful).
 */

const compiled = new Map<() => Uint8Array<ArrayBuffer>, WebAssembly.Module | null>();

/** The module `build` makes, compiled on first use; null when this engine rejects its bytes. */
export function compiledWasmModule(build: () => Uint8Array<ArrayBuffer>): WebAssembly.Module | null {
  let module = compiled.get(build);
  if (module === undefined) {
    const bytes = build();
    module = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
    compiled.set(build, module);
  }
  return module;
}

const pageBytes = 65536;
/** Memories past this size are not asked for; their callers keep the data in JavaScript instead. */
const maximumMemoryBytes = 2 ** 31;

/** A memory of at least `bytes` that never grows (views into it stay valid), or undefined when it is too large or refused. */
export function fixedWasmMemory(bytes: number): WebAssembly.Memory | undefined {
  if (bytes > maximumMemoryBytes) return undefined;
  try {
    return new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / pageBytes)) });
  } catch {
    return undefined;
  }
}
