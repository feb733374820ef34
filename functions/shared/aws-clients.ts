/**
 * What every AWS SDK client the project builds shares: timeouts. The SDK's HTTP handler has
 * none by default, so a service (or an emulator, a proxy) that accepts a connection and never
 * answers holds the call forever — a Publish to the outcomes topic would keep the consumer past
 * its message's visibility timeout, and the message would be handled twice.
 *
 * - `connectionTimeout`: the TCP (and TLS) connection is made within 5 s;
 * - `socketTimeout`: the socket is never idle for more than 10 s — a request still sending its
 *   body or a response still arriving is not idle, so a slow upload of a large part is fine;
 * - `requestTimeout`: the request is sent and its answer has begun within 60 s
 *   (`throwOnRequestTimeout`: an error the SDK retries, not a warning).
 *
 * The SDK retries a timeout like any network error (3 attempts by default): a call that never
 * answers fails within about 35 s. Build clients as `new SNSClient(awsClientConfig({...}))`.
 */

/** The SDK HTTP handler settings every client gets (`requestHandler`). */
export const AWS_REQUEST_HANDLER = {
  connectionTimeout: 5_000,
  socketTimeout: 10_000,
  requestTimeout: 60_000,
  throwOnRequestTimeout: true,
} as const;

/** A client's configuration with the shared request handler; `config` may set its own. */
export function awsClientConfig<const T extends object>(config: T = {} as T): T & { readonly requestHandler: typeof AWS_REQUEST_HANDLER } {
  return { requestHandler: AWS_REQUEST_HANDLER, ...config };
}
