/**
 * One action on several sessions (pause, resume, destroy of marked rows; the same commands
 * given several ids): each is tried in turn, through the client's one budget, and a failure
 * on one does not stop the rest. The results come back in the order the sessions were given.
 */
export type EachResult<T> =
  | { sessionId: string; ok: true; value: T }
  | { sessionId: string; ok: false; error: unknown };

export async function actOnEach<T>(
  sessionIds: readonly string[],
  act: (sessionId: string) => Promise<T>,
  onResult?: (r: EachResult<T>) => void,
): Promise<EachResult<T>[]> {
  const results: EachResult<T>[] = [];
  for (const sessionId of sessionIds) {
    let r: EachResult<T>;
    try {
      r = { sessionId, ok: true, value: await act(sessionId) };
    } catch (error) {
      r = { sessionId, ok: false, error };
    }
    results.push(r);
    onResult?.(r);
  }
  return results;
}
