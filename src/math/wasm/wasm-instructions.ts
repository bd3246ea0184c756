import { writeSignedLeb128, writeUnsignedLeb128 } from './wasm-encoder.js';

/*
 * Writes WebAssembly instruction bytes (Core Specification 2.0 §5.4, plus the fixed-width SIMD opcodes
 * of §5.4.8): only the instructions kgrag's kernels use. Every method appends one instruction and returns
 * the writer, so code reads top to bottom like the WAT it stands for.
 */

/** The `0xfd` prefix of fixed-width SIMD instructions, each followed by a LEB128 sub-opcode. */
const simdPrefix = 0xfd;
/** Block type of a block, loop or if without results. */
const emptyBlockType = 0x40;
/** log2 of the natural alignment of each access width, the default `align` of a memarg. */
const alignment = { i32: 2, f32: 2, f64: 3, v128: 4 } as const;

/** Builds the body of one function; pass {@link InstructionWriter.toBytes} to the module encoder. */
export class InstructionWriter {
  private readonly bytes: number[] = [];

  toBytes(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }

  private op(code: number): this {
    this.bytes.push(code);
    return this;
  }

  private simd(code: number): this {
    this.bytes.push(simdPrefix);
    writeUnsignedLeb128(this.bytes, code);
    return this;
  }

  /** A lane instruction: the sub-opcode, then the lane index as one byte. */
  private simdLane(code: number, lane: number): this {
    this.simd(code);
    this.bytes.push(lane);
    return this;
  }

  private memarg(align: number, offset: number): this {
    writeUnsignedLeb128(this.bytes, align);
    writeUnsignedLeb128(this.bytes, offset);
    return this;
  }

  // Control (§5.4.1). Branch depths count enclosing blocks outwards from 0.
  block(): this {
    return this.op(0x02).op(emptyBlockType);
  }
  loop(): this {
    return this.op(0x03).op(emptyBlockType);
  }
  end(): this {
    return this.op(0x0b);
  }
  br(depth: number): this {
    this.op(0x0c);
    writeUnsignedLeb128(this.bytes, depth);
    return this;
  }
  brIf(depth: number): this {
    this.op(0x0d);
    writeUnsignedLeb128(this.bytes, depth);
    return this;
  }

  /**
   * `while (condition) body`: `condition` must leave one i32 on the stack. Inside `body`, depth 0 is the
   * loop (continue) and depth 1 the enclosing block (break).
   */
  whileLoop(condition: () => void, body: () => void): this {
    this.block().loop();
    condition();
    this.i32Eqz().brIf(1);
    body();
    this.br(0).end().end();
    return this;
  }

  // Variables (§5.4.4).
  localGet(index: number): this {
    this.op(0x20);
    writeUnsignedLeb128(this.bytes, index);
    return this;
  }
  localSet(index: number): this {
    this.op(0x21);
    writeUnsignedLeb128(this.bytes, index);
    return this;
  }
  localTee(index: number): this {
    this.op(0x22);
    writeUnsignedLeb128(this.bytes, index);
    return this;
  }

  // Memory (§5.4.6). `offset` is the constant byte offset added to the address operand.
  i32Load(offset = 0): this {
    return this.op(0x28).memarg(alignment.i32, offset);
  }
  f32Store(offset = 0): this {
    return this.op(0x38).memarg(alignment.f32, offset);
  }
  f64Load(offset = 0): this {
    return this.op(0x2b).memarg(alignment.f64, offset);
  }
  f64Store(offset = 0): this {
    return this.op(0x39).memarg(alignment.f64, offset);
  }

  // Numeric (§5.4.7).
  i32Const(value: number): this {
    this.op(0x41);
    writeSignedLeb128(this.bytes, value);
    return this;
  }
  i32Eqz(): this {
    return this.op(0x45);
  }
  i32LtS(): this {
    return this.op(0x48);
  }
  i32LeS(): this {
    return this.op(0x4c);
  }
  i32Add(): this {
    return this.op(0x6a);
  }
  i32Mul(): this {
    return this.op(0x6c);
  }
  i32Shl(): this {
    return this.op(0x74);
  }
  i32And(): this {
    return this.op(0x71);
  }
  f32Add(): this {
    return this.op(0x92);
  }
  i32Sub(): this {
    return this.op(0x6b);
  }
  f64Abs(): this {
    return this.op(0x99);
  }
  f64Add(): this {
    return this.op(0xa0);
  }
  f64Sub(): this {
    return this.op(0xa1);
  }
  f64Mul(): this {
    return this.op(0xa2);
  }
  f64Const(value: number): this {
    this.op(0x44);
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, value, true);
    for (let byte = 0; byte < 8; byte++) this.bytes.push(view.getUint8(byte));
    return this;
  }

  // Vector (§5.4.8).
  v128Load(offset = 0): this {
    return this.simd(0x00).memarg(alignment.v128, offset);
  }
  v128Store(offset = 0): this {
    return this.simd(0x0b).memarg(alignment.v128, offset);
  }
  v128ConstZero(): this {
    this.simd(0x0c);
    for (let byte = 0; byte < 16; byte++) this.bytes.push(0);
    return this;
  }
  f32x4ExtractLane(lane: number): this {
    return this.simdLane(0x1f, lane);
  }
  /** Loads 8 bytes into the low half of a vector, zeroing the high half. */
  v128Load64Zero(offset = 0): this {
    return this.simd(0x5d).memarg(alignment.f64, offset);
  }
  /** The two low f32 lanes widened to an f64x2 (exact). */
  f64x2PromoteLowF32x4(): this {
    return this.simd(0x5f);
  }
  f64x2Splat(): this {
    return this.simd(0x14);
  }
  f64x2ExtractLane(lane: number): this {
    return this.simdLane(0x21, lane);
  }
  f64x2Add(): this {
    return this.simd(0xf0);
  }
  f64x2Mul(): this {
    return this.simd(0xf2);
  }
  f32x4Add(): this {
    return this.simd(0xe4);
  }
  f32x4Mul(): this {
    return this.simd(0xe6);
  }
}
