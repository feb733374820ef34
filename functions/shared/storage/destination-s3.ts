/**
 * An S3 bucket (and optional prefix) as a `Destination`. Streamed writes go through
 * `@aws-sdk/lib-storage`'s `Upload`: one PutObject for small files, a multipart upload for
 * large ones; either way the object appears only when the upload completes, so readers
 * never see half a file, and an aborted write leaves no object and no orphaned parts.
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, Writable } from 'node:stream';
import { inKeyRange, probeKey, type Destination, type KeyRange, type PendingWrite } from './destination.js';
import { checkKey } from './destination-local.js';
import { normalisePrefix } from './destination-target.js';
import { DestinationError } from '../errors.js';

/** Multipart part size: the S3 minimum is 5 MiB; 8 MiB keeps parts few and memory small. */
export const PART_SIZE = 8 * 1024 * 1024;
/** Parts uploaded concurrently; memory use is about (queueSize + 1) × PART_SIZE. */
export const QUEUE_SIZE = 2;

export interface S3DestinationOptions {
  readonly bucket: string;
  /** Key prefix such as `exports/mintlify`; a trailing `/` is added when missing. */
  readonly prefix?: string;
  readonly client: S3Client;
}

export function createS3Destination(options: S3DestinationOptions): Destination {
  const { bucket, client } = options;
  const prefix = normalisePrefix(options.prefix ?? '');
  const keyOf = (key: string) => `${prefix}${checkKey(key)}`;

  /** Every key under a folder with its LastModified (inside `range`: S3 starts after its first bound, the pages stop past its last). */
  const listModified = async (listPrefix: string, range?: KeyRange): Promise<{ key: string; modified: number }[]> => {
    const target = keyOf(listPrefix.replace(/\/+$/, ''));
    const keys: { key: string; modified: number }[] = [];
    let token: string | undefined;
    const startAfter = range?.after === undefined ? {} : { StartAfter: keyOf(range.after) };
    try {
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: `${target}/`, ...(token ? { ContinuationToken: token } : startAfter) }),
        );
        for (const object of page.Contents ?? []) {
          if (!object.Key) continue;
          const key = object.Key.slice(prefix.length);
          // Keys come in order: the first past the range ends the listing.
          if (range?.before !== undefined && key >= range.before) return keys;
          if (inKeyRange(key, range)) keys.push({ key, modified: object.LastModified?.getTime() ?? 0 });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (error) {
      throw s3Failure('ListObjectsV2', bucket, `${target}/`, error);
    }
    return keys;
  };

  return {
    url: `s3://${bucket}${prefix === '' ? '' : `/${prefix.slice(0, -1)}`}`,

    async openWrite(key, writeOptions) {
      return pendingUpload(client, bucket, keyOf(key), writeOptions?.contentType);
    },

    async put(key, body, putOptions) {
      const target = keyOf(key);
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: target,
            Body: body,
            ...(putOptions?.contentType ? { ContentType: putOptions.contentType } : {}),
          }),
        );
      } catch (error) {
        throw s3Failure('PutObject', bucket, target, error);
      }
    },

    async get(key) {
      const target = keyOf(key);
      try {
        const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: target }));
        if (!response.Body) return new Uint8Array();
        return await response.Body.transformToByteArray();
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw s3Failure('GetObject', bucket, target, error);
      }
    },

    async exists(key) {
      const target = keyOf(key);
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: target }));
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw s3Failure('HeadObject', bucket, target, error);
      }
    },

    async delete(key) {
      const target = keyOf(key);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: target }));
      } catch (error) {
        if (isNotFound(error)) return;
        throw s3Failure('DeleteObject', bucket, target, error);
      }
    },

    async list(listPrefix, range) {
      return (await listModified(listPrefix, range)).map((object) => object.key);
    },

    listModified,

    async probe() {
      const key = probeKey();
      await this.put(key, 'probe', { contentType: 'text/plain' });
      if ((await this.get(key)) === undefined) {
        throw new DestinationError(
          `S3 probe of s3://${bucket}/${keyOf(key)} failed: the object just written cannot be read; check the bucket policy and the endpoint`,
        );
      }
      await this.delete(key);
    },
  };
}

/**
 * A streamed upload. `abort()` before the stream ends leaves nothing behind; once the caller
 * has ended the stream, a small object may already be on its way (a single PutObject cannot
 * be recalled), so end the stream only when you mean to commit.
 */
