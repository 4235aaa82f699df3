// A query word that is a record's own name (a package, a file, an id) outranks records that
// hold it only inside a longer name or in their description: `openssl` finds the openssl
// package's line of a `dpkg -l` listing first, not `perl-openssl-defaults`.
import { sessionId } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { describe, expect, it } from 'vitest';
import { createSpillSearch } from './index.js';
import { parseQuery } from './query.js';
import { fieldScore } from './snippet.js';
import { saveText as save } from '@spillway/test-support/save-text';

/** Lines of `dpkg -l` on Debian 12 that mention ssl, ssh, curl, gnutls or xmlsec. */
const DPKG_LINES = [
  "ii  curl                                      7.88.1-10+deb12u14                  amd64        command line tool for transferring ",
  "ii  libcurl3-gnutls:amd64                     7.88.1-10+deb12u14                  amd64        easy-to-use client-side URL transfe",
  "ii  libcurl3-nss:amd64                        7.88.1-10+deb12u14                  amd64        easy-to-use client-side URL transfe",
  "ii  libcurl4:amd64                            7.88.1-10+deb12u14                  amd64        easy-to-use client-side URL transfe",
  "ii  libflac12:amd64                           1.4.2+ds-2                          amd64        Free Lossless Audio Codec - runtime",
  "ii  libgnutls-dane0:amd64                     3.7.9-2+deb12u6                     amd64        GNU TLS library - DANE security sup",
  "ii  libgnutls-openssl27:amd64                 3.7.9-2+deb12u6                     amd64        GNU TLS library - OpenSSL wrapper",
  "ii  libgnutls28-dev:amd64                     3.7.9-2+deb12u6                     amd64        GNU TLS library - development files",
  "ii  libgnutls30:amd64                         3.7.9-2+deb12u6                     amd64        GNU TLS library - main runtime libr",
  "ii  libgnutlsxx30:amd64                       3.7.9-2+deb12u6                     amd64        GNU TLS library - C++ runtime libra",
  "ii  libio-socket-ssl-perl                     2.081-2                             all          Perl module implementing object ori",
  "ii  libnet-smtp-ssl-perl                      1.04-2                              all          Perl module providing SSL support t",
  "ii  libnet-ssleay-perl:amd64                  1.92-2+b1                           amd64        Perl module for Secure Sockets Laye",
  "ii  libssh2-1:amd64                           1.10.0-3+b1                         amd64        SSH2 client-side library",
  "ii  libssl-dev:amd64                          3.0.19-1~deb12u2                    amd64        Secure Sockets Layer toolkit - deve",
  "ii  libssl3:amd64                             3.0.19-1~deb12u2                    amd64        Secure Sockets Layer toolkit - shar",
  "ii  libxmlsec1:amd64                          1.2.37-2                            amd64        XML security library",
  "ii  libxmlsec1-dev                            1.2.37-2                            amd64        Development files for the XML secur",
  "ii  libxmlsec1-gcrypt:amd64                   1.2.37-2                            amd64        Gcrypt engine for the XML security ",
  "ii  libxmlsec1-gnutls:amd64                   1.2.37-2                            amd64        Gnutls engine for the XML security ",
  "ii  libxmlsec1-nss:amd64                      1.2.37-2                            amd64        Nss engine for the XML security lib",
  "ii  libxmlsec1-openssl:amd64                  1.2.37-2                            amd64        Openssl engine for the XML security",
  "ii  libzstd1:amd64                            1.5.4+dfsg2-5                       amd64        fast lossless compression algorithm",
  "ii  openssh-client                            1:9.2p1-2+deb12u6                   amd64        secure shell (SSH) client, for secu",
  "ii  openssl                                   3.0.19-1~deb12u2                    amd64        Secure Sockets Layer toolkit - cryp",
  "ii  osslsigncode                              2.9-1~bpo12+1                       amd64        Authenticode signing tool",
  "ii  perl-openssl-defaults:amd64               7+b1                                amd64        version compatibility baseline for ",
  "ii  python3-openssl                           23.0.0-1                            all          Python 3 wrapper around the OpenSSL",
  "ii  ssl-cert                                  1.1.2                               all          simple debconf wrapper for OpenSSL",
  "ii  zstd                                      1.5.4+dfsg2-5                       amd64        fast lossless compression algorithm",
];

/** Other packages around them, as a long listing has. */
const filler = (i: number): string => `ii  libfiller${String(i)}:amd64`.padEnd(46) + `${String(i)}.0-1`.padEnd(36) + 'amd64        a library that does something else';

describe('whole-field ranking', () => {
  it('finds the openssl package line first in a dpkg -l listing', async () => {
    const listing = [...Array.from({ length: 400 }, (_, i) => filler(i)), ...DPKG_LINES, ...Array.from({ length: 400 }, (_, i) => filler(400 + i))];
    const backend = createMemoryBackend();
    const s = sessionId('s');
    await save(backend, s, `${listing.join('\n')}\n`);
    const searcher = createSpillSearch({ reader: backend.reader, catalog: backend.catalog });
    const answer = await searcher.search({ query: 'openssl', sessionId: s, maxResults: 5, maxBytes: 4096 });
    expect(answer.hits[0]?.text).toMatch(/^ii {2}openssl /m);
    await searcher.close();
  });

  it('scores a term that is a whole field, more the earlier the field', () => {
    const { terms } = parseQuery('openssl');
    const w = [1];
    expect(fieldScore('ii  openssl  3.0.19  amd64', terms, w)).toBe(0.5);
    expect(fieldScore('ii  perl-openssl-defaults:amd64  7', terms, w)).toBe(0);
    expect(fieldScore('{"name": "openssl",', terms, w)).toBe(0.5);
    expect(fieldScore('openssl', terms, w)).toBe(1);
    expect(fieldScore('wrapper for OpenSSL.', terms, w)).toBeCloseTo(1 / 3);
    const pair = parseQuery('libreoffice-core version').terms;
    expect(fieldScore('ii  libreoffice-core  4:7.4  amd64  office productivity suite', pair, [1, 1])).toBe(0.5);
  });
});

describe('a hyphenated name with a word the target lacks', () => {
  it('finds the libreoffice-core line first among 32 outputs that say "version" everywhere else', async () => {
    const listing = [...Array.from({ length: 300 }, (_, i) => filler(i)), 'ii  libreoffice-core                          4:7.4.7-1+deb12u9                   amd64        office productivity suite -- arch-dependent files', ...Array.from({ length: 300 }, (_, i) => filler(300 + i))];
    const backend = createMemoryBackend();
    const s = sessionId('s');
    // Outputs of --version, lockfiles and package metadata: "version" on most lines, and
    // "core" and "libre" as parts of other names.
    for (let o = 0; o < 31; o++) {
      const lines = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? `  /@spillway/core-${String(o)}-${String(i)}:\n    version: ${String(o)}.${String(i)}.0` : `tool-${String(o)}-${String(i)} version ${String(i)}.0 (libre build, core ${String(o)})`));
      await save(backend, s, `${lines.join('\n')}\n`);
    }
    await save(backend, s, `${listing.join('\n')}\n`);
    const searcher = createSpillSearch({ reader: backend.reader, catalog: backend.catalog });
    for (const query of ['libreoffice-core version', 'libreoffice version', 'libreoffice-core']) {
      const answer = await searcher.search({ query, sessionId: s, maxResults: 5, maxBytes: 4096 });
      expect(answer.hits[0]?.text, query).toMatch(/^ii {2}libreoffice-core /m);
    }
    await searcher.close();
  });
});
