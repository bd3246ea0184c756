import { randomBytes } from 'node:crypto';

const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A job id unique across servers, in the shape of a ULID (https://github.com/ulid/spec): 10 characters of the time
 * in milliseconds, then 16 random ones, Crockford's base 32 — ids of later jobs sort later, and two servers never
 * hand out the same one. Randomness is injected for tests.
 */
export function newJobId(now: () => number = Date.now, random: (bytes: number) => Uint8Array = randomBytes): string {
  let time = now();
  let head = '';
  for (let index = 0; index < 10; index += 1) {
    head = (crockford[time % 32] as string) + head;
    time = Math.floor(time / 32);
  }
  const tail = [...random(16)].map((byte) => crockford[byte % 32] as string).join('');
  return `job-${head}${tail}`;
}
