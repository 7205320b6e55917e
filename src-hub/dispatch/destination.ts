/**
 * Where the Hub may send a business request (docs/business-systems.md, "Where the Hub may send").
 *
 * - Only `http:` and `https:` base URLs, without credentials in them.
 * - `https:` for every host that is not loopback (`localhost`, 127.0.0.0/8, ::1), unless the admin
 *   registered the system with `allow_insecure_http`.
 * - Never a link-local or cloud-metadata address (169.254.0.0/16, fe80::/10, fd00:ec2::254,
 *   100.100.100.200, metadata.google.internal), the unspecified address or multicast — checked on
 *   the URL at registration and again on every address a host name resolves to, right before
 *   connecting (a name pointing at 169.254.169.254 is refused at dispatch too, and so is a name
 *   that resolves away from loopback for plain http).
 */
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';

export const DESTINATION_REFUSAL_CODES = [
  'url_scheme_refused',
  'insecure_http_refused',
  'destination_refused',
] as const;
export type DestinationRefusalCode = (typeof DESTINATION_REFUSAL_CODES)[number];

export interface DestinationRefusal {
  code: DestinationRefusalCode;
  message: string;
}

const refused = new BlockList();
refused.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local; 169.254.169.254 is the usual metadata address
refused.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
refused.addSubnet('0.0.0.0', 8, 'ipv4'); // "this network": 0.0.0.0 reaches the local host
refused.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
refused.addAddress('255.255.255.255', 'ipv4');
refused.addSubnet('fe80::', 10, 'ipv6'); // link-local
refused.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
refused.addAddress('::', 'ipv6');
refused.addSubnet('ff00::', 8, 'ipv6'); // multicast

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const REFUSED_NAMES = new Set(['metadata.google.internal', 'metadata.goog']);

/** The IPv4 address an IPv6 address carries (::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d), if any. */
function embeddedV4(ip: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (m?.[1]) return m[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (!hex?.[1] || !hex[2]) return null;
  const a = parseInt(hex[1], 16);
  const b = parseInt(hex[2], 16);
  return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
}

const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

function inList(list: BlockList, ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) return list.check(ip, 'ipv4');
  if (v === 6) {
    const v4 = embeddedV4(ip);
    return v4 !== null ? list.check(v4, 'ipv4') : list.check(ip, 'ipv6');
  }
  return false;
}

/** Why an address (or host name) may never be a destination, or null. */
export function refusedAddress(host: string): string | null {
  const h = bare(host).replace(/\.$/, '');
  if (REFUSED_NAMES.has(h)) return 'a cloud metadata host';
  if (isIP(h) && inList(refused, h)) return 'a link-local, metadata, unspecified or multicast address';
  return null;
}

export function isLoopbackAddress(ip: string): boolean {
  return inList(loopback, bare(ip));
}

/** Loopback by its name alone: `localhost`, a `.localhost` name, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = bare(host).replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || isLoopbackAddress(h);
}

/** Answers of checkBaseUrl by URL: it depends on nothing else, and every request asks it again. */
const checked = new Map<string, DestinationRefusal | null>();
const CHECKED_MAX = 1_000;

/** The URL checks done at registration (and again before every request). */
export function checkBaseUrl(raw: string, allowInsecureHttp: boolean): DestinationRefusal | null {
  const key = `${allowInsecureHttp ? 1 : 0}${raw}`;
  const known = checked.get(key);
  if (known !== undefined) return known;
  const answer = checkUrl(raw, allowInsecureHttp);
  if (checked.size >= CHECKED_MAX) checked.clear();
  checked.set(key, answer);
  return answer;
}

function checkUrl(raw: string, allowInsecureHttp: boolean): DestinationRefusal | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { code: 'url_scheme_refused', message: 'the base URL is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return {
      code: 'url_scheme_refused',
      message: `the base URL's scheme ${url.protocol} is refused: only http and https`,
    };
  if (url.username || url.password)
    return { code: 'url_scheme_refused', message: 'the base URL must not carry credentials' };
  const why = refusedAddress(url.hostname);
  if (why) return { code: 'destination_refused', message: `the base URL's host is ${why}` };
  if (url.protocol === 'http:' && !allowInsecureHttp && !isLoopbackHost(url.hostname))
    return {
      code: 'insecure_http_refused',
      message:
        'plain http is allowed only to a loopback host; use https, or register the system with allow_insecure_http: true',
    };
  return null;
}

/** The warning shown with a system that uses plain http to a host that is not loopback, or null. */
export function insecureHttpWarning(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  return url.protocol === 'http:' && !isLoopbackHost(url.hostname)
    ? 'allow_insecure_http: requests, signatures and answers travel in clear to a host that is not loopback'
    : null;
}

/** The error a guarded look-up fails with (its `code` tells it apart from DNS failures). */
export class DestinationRefusedError extends Error {
  readonly code = 'EDESTINATIONREFUSED';
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request that resolves as usual, then refuses the connection when any
 * address is refused, or — for plain http that is allowed only to loopback — when any is not
 * loopback. Nothing is written before it answers, so a refusal is a request that never left.
 */
export function guardedLookup(opts: { loopbackOnly: boolean }) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses;
      const bad = list.find((a) => refusedAddress(a.address) !== null);
      if (bad) return callback(new DestinationRefusedError(`${hostname} resolves to a refused address`), []);
      if (opts.loopbackOnly && list.some((a) => !isLoopbackAddress(a.address)))
        return callback(
          new DestinationRefusedError(
            `${hostname} resolves beyond loopback; plain http is not allowed there`,
          ),
          [],
        );
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
