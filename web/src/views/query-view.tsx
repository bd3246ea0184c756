/** Written by the explorer's next change. */
export function QueryView(_props: { active: boolean }) {
  return null;
}
