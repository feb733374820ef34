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
 * answers fails within about 35 s. Build clients as `new SNSClient(awsClientConfig({...}))`,
 * SQS clients as `new SQSClient(sqsClientConfig({...}))`: a ReceiveMessage long poll keeps its
 * socket idle for up to 20 s (`MAX_LONG_POLL_SECONDS`), so their idle limit is longer.
 */

/** The longest ReceiveMessage wait SQS allows (WaitTimeSeconds), seconds. */
export const MAX_LONG_POLL_SECONDS = 20;

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

/** The SDK HTTP handler settings of SQS clients: idle up to a whole long poll and 10 s more. */
export const SQS_REQUEST_HANDLER = { ...AWS_REQUEST_HANDLER, socketTimeout: MAX_LONG_POLL_SECONDS * 1_000 + 10_000 } as const;

/** An SQS client's configuration with the shared request handler, long polls allowed for. */
export function sqsClientConfig<const T extends object>(config: T = {} as T): T & { readonly requestHandler: typeof SQS_REQUEST_HANDLER } {
  return { requestHandler: SQS_REQUEST_HANDLER, ...config };
}
