/** Written by the explorer's next change. */
export function CompareView(_props: { active: boolean }) {
  return null;
}
