/**
 * Views a CDK class instance as its interface. aws-cdk-lib's classes declare optional members
 * as `T | undefined` where its interfaces say `T?`, which `exactOptionalPropertyTypes` rejects;
 * the runtime objects are the same.
 */
export function asInterface<I>(instance: unknown): I {
  return instance as I;
}
