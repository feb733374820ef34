/**
 * A Lambda entry point built on its first invocation (the cold start), so importing its module
 * reads no environment and creates no client. A build that fails (a missing variable, a secret
 * Secrets Manager could not give) is tried again on the next invocation.
 */
export function builtOnFirstUse<A extends unknown[], R>(
  build: () => ((...args: A) => Promise<R>) | Promise<(...args: A) => Promise<R>>,
): (...args: A) => Promise<R> {
  let built: Promise<(...args: A) => Promise<R>> | undefined;
  return async (...args: A): Promise<R> => {
    built ??= Promise.resolve()
      .then(build)
      .catch((error: unknown) => {
        built = undefined;
        throw error;
      });
    return (await built)(...args);
  };
}