function pendingUpload(client: S3Client, bucket: string, key: string, contentType: string | undefined): PendingWrite {
  // `body` feeds the upload; `stream` is what callers write to. The split lets a failed
  // upload fail the writes waiting on back-pressure (a PassThrough that is destroyed never
  // calls them back, which would hang the writer forever).
  const body = new PassThrough();
  let bytes = 0;
  let failure: Error | undefined;
  let waiting: ((error?: Error) => void) | undefined;
  const failBody = (error: Error) => {
    failure ??= error;
    waiting?.(failure);
    if (!body.destroyed) body.destroy(failure);
  };
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (failure) return callback(failure);
      bytes += chunk.length;
      if (body.write(chunk)) return callback();
      waiting = (error) => {
        waiting = undefined;
        callback(error);
      };
      body.once('drain', () => waiting?.());
    },
    final(callback) {
      if (failure) return callback(failure);
      body.end();
      callback();
    },
    destroy(error, callback) {
      // Also runs after a normal finish (autoDestroy): only an early end fails the body.
      if (error || !this.writableFinished) failBody(error ?? new Error('write aborted'));
      callback(error);
    },
  });
  // Errors reach callers through write callbacks and commit(); without a listener an
  // 'error' event would crash the process.
  stream.on('error', () => undefined);
  body.on('error', () => undefined);

  const upload = new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: body, ...(contentType ? { ContentType: contentType } : {}) },
    partSize: PART_SIZE,
    queueSize: QUEUE_SIZE,
    leavePartsOnError: false,
  });
  const done = upload.done();
  const settled = done.then(
    () => undefined,
    (error: unknown) => failBody(error instanceof Error ? error : new Error(String(error))),
  );
  let state: 'open' | 'committing' | 'committed' | 'aborted' = 'open';

  return {
    stream,

    async commit() {
      if (state !== 'open') throw new DestinationError(`cannot commit s3://${bucket}/${key}: the write is already ${state}`);
      state = 'committing';
      if (!stream.writableEnded && !stream.destroyed) stream.end();
      try {
        await done;
        state = 'committed';
        return { bytes };
      } catch (error) {
        state = 'aborted';
        throw s3Failure('Upload', bucket, key, error);
      }
    },

    async abort() {
      if (state !== 'open') return;
      state = 'aborted';
      // Fail the body first and wait: lib-storage then aborts any multipart upload it began
      // (AbortMultipartUpload) before `done` settles, so no parts are left behind. Calling
      // upload.abort() first would settle `done` at once and leave that cleanup in flight.
      failBody(new Error('write aborted'));
      stream.destroy();
      await settled;
      await upload.abort();
    },
  };
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

function isNotFound(error: unknown): boolean {
  const name = error instanceof Error ? error.name : undefined;
  return name === 'NoSuchKey' || name === 'NotFound' || (statusOf(error) === 404 && name !== 'NoSuchBucket');
}

/** A message naming the bucket and key and what to check; never credentials. */
function s3Failure(operation: string, bucket: string, key: string, error: unknown): DestinationError {
  const name = error instanceof Error ? error.name : 'Error';
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : '';
  const hint = /region is missing/i.test(message)
    ? "no AWS region is set: set AWS_REGION to the bucket's region (e.g. AWS_REGION=us-east-1), or a region in the AWS profile"
    : name === 'CredentialsProviderError' || /could not load credentials/i.test(message)
      ? 'no AWS credentials were found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run with an IAM role'
      : name === 'NoSuchBucket'
        ? `check that bucket "${bucket}" exists`
        : name === 'AccessDenied' || status === 403
          ? `check the IAM permissions (s3:${operation === 'Upload' ? 'PutObject' : operation}) on s3://${bucket}/* and the bucket policy` +
            (operation === 'HeadObject' ? '; without s3:ListBucket, S3 answers 403 for a missing key' : '')
          : name === 'PermanentRedirect' || name === 'AuthorizationHeaderMalformed'
            ? `check the region: bucket "${bucket}" is in another one than the client's`
            : name === 'InvalidAccessKeyId' || name === 'SignatureDoesNotMatch' || name === 'ExpiredToken'
              ? 'the AWS credentials were refused: check AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (expired? another account?)'
              : status !== undefined && status >= 500
                ? 'S3 failed on its side; try again'
                : 'check the network path to S3 and the endpoint configuration';
  // The S3 error code (NoSuchBucket, AccessDenied) helps a search; a bare "Error" does not.
  const what = [name === 'Error' ? undefined : name, status].filter((part) => part !== undefined).join(' ');
  const detail = message ? clip(message) : '';
  const why = [what, detail].filter((part) => part !== '').join(': ');
  return new DestinationError(`S3 ${operation} of s3://${bucket}/${key} failed${why ? ` (${why})` : ''}; ${hint}`, { cause: error });
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
