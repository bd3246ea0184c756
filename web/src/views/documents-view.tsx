/** Written by the explorer's next change. */
export function DocumentsView(_props: { active: boolean }) {
  return null;
}
