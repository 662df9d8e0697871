/**
 * Address safety (spec 2.12; issue item 2). Two checks:
 * 1. When a destination is saved: https only, port 443, a public host name. IP literals in
 *    every notation are refused (the WHATWG URL parser turns decimal, hex, octal and short
 *    IPv4 forms into dotted quads, so they are caught as IPs), and so are `localhost`, names
 *    under `.localhost`, `.local`, `.internal`, single-label names and URLs with credentials.
 * 2. When a delivery connects: the name is resolved and every address is checked against
 *    the private, loopback, link-local, CGNAT, multicast, reserved and documentation ranges
 *    of both families (IPv4-mapped, NAT64 and 6to4 forms are unwrapped and checked as IPv4).
 *    The socket connects only to the address that was checked (a custom `lookup`), so a
 *    DNS answer that changes between check and connect (rebinding) gets nowhere.
 * The development setting `webhookAllowInsecure` (WEBHOOK_ALLOW_INSECURE) also allows
 * http://, any port and loopback targets (127.0.0.0/8, ::1, `localhost`); nothing else.
 */
import dns from 'node:dns';
import net from 'node:net';
import type { ValidationIssue } from '../core/errors.js';

export interface AddressPolicy {
  allowInsecure: boolean;
}

const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const BLOCKED_V6: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback, IPv4-compatible (deprecated)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking...)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const blockedV4 = new net.BlockList();
for (const [a, p] of BLOCKED_V4) blockedV4.addSubnet(a, p, 'ipv4');
const blockedV6 = new net.BlockList();
for (const [a, p] of BLOCKED_V6) blockedV6.addSubnet(a, p, 'ipv6');

/** The 16 bytes of an IPv6 address (any valid textual form). */
function v6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const groups: number[] = [];
  const expand = (part: string): number[] => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (g.includes('.')) {
        const o = g.split('.').map(Number);
        out.push((o[0]! << 8) | o[1]!, (o[2]! << 8) | o[3]!);
      } else out.push(parseInt(g, 16));
    }
    return out;
  };
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = expand(head);
  const t = tail === undefined ? [] : expand(tail);
  const zeros = tail === undefined ? 0 : 8 - h.length - t.length;
  groups.push(...h, ...new Array(zeros).fill(0), ...t);
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/** The IPv4 address an IPv6 address carries (mapped, NAT64 well-known prefix, 6to4), if any. */
function embeddedV4(bytes: number[]): string | null {
  const isZero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  // ::ffff:a.b.c.d (IPv4-mapped)
  if (isZero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12).join('.');
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && isZero(4, 12)) return bytes.slice(12).join('.');
  // 2002:aabb:ccdd::/48 (6to4)
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6).join('.');
  return null;
}

function isLoopback(address: string): boolean {
  if (net.isIPv4(address)) return address.startsWith('127.');
  if (net.isIPv6(address)) {
    const b = v6Bytes(address);
    if (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) return true;
    const v4 = embeddedV4(b);
    return v4 !== null && v4.startsWith('127.');
  }
  return false;
}

/** Whether an IP address may be connected to. */
export function isAllowedAddress(address: string, policy: AddressPolicy): boolean {
  if (policy.allowInsecure && isLoopback(address)) return true;
  if (net.isIPv4(address)) return !blockedV4.check(address, 'ipv4');
  if (net.isIPv6(address)) {
    const bytes = v6Bytes(address);
    const v4 = embeddedV4(bytes);
    if (v4 !== null) return isAllowedAddress(v4, policy);
    return !blockedV6.check(address.split('%')[0]!, 'ipv6');
  }
  return false;
}

const BLOCKED_SUFFIXES = ['.localhost', '.local', '.internal'];

/** Checks a destination URL as it is saved; returns the problems (empty: acceptable). */
export function checkEndpointUrl(raw: string, policy: AddressPolicy, path = 'url'): ValidationIssue[] {
  const issue = (message: string) => [{ path, message }];
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return issue('non è un URL valido');
  }
  if (url.username !== '' || url.password !== '' || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw)) {
    return issue('non può contenere credenziali (utente:password@)');
  }
  const insecureOk = policy.allowInsecure;
  if (url.protocol !== 'https:' && !(insecureOk && url.protocol === 'http:')) return issue('deve usare https://');
  if (url.port !== '' && !insecureOk) return issue('deve usare la porta 443');
  let host = url.hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (net.isIP(host) !== 0) {
    if (insecureOk && isLoopback(host)) return [];
    return issue('deve indicare un nome host pubblico, non un indirizzo IP');
  }
  if (host === 'localhost' || BLOCKED_SUFFIXES.some((s) => host.endsWith(s))) {
    if (insecureOk && (host === 'localhost' || host.endsWith('.localhost'))) return [];
    return issue('deve indicare un nome host pubblico, non locale o interno');
  }
  if (!host.includes('.')) return issue('deve indicare un nome host completo (con dominio)');
  return [];
}

export class AddressRefusedError extends Error {
  readonly code = 'EADDRREFUSED_DCM';
  constructor(host: string) {
    super(`refused to connect to ${host}: not a public address`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect: resolves the name, refuses it when any address is not
 * public, and hands the socket exactly the addresses that were checked.
 */
export function safeLookup(policy: AddressPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, []);
      if (addresses.length === 0 || addresses.some((a) => !isAllowedAddress(a.address, policy))) {
        return callback(new AddressRefusedError(hostname) as unknown as NodeJS.ErrnoException, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
