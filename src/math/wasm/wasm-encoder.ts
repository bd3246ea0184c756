import { appendAll } from '../../core/append-all.js';

/*
 * A minimal WebAssembly binary encoder: just enough of the module format (WebAssembly Core
 * Specification 2.0, §5 "Binary Format") to emit kgrag's numeric kernels at load time — a type, import
 * (memory only), function, export and code section, with LEB128 integers. Generating the bytes in code
 * keeps the kernels readable in TypeScript and avoids both a WAT toolchain and committed binaries.
 */

/** Value types of the WebAssembly binary format (§5.3.1). */
export const valueType = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, v128: 0x7b } as const;

/** One of {@link valueType}'s codes. */
export type ValueType = (typeof valueType)[keyof typeof valueType];

/** A function of the module; its index is its position in {@link WasmModuleDefinition.functions}. */
export interface WasmFunctionDefinition {
  /** Exported under this name when set. */
  exportName?: string;
  params: readonly ValueType[];
  results: readonly ValueType[];
  /** Locals after the parameters (they are numbered from `params.length`). */
  locals: readonly ValueType[];
  /** The instruction sequence, without the closing `end`. */
  body: Uint8Array;
}

/** A linear memory the module imports from its host. */
export interface WasmMemoryImport {
  module: string;
  name: string;
  minimumPages: number;
  /** Required for shared memories. */
  maximumPages?: number;
  /** A shared memory (threads proposal), whose buffer is a SharedArrayBuffer usable from several workers. */
  shared?: boolean;
}

/** Everything {@link encodeWasmModule} can express. */
export interface WasmModuleDefinition {
  memoryImport?: WasmMemoryImport;
  functions: readonly WasmFunctionDefinition[];
}

/** Appends `value` (a non-negative integer below 2³²) as unsigned LEB128. */
export function writeUnsignedLeb128(out: number[], value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`writeUnsignedLeb128: ${value} is not a u32`);
  let rest = value;
  do {
    const byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
    out.push(rest === 0 ? byte : byte | 0x80);
  } while (rest !== 0);
}

/** Appends `value` (an integer in the i32 range) as signed LEB128. */
export function writeSignedLeb128(out: number[], value: number): void {
  if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) throw new RangeError(`writeSignedLeb128: ${value} is not an i32`);
  let rest = value;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    const signBitClear = (byte & 0x40) === 0;
    if ((rest === 0 && signBitClear) || (rest === -1 && !signBitClear)) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

function writeName(out: number[], name: string): void {
  const bytes = new TextEncoder().encode(name);
  writeUnsignedLeb128(out, bytes.length);
  for (const byte of bytes) out.push(byte);
}

function writeSection(out: number[], id: number, content: readonly number[]): void {
  out.push(id);
  writeUnsignedLeb128(out, content.length);
  for (const byte of content) out.push(byte);
}

const sectionId = { type: 1, import: 2, function: 3, export: 7, code: 10 } as const;
const externalKind = { function: 0x00, memory: 0x02 } as const;

/** Encodes a module; validate the result with `WebAssembly.validate` before compiling it. */
export function encodeWasmModule(definition: WasmModuleDefinition): Uint8Array<ArrayBuffer> {
  const out: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

  // One type per distinct signature, in order of first use.
  const signatures: string[] = [];
  const typeSection: number[] = [];
  const functionTypeIndices: number[] = [];
  for (const definedFunction of definition.functions) {
    const signature = `${definedFunction.params.join(',')}->${definedFunction.results.join(',')}`;
    let typeIndex = signatures.indexOf(signature);
    if (typeIndex === -1) {
      typeIndex = signatures.length;
      signatures.push(signature);
    }
    functionTypeIndices.push(typeIndex);
  }
  writeUnsignedLeb128(typeSection, signatures.length);
  for (const signature of signatures) {
    const [params = '', results = ''] = signature.split('->');
    const paramTypes = params === '' ? [] : params.split(',').map(Number);
    const resultTypes = results === '' ? [] : results.split(',').map(Number);
    typeSection.push(0x60);
    writeUnsignedLeb128(typeSection, paramTypes.length);
    appendAll(typeSection, paramTypes);
    writeUnsignedLeb128(typeSection, resultTypes.length);
    appendAll(typeSection, resultTypes);
  }
  writeSection(out, sectionId.type, typeSection);

  const memory = definition.memoryImport;
  if (memory) {
    const importSection: number[] = [];
    writeUnsignedLeb128(importSection, 1);
    writeName(importSection, memory.module);
    writeName(importSection, memory.name);
    importSection.push(externalKind.memory);
    if (memory.shared && memory.maximumPages === undefined) throw new RangeError('encodeWasmModule: a shared memory needs maximumPages');
    // Limits flags: bit 0 = has maximum, bit 1 = shared.
    importSection.push((memory.maximumPages === undefined ? 0 : 1) | (memory.shared ? 2 : 0));
    writeUnsignedLeb128(importSection, memory.minimumPages);
    if (memory.maximumPages !== undefined) writeUnsignedLeb128(importSection, memory.maximumPages);
    writeSection(out, sectionId.import, importSection);
  }

  const functionSection: number[] = [];
  writeUnsignedLeb128(functionSection, functionTypeIndices.length);
  for (const typeIndex of functionTypeIndices) writeUnsignedLeb128(functionSection, typeIndex);
  writeSection(out, sectionId.function, functionSection);

  const exported = definition.functions.flatMap((definedFunction, index) =>
    definedFunction.exportName === undefined ? [] : [{ name: definedFunction.exportName, index }],
  );
  const exportSection: number[] = [];
  writeUnsignedLeb128(exportSection, exported.length);
  for (const entry of exported) {
    writeName(exportSection, entry.name);
    exportSection.push(externalKind.function);
    writeUnsignedLeb128(exportSection, entry.index);
  }
  writeSection(out, sectionId.export, exportSection);

  const codeSection: number[] = [];
  writeUnsignedLeb128(codeSection, definition.functions.length);
  for (const definedFunction of definition.functions) {
    const body: number[] = [];
    // Locals are declared as runs of one type.
    const runs: Array<{ type: ValueType; count: number }> = [];
    for (const type of definedFunction.locals) {
      const last = runs[runs.length - 1];
      if (last && last.type === type) last.count++;
      else runs.push({ type, count: 1 });
    }
    writeUnsignedLeb128(body, runs.length);
    for (const run of runs) {
      writeUnsignedLeb128(body, run.count);
      body.push(run.type);
    }
    for (const byte of definedFunction.body) body.push(byte);
    body.push(0x0b);
    writeUnsignedLeb128(codeSection, body.length);
    for (const byte of body) codeSection.push(byte);
  }
  writeSection(out, sectionId.code, codeSection);

  return Uint8Array.from(out);
}
