// A small HTTP shim between the S3 client and s3rver, started by the tests. It
// - injects faults (error answers, stalls, cut connections) chosen per request;
// - emulates what s3rver 3.7.1 lacks and the backend relies on: `If-None-Match: *` on
//   PutObject and CompleteMultipartUpload (s3rver overwrites), AbortMultipartUpload,
//   ListMultipartUploads and ListParts (s3rver answers 405/501), and the paging of
//   ListObjectsV2 (s3rver makes its continuation tokens with DES, which the OpenSSL 3 of
//   Node 20 lacks, so any truncated V2 listing answers 500): V2 listings are answered from
//   s3rver's V1 listing, with the last key as the continuation token;
// - logs every request, so tests can count ranged GETs.
// Conditional requests (If-None-Match on writes, If-Match on DeleteObject) are emulated
// with a HEAD then the request, under a per-key lock, so they are atomic as on S3.
import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** One request as the shim saw it. */
export interface ShimRequest {
  readonly method: string;
  readonly bucket: string;
  /** The decoded key, or `''` for a bucket-level request. */
  readonly key: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
}

/** What to do instead of forwarding a request. */
export type Fault =
  | { readonly kind: 'error'; readonly status: number; readonly code: string }
  /** Accept the request and never answer. */
  | { readonly kind: 'stall' }
  /** Destroy the connection without answering. */
  | { readonly kind: 'cut' };

interface TrackedUpload {
  readonly bucket: string;
  readonly key: string;
  initiated: Date;
  readonly parts: Map<number, number>;
}

function xmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${String(c.charCodeAt(0))};`);
}

function unescapeXml(text: string): string {
  return text.replace(/&(#(\d+)|amp|lt|gt|quot|apos);/g, (_m, name: string, code: string | undefined) => {
    if (code !== undefined) return String.fromCharCode(Number(code));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[name] ?? '';
  });
}

function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

/** The shim; {@link S3Shim.start} it in front of an s3rver endpoint. */
export class S3Shim {
  /** The endpoint to give the S3 client. */
  readonly endpoint: string;
  /** Picks a fault for a request; `undefined` forwards it. */
  fault: ((request: ShimRequest) => Fault | undefined) | undefined;
  /** Every request, in arrival order. */
  readonly log: ShimRequest[] = [];
  /** Multipart uploads started through the shim and neither completed nor aborted. */
  readonly uploads = new Map<string, TrackedUpload>();

  readonly #server: http.Server;
  readonly #upstream: URL;
  readonly #sockets = new Set<Socket>();
  readonly #locks = new Map<string, Promise<void>>();

  private constructor(server: http.Server, endpoint: string, upstream: URL) {
    this.#server = server;
    this.endpoint = endpoint;
    this.#upstream = upstream;
  }

  /** Starts a shim on 127.0.0.1 (a random port) forwarding to `upstream`. */
  static async start(upstream: string): Promise<S3Shim> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const shim = new S3Shim(server, `http://127.0.0.1:${String(port)}`, new URL(upstream));
    server.on('connection', (socket: Socket) => {
      shim.#sockets.add(socket);
      socket.on('close', () => shim.#sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      shim.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) shim.#error(res, 500, 'InternalError', String(error));
        else res.destroy();
      });
    });
    return shim;
  }

  /** Ranged GETs of `key` seen so far. */
  rangedGets(key?: string): ShimRequest[] {
    return this.log.filter((r) => r.method === 'GET' && typeof r.headers.range === 'string' && (key === undefined || r.key === key));
  }

  /** Stops the shim, cutting every open connection (stalled ones included). */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }

  #error(res: ServerResponse, status: number, code: string, message = code): void {
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`;
    res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  #xml(res: ServerResponse, body: string): void {
    const text = `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
    res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  /** The object's ETag upstream, or undefined when there is none. */
  async #etag(bucket: string, key: string): Promise<string | undefined> {
    return new Promise<string | undefined>((resolve, reject) => {
      const probe = http.request(new URL(`/${bucket}/${encodeKey(key)}`, this.#upstream), { method: 'HEAD' }, (answer) => {
        answer.resume();
        const etag = answer.headers.etag;
        resolve(answer.statusCode === 200 ? (etag ?? '') : undefined);
      });
      probe.on('error', reject);
      probe.end();
    });
  }

  /** Runs `fn` with the key's lock held. */
  async #locked(id: string, fn: () => Promise<void>): Promise<void> {
    const before = this.#locks.get(id) ?? Promise.resolve();
    let release = (): void => undefined;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const chain = before.then(() => mine);
    this.#locks.set(id, chain);
    await before;
    try {
      await fn();
    } finally {
      release();
      if (this.#locks.get(id) === chain) this.#locks.delete(id);
    }
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://shim');
    const [, bucket = '', ...rest] = url.pathname.split('/');
    const key = rest.map(decodeURIComponent).join('/');
    const method = req.method ?? 'GET';
    const request: ShimRequest = { method, bucket, key, query: url.searchParams, headers: req.headers };
    this.log.push(request);

    const fault = this.fault?.(request);
    if (fault !== undefined) {
      req.resume();
      if (fault.kind === 'error') this.#error(res, fault.status, fault.code);
      else if (fault.kind === 'cut') req.socket.destroy();
      return; // 'stall': never answer
    }

    const q = url.searchParams;
    const uploadId = q.get('uploadId');
    // Multipart bookkeeping s3rver lacks.
    if (method === 'GET' && key === '' && q.has('uploads')) {
      const prefix = q.get('prefix') ?? '';
      const items = [...this.uploads.entries()]
        .filter(([, u]) => u.bucket === bucket && u.key.startsWith(prefix))
        .map(([id, u]) => `<Upload><Key>${xmlEscape(u.key)}</Key><UploadId>${id}</UploadId><Initiated>${u.initiated.toISOString()}</Initiated></Upload>`);
      req.resume();
      this.#xml(res, `<ListMultipartUploadsResult><Bucket>${bucket}</Bucket><IsTruncated>false</IsTruncated>${items.join('')}</ListMultipartUploadsResult>`);
      return;
    }
    if (method === 'GET' && key === '' && q.get('list-type') === '2') {
      req.resume();
      await this.#listV2(res, bucket, q);
      return;
    }
    if (uploadId !== null && key !== '' && (method === 'DELETE' || (method === 'GET' && !q.has('partNumber')))) {
      req.resume();
      const upload = this.uploads.get(uploadId);
      if (upload === undefined) {
        this.#error(res, 404, 'NoSuchUpload');
        return;
      }
      if (method === 'DELETE') {
        this.uploads.delete(uploadId);
        res.writeHead(204);
        res.end();
        return;
      }
      const parts = [...upload.parts.entries()].map(([n, size]) => `<Part><PartNumber>${String(n)}</PartNumber><Size>${String(size)}</Size></Part>`);
      this.#xml(res, `<ListPartsResult><Bucket>${bucket}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${uploadId}</UploadId><IsTruncated>false</IsTruncated>${parts.join('')}</ListPartsResult>`);
      return;
    }
    // The conditional requests s3rver does not enforce.
    const isPut = method === 'PUT' && uploadId === null && key !== '' && req.headers['x-amz-copy-source'] === undefined;
    const isComplete = method === 'POST' && uploadId !== null;
    const ifNoneMatch = (isPut || isComplete) && req.headers['if-none-match'] === '*';
    const ifMatch = method === 'DELETE' && uploadId === null && typeof req.headers['if-match'] === 'string' ? req.headers['if-match'] : undefined;
    if (method === 'PUT' && uploadId !== null) {
      const upload = this.uploads.get(uploadId);
      upload?.parts.set(Number(q.get('partNumber')), Number(req.headers['content-length'] ?? 0));
    }
    const forward = (): Promise<void> => this.#forward(req, res, method === 'POST' && q.has('uploads') ? { bucket, key } : undefined, isComplete ? uploadId : undefined);
    if (!ifNoneMatch && ifMatch === undefined) {
      await forward();
      return;
    }
    await this.#locked(`${bucket}/${key}`, async () => {
      const etag = await this.#etag(bucket, key);
      if (ifNoneMatch && etag !== undefined) {
        req.resume();
        this.#error(res, 412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
        return;
      }
      if (ifMatch !== undefined && etag === undefined) {
        req.resume();
        this.#error(res, 404, 'NoSuchKey', 'The specified key does not exist.');
        return;
      }
      if (ifMatch !== undefined && ifMatch !== etag && ifMatch !== '*') {
        req.resume();
        this.#error(res, 412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
        return;
      }
      await forward();
    });
  }

  async #listV2(res: ServerResponse, bucket: string, q: URLSearchParams): Promise<void> {
    const token = q.get('continuation-token');
    const upstream = new URL(`/${bucket}`, this.#upstream);
    upstream.searchParams.set('prefix', q.get('prefix') ?? '');
    upstream.searchParams.set('max-keys', q.get('max-keys') ?? '1000');
    const marker = token === null ? q.get('start-after') : Buffer.from(token, 'base64url').toString('utf8');
    if (marker !== null) upstream.searchParams.set('marker', marker);
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(upstream, (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (c: Buffer) => chunks.push(c));
          answer.on('end', () => {
            resolve({ status: answer.statusCode ?? 502, body: Buffer.concat(chunks).toString('utf8') });
          });
          answer.on('error', reject);
        })
        .on('error', reject);
    });
    if (status !== 200) {
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(body);
      return;
    }
    const contents = body.match(/<Contents>[\s\S]*?<\/Contents>/g) ?? [];
    const truncated = /<IsTruncated>true<\/IsTruncated>/.test(body);
    const lastKey = /<Key>([^<]*)<\/Key>/.exec(contents[contents.length - 1] ?? '')?.[1];
    const next = truncated && lastKey !== undefined ? `<NextContinuationToken>${Buffer.from(unescapeXml(lastKey), 'utf8').toString('base64url')}</NextContinuationToken>` : '';
    this.#xml(
      res,
      `<ListBucketResult><Name>${bucket}</Name><Prefix>${xmlEscape(q.get('prefix') ?? '')}</Prefix><KeyCount>${String(contents.length)}</KeyCount><IsTruncated>${String(truncated)}</IsTruncated>${next}${contents.join('')}</ListBucketResult>`,
    );
  }

  #forward(req: IncomingMessage, res: ServerResponse, creating: { bucket: string; key: string } | undefined, completing: string | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const upstream = http.request(
        new URL(req.url ?? '/', this.#upstream),
        { method: req.method, headers: req.headers },
        (answer) => {
          if (creating === undefined) {
            if (completing !== undefined && answer.statusCode === 200) this.uploads.delete(completing);
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            answer.on('end', resolve);
            answer.on('error', reject);
            return;
          }
          const chunks: Buffer[] = [];
          answer.on('data', (c: Buffer) => chunks.push(c));
          answer.on('error', reject);
          answer.on('end', () => {
            const body = Buffer.concat(chunks);
            const id = /<UploadId>([^<]+)<\/UploadId>/.exec(body.toString('utf8'))?.[1];
            if (id !== undefined) this.uploads.set(id, { ...creating, initiated: new Date(), parts: new Map() });
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(body);
            resolve();
          });
        },
      );
      upstream.on('error', (error) => {
        res.destroy();
        reject(error);
      });
      req.on('aborted', () => upstream.destroy());
      req.pipe(upstream);
    });
  }
}
