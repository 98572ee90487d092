/** What {@link thrownText} returns for a thrown value that cannot be read at all. */
const UNREADABLE = 'a thrown value that cannot be read';

/**
 * The name and message of something a user's function threw or rejected with, for a span's
 * status and `error.type`: an `Error`'s own, any other value's `String()`. Never throws: a value
 * with no string form (`Object.create(null)`, a revoked Proxy, a throwing `toString`, `name` or
 * `message`) reads as {@link UNREADABLE}, so that recording a failure never replaces the value a
 * caller gets with an error of ours. Reads each property once; copies nothing.
 */
export function thrownText(error: unknown): { name: string; message: string } {
  try {
    if (error instanceof Error) {
      const name: unknown = error.name;
      const message: unknown = error.message;
      return {
        name: typeof name === 'string' && name !== '' ? name : 'Error',
        message: typeof message === 'string' ? message : String(message),
      };
    }
    return { name: 'Error', message: String(error) };
  } catch {
    return { name: 'Error', message: UNREADABLE };
  }
}
