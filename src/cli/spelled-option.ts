/**
 * How the user wrote an option for one of its values — `-p`, `--param` — so that a message about the value
 * names the flag that was typed: `-p x`, `-px`, `--param x` or `--param=x`. Falls back to `short/long`
 * when the value cannot be found in the arguments.
 */
export function spelledOption(args: readonly string[], value: string, short: string, long: string): string {
  for (const [index, arg] of args.entries()) {
    if ((arg === short || arg === long) && args[index + 1] === value) return arg;
    if (arg === `${long}=${value}`) return long;
    if (arg === `${short}${value}`) return short;
  }
  return `${short}/${long}`;
}
