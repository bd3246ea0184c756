/** Written by the explorer's next change. */
export function EvaluationView(_props: { active: boolean }) {
  return null;
}
