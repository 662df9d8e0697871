/**
 * Address safety (spec 2.12; issue item 2). Two checks:
 * 1. When a destination is saved: https only, port 443, a public host name. IP literals in
 *    every notation are refused (the WHATWG URL parser turns decimal, hex, octal and short
 *    IPv4 forms into dotted quads, so they are caught as IPs), and so are `localhost`, names
 *    under `.localhost`, `.local`, `.internal`, single-label names, names with an empty label
 *    (`localhost..`) and URLs with credentials.
 * 2. When a delivery connects: the name is resolved and every address is checked against
 *    the private, loopback, link-local, CGNAT, multicast, reserved and documentation ranges
 *    of both families (IPv4-mapped, IPv4-translated, NAT64 and 6to4 forms are unwrapped and
 *    checked as the IPv4 address they reach; see `embeddedV4`).
 *    The socket connects only to the address that was checked (a custom `lookup`), so a
 *    DNS answer that changes between check and connect (rebinding) gets nowhere.
 * The development setting `webhookAllowInsecure` (WEBHOOK_ALLOW_INSECURE) also allows
 * http://, any port and loopback targets (127.0.0.0/8, ::1, `localhost`); nothing else.
 */
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import type { ValidationIssue } from '../../core/errors.js';

export interface AddressPolicy {
  allowInsecure: boolean;
}

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * The IPv4-compatible range `::/96` (deprecated; `::` and `::1` are in it), tested with
 * Node's parser: ipaddr.js reads the text `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`,
 * and that is how glibc prints such an address.
 */
const IPV4_COMPATIBLE = new net.BlockList();
IPV4_COMPATIBLE.addSubnet('::', 96, 'ipv6');

/**
 * The IPv4 address an IPv6 address carries, where the carrier reaches it: IPv4-mapped
 * `::ffff:0:0/96` and IPv4-translated `::ffff:0:0:0/96` (last 32 bits), the NAT64 well-known
 * prefix `64:ff9b::/96` (last 32 bits), 6to4 `2002::/16` (bits 16-47). Not unwrapped, and so
 * refused whole: the local-use NAT64 prefix `64:ff9b:1::/48` (RFC 8215: where the IPv4
 * address sits depends on the operator's prefix length), Teredo (obfuscated) and `::/96`.
 */
function embeddedV4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = ip.toByteArray();
  switch (ip.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return new ipaddr.IPv4(bytes.slice(12));
    case 'rfc6052':
      return ip.match(NAT64_WELL_KNOWN) ? new ipaddr.IPv4(bytes.slice(12)) : null;
    case '6to4':
      return new ipaddr.IPv4(bytes.slice(2, 6));
    default:
      return null;
  }
}

/**
 * The address a connection to `address` reaches: the IPv4 address an IPv6 one carries, or
 * itself. Null when it is not an IP address, or is one of `::/96` but `::1`: never connected to.
 */
function destinationOf(address: string): Ip | null {
  if (net.isIP(address) === 0) return null;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return ip;
  const v6 = ip as ipaddr.IPv6;
  if (v6.range() !== 'loopback' && IPV4_COMPATIBLE.check(address.split('%')[0]!, 'ipv6')) return null;
  return embeddedV4(v6) ?? v6;
}

function isLoopback(address: string): boolean {
  return destinationOf(address)?.range() === 'loopback';
}

/**
 * Whether an IP address may be connected to: only global unicast, judged on the IPv4
 * address an IPv6 one carries. ipaddr.js names every special-purpose range of the IANA
 * registries (private, loopback, link-local, CGNAT, multicast, reserved, documentation,
 * benchmarking, discard, unique and site local, local-use NAT64, Teredo, AS112, AMT...) and
 * calls the rest `unicast`.
 */
export function isAllowedAddress(address: string, policy: AddressPolicy): boolean {
  const destination = destinationOf(address);
  if (destination === null) return false;
  if (policy.allowInsecure && destination.range() === 'loopback') return true;
  return destination.range() === 'unicast';
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
  if (url.protocol !== 'https:' && !(insecureOk && url.protocol === 'http:')) return issue(`deve usare https://${LOCAL_TESTING}`);
  if (url.port !== '' && !insecureOk) return issue(`deve usare la porta 443${LOCAL_TESTING}`);
  let host = url.hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  // One trailing dot is the DNS root (`localhost.` is `localhost`); any other empty label
  // (`localhost..`, `127.0.0.1..`, also spelled `%2E%2E`, which the URL parser decodes) makes
  // a name that is neither the IP nor the name it looks like to the checks below.
  if (host.split('.').includes('')) return issue("non è un nome host valido (contiene un'etichetta vuota: ..)");
  if (net.isIP(host) !== 0) {
    if (insecureOk && isLoopback(host)) return [];
    return issue(`deve indicare un nome host pubblico, non un indirizzo IP${LOCAL_TESTING}`);
  }
  if (host === 'localhost' || BLOCKED_SUFFIXES.some((s) => host.endsWith(s))) {
    if (insecureOk && (host === 'localhost' || host.endsWith('.localhost'))) return [];
    return issue(`deve indicare un nome host pubblico, non locale o interno${LOCAL_TESTING}`);
  }
  if (!host.includes('.')) return issue('deve indicare un nome host completo (con dominio)');
  return [];
}

/** Added to a refusal of an http://, loopback or local destination: how to test webhooks locally. */
const LOCAL_TESTING =
  ' (per provare i webhook sul proprio computer: `dental-clinic listen --forward-to http://localhost:4000/hooks` inoltra, firmati, gli eventi di uno studio di prova)';

class AddressRefusedError extends Error {
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
