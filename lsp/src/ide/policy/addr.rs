//! Address forms of `Allow from`/`Deny from` and `Require ip`, exactly as APR and httpd parse
//! and match them.
//!
//! Mirrors (APR 1.7.2 `network_io/unix/sockaddr.c`): `apr_ipsubnet_create`, `looks_like_ip`,
//! `parse_ip`, `parse_network`, `fix_subnet`, `apr_ipsubnet_test`, `apr_sockaddr_equal`; and APR's
//! own `inet_pton4`/`inet_pton6` (`network_io/unix/inet_pton.c`), including their quirks.
//! httpd side: `mod_access_compat.c: allow_cmd`, `in_domain`; `mod_authz_host.c: ip_parse_config`.
//!
//! Invariants:
//! * No IO, no DNS. Host names are matched against an already known (double-reverse) name.
//! * A subnet is a bitmask (network, mask) pair with host bits cleared; non-contiguous dotted
//!   masks are kept as such. [`IpSubnet::to_ipnet`] converts contiguous ones to `ipnet`.
//! * IPv4 subnets match IPv4 clients and IPv4-mapped IPv6 clients; IPv6 subnets match only
//!   native IPv6 clients. IPv4-mapped IPv6 literals are rejected when parsing.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

/// APR's failure kinds of `apr_ipsubnet_create`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrError {
    /// `APR_EINVAL`: does not look like an IP address at all (caller tries something else).
    NotAnIp,
    /// `APR_EBADIP`.
    BadIp,
    /// `APR_EBADMASK`.
    BadMask,
}

impl AddrError {
    /// `apr_strerror` text (what httpd prints through `%pm`).
    pub fn apr_message(self) -> &'static str {
        match self {
            AddrError::NotAnIp => "Invalid argument",
            AddrError::BadIp => "The specified IP address is invalid.",
            AddrError::BadMask => "The specified network mask is invalid.",
        }
    }
}

/// An `apr_ipsubnet_t`: network and mask (bitmask; host bits cleared).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IpSubnet {
    V4 { net: u32, mask: u32 },
    V6 { net: u128, mask: u128 },
}

/// APR's `inet_pton4` (BIND-derived): a full dotted quad, octets ≤ 255, leading zeros are
/// decimal (`010` = 10).
pub(crate) fn inet_pton4(src: &[u8]) -> Option<[u8; 4]> {
    let mut saw_digit = false;
    let mut octets = 0;
    let mut tmp = [0u8; 4];
    let mut tp = 0usize;
    for &ch in src {
        if ch.is_ascii_digit() {
            let new = tmp[tp] as u32 * 10 + (ch - b'0') as u32;
            if new > 255 {
                return None;
            }
            tmp[tp] = new as u8;
            if !saw_digit {
                octets += 1;
                if octets > 4 {
                    return None;
                }
                saw_digit = true;
            }
        } else if ch == b'.' && saw_digit {
            if octets == 4 {
                return None;
            }
            tp += 1;
            tmp[tp] = 0;
            saw_digit = false;
        } else {
            return None;
        }
    }
    if octets < 4 {
        return None;
    }
    Some(tmp)
}

/// APR's `inet_pton6`, bug-compatible: a lone trailing `:` is accepted, and `::` in an
/// otherwise full address zeroes it (the hand-written shift loop overwrites itself).
pub(crate) fn inet_pton6(src: &[u8]) -> Option<[u8; 16]> {
    let mut tmp = [0u8; 16];
    let endp = 16usize;
    let mut tp = 0usize;
    let mut colonp: Option<usize> = None;
    let mut i = 0usize;
    if src.first() == Some(&b':') {
        if src.get(1) != Some(&b':') {
            return None;
        }
        i = 1;
    }
    let mut curtok = i;
    let mut saw_xdigit = false;
    let mut val: u32 = 0;
    while i < src.len() {
        let ch = src[i];
        i += 1;
        if let Some(d) = (ch as char).to_digit(16) {
            val <<= 4;
            val |= d;
            if val > 0xffff {
                return None;
            }
            saw_xdigit = true;
            continue;
        }
        if ch == b':' {
            curtok = i;
            if !saw_xdigit {
                if colonp.is_some() {
                    return None;
                }
                colonp = Some(tp);
                continue;
            }
            if tp + 2 > endp {
                return None;
            }
            tmp[tp] = (val >> 8) as u8;
            tmp[tp + 1] = val as u8;
            tp += 2;
            saw_xdigit = false;
            val = 0;
            continue;
        }
        if ch == b'.' && tp + 4 <= endp {
            if let Some(v4) = inet_pton4(&src[curtok..]) {
                tmp[tp..tp + 4].copy_from_slice(&v4);
                tp += 4;
                saw_xdigit = false;
                break; // '\0' was seen by inet_pton4()
            }
        }
        return None;
    }
    if saw_xdigit {
        if tp + 2 > endp {
            return None;
        }
        tmp[tp] = (val >> 8) as u8;
        tmp[tp + 1] = val as u8;
        tp += 2;
    }
    if let Some(colonp) = colonp {
        let n = tp - colonp;
        for k in 1..=n {
            tmp[endp - k] = tmp[colonp + n - k];
            tmp[colonp + n - k] = 0;
        }
        tp = endp;
    }
    if tp != endp {
        return None;
    }
    Some(tmp)
}

/// glibc `atoi` = `(int) strtol(s, NULL, 10)`: the long is truncated to 32 bits.
fn c_atoi_digits(s: &[u8]) -> i32 {
    let mut v: i64 = 0;
    for &c in s {
        v = v.saturating_mul(10).saturating_add((c - b'0') as i64);
    }
    v as i32
}

/// APR `parse_network`: the legacy partial form `a`, `a.b`, `a.b.c` (trailing dot allowed).
fn parse_network(network: &[u8]) -> Result<(u32, u32), AddrError> {
    if network.len() > "255.255.255.255".len() {
        return Err(AddrError::BadIp);
    }
    let mut sub: u32 = 0;
    let mut mask: u32 = 0;
    let mut shift: i32 = 24;
    let mut s = 0usize;
    while s < network.len() {
        let mut t = s;
        if !network[t].is_ascii_digit() {
            return Err(AddrError::BadIp);
        }
        while t < network.len() && network[t].is_ascii_digit() {
            t += 1;
        }
        let digits = &network[s..t];
        if t < network.len() {
            if network[t] == b'.' {
                t += 1;
            } else {
                return Err(AddrError::BadIp);
            }
        }
        if shift < 0 {
            return Err(AddrError::BadIp);
        }
        let octet = c_atoi_digits(digits);
        if !(0..=255).contains(&octet) {
            return Err(AddrError::BadIp);
        }
        sub |= (octet as u32) << shift;
        mask |= 0xFFu32 << shift;
        s = t;
        shift -= 8;
    }
    Ok((sub, mask))
}

/// APR `looks_like_ip`: non-empty and (contains `:` or only digits and dots).
pub fn looks_like_ip(s: &str) -> bool {
    !s.is_empty() && (s.contains(':') || s.bytes().all(|b| b == b'.' || b.is_ascii_digit()))
}

/// C `strtol(s, &end, 10)`: returns the value (saturated) and whether `*end == '\0'`.
fn c_strtol_whole(s: &str) -> (i64, bool) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let digits_start = i;
    let mut v: i64 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add((b[i] - b'0') as i64);
        i += 1;
    }
    if i == digits_start {
        // No conversion: endptr = s.
        return (0, b.is_empty());
    }
    (if neg { -v } else { v }, i == b.len())
}

impl IpSubnet {
    /// `apr_ipsubnet_create(ipstr, mask_or_numbits)`.
    pub fn create(ip: &str, mask: Option<&str>) -> Result<IpSubnet, AddrError> {
        if !looks_like_ip(ip) {
            return Err(AddrError::NotAnIp);
        }
        // parse_ip
        let mut subnet = if let Some(v6) = inet_pton6(ip.as_bytes()) {
            let addr = Ipv6Addr::from(v6);
            if addr.to_ipv4_mapped().is_some() {
                // "apr_ipsubnet_test() assumes that we don't create IPv4-mapped IPv6 addresses"
                return Err(AddrError::BadIp);
            }
            IpSubnet::V6 { net: u128::from(addr), mask: u128::MAX }
        } else if let Some(v4) = inet_pton4(ip.as_bytes()) {
            IpSubnet::V4 { net: u32::from_be_bytes(v4), mask: u32::MAX }
        } else if mask.is_none() {
            let (net, mask) = parse_network(ip.as_bytes())?;
            IpSubnet::V4 { net, mask }
        } else {
            return Err(AddrError::BadIp);
        };
        if let Some(m) = mask {
            let maxbits = if matches!(subnet, IpSubnet::V6 { .. }) { 128 } else { 32 };
            let (bits, whole) = c_strtol_whole(m);
            if whole && bits > 0 && bits <= maxbits {
                match &mut subnet {
                    IpSubnet::V4 { mask, .. } => *mask = u32::MAX << (32 - bits),
                    IpSubnet::V6 { mask, .. } => *mask = if bits == 128 { u128::MAX } else { !(u128::MAX >> bits) },
                }
            } else {
                match (&mut subnet, inet_pton4(m.as_bytes())) {
                    (IpSubnet::V4 { mask, .. }, Some(dotted)) => *mask = u32::from_be_bytes(dotted),
                    _ => return Err(AddrError::BadMask),
                }
            }
        }
        // fix_subnet
        match &mut subnet {
            IpSubnet::V4 { net, mask } => *net &= *mask,
            IpSubnet::V6 { net, mask } => *net &= *mask,
        }
        Ok(subnet)
    }

    /// Parse one word `ip` or `ip/mask` (split at the first `/`, as httpd does).
    pub fn parse_word(word: &str) -> Result<IpSubnet, AddrError> {
        match word.split_once('/') {
            Some((ip, mask)) => IpSubnet::create(ip, Some(mask)),
            None => IpSubnet::create(word, None),
        }
    }

    /// `apr_ipsubnet_test(subnet, client)`.
    pub fn test(&self, client: IpAddr) -> bool {
        match (self, client) {
            (IpSubnet::V4 { net, mask }, IpAddr::V4(a)) => u32::from(a) & mask == *net,
            (_, IpAddr::V6(a)) if a.to_ipv4_mapped().is_some() => match self {
                IpSubnet::V4 { net, mask } => u32::from(a.to_ipv4_mapped().unwrap()) & mask == *net,
                IpSubnet::V6 { .. } => false,
            },
            (IpSubnet::V6 { net, mask }, IpAddr::V6(a)) => u128::from(a) & mask == *net,
            _ => false,
        }
    }

    /// Prefix length if the mask is contiguous.
    pub fn prefix_len(&self) -> Option<u8> {
        match *self {
            IpSubnet::V4 { mask, .. } => {
                let p = mask.leading_ones();
                (mask.checked_shl(p).unwrap_or(0) == 0).then_some(p as u8)
            }
            IpSubnet::V6 { mask, .. } => {
                let p = mask.leading_ones();
                (mask.checked_shl(p).unwrap_or(0) == 0).then_some(p as u8)
            }
        }
    }

    /// The same set as an `ipnet` network, if the mask is contiguous.
    pub fn to_ipnet(&self) -> Option<IpNet> {
        let p = self.prefix_len()?;
        match *self {
            IpSubnet::V4 { net, .. } => Ipv4Net::new(Ipv4Addr::from(net), p).ok().map(IpNet::V4),
            IpSubnet::V6 { net, .. } => Ipv6Net::new(Ipv6Addr::from(net), p).ok().map(IpNet::V6),
        }
    }
}

impl fmt::Display for IpSubnet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.to_ipnet(), self) {
            (Some(net), _) => write!(f, "{net}"),
            (None, IpSubnet::V4 { net, mask }) => {
                write!(f, "{}/{}", Ipv4Addr::from(*net), Ipv4Addr::from(*mask))
            }
            (None, IpSubnet::V6 { net, mask }) => {
                write!(f, "{}/{}", Ipv6Addr::from(*net), Ipv6Addr::from(*mask))
            }
        }
    }
}

/// `apr_sockaddr_equal` for two addresses (IPv4-mapped aware; scope ids are not modelled).
pub fn sockaddr_equal(a: IpAddr, b: IpAddr) -> bool {
    match (a, b) {
        (IpAddr::V4(x), IpAddr::V4(y)) => x == y,
        (IpAddr::V6(x), IpAddr::V6(y)) => x == y,
        (IpAddr::V4(x), IpAddr::V6(y)) | (IpAddr::V6(y), IpAddr::V4(x)) => y.to_ipv4_mapped() == Some(x),
    }
}

/// `in_domain(domain, what)` of mod_access_compat / mod_authz_host: case-insensitive suffix match
/// on a label boundary. True if `domain` equals `what`, or is a suffix of it and either
/// `domain` starts with `.` or the character before the suffix in `what` is `.`.
pub fn in_domain(domain: &str, what: &str) -> bool {
    let (d, w) = (domain.as_bytes(), what.as_bytes());
    if w.len() < d.len() {
        return false;
    }
    let off = w.len() - d.len();
    if !w[off..].eq_ignore_ascii_case(d) {
        return false;
    }
    if off == 0 {
        return true;
    }
    d.first() == Some(&b'.') || w[off - 1] == b'.'
}

/// One `Allow from`/`Deny from` word after classification (`mod_access_compat.c: allow_cmd`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostSpec {
    /// `env=NAME`: true when NAME is present in the request's env table.
    EnvPresent(String),
    /// `env=!NAME`: true when NAME is absent.
    EnvAbsent(String),
    /// `all`.
    All,
    /// An IP, partial IP, `net/bits`, `net/dotted-mask`, IPv6 or IPv6/bits.
    Ip(IpSubnet),
    /// A host name or domain suffix (double-reverse lookup + [`in_domain`]).
    Host(String),
}

impl HostSpec {
    /// Classify one word after `from`, in httpd's order: `env=!`, `env=`, `all`, contains `/`,
    /// looks like an IP, contains `#`, else host name. Errors are httpd's messages.
    pub fn parse(word: &str) -> Result<HostSpec, String> {
        let lower_starts =
            |p: &str| word.len() >= p.len() && word.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes());
        if lower_starts("env=!") {
            return Ok(HostSpec::EnvAbsent(word[5..].to_string()));
        }
        if lower_starts("env=") {
            return Ok(HostSpec::EnvPresent(word[4..].to_string()));
        }
        if word.eq_ignore_ascii_case("all") {
            return Ok(HostSpec::All);
        }
        if let Some((ip, mask)) = word.split_once('/') {
            return match IpSubnet::create(ip, Some(mask)) {
                Ok(s) => Ok(HostSpec::Ip(s)),
                Err(AddrError::NotAnIp) => Err("An IP address was expected".into()),
                Err(e) => Err(e.apr_message().into()),
            };
        }
        match IpSubnet::create(word, None) {
            Ok(s) => Ok(HostSpec::Ip(s)),
            Err(AddrError::NotAnIp) if word.contains('#') => Err("No comments are allowed here".into()),
            Err(AddrError::NotAnIp) => Ok(HostSpec::Host(word.to_string())),
            Err(e) => Err(e.apr_message().into()),
        }
    }
}

/// One word of `Require ip` (`mod_authz_host.c: ip_parse_config`), with httpd's messages.
pub fn parse_require_ip(word: &str) -> Result<IpSubnet, String> {
    IpSubnet::parse_word(word).map_err(|e| match e {
        AddrError::NotAnIp => format!("ip address '{word}' appears to be invalid"),
        e => format!("ip address '{word}' appears to be invalid: {}", e.apr_message()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(s: &str) -> IpAddr {
        IpAddr::V4(s.parse().unwrap())
    }
    fn v6(s: &str) -> IpAddr {
        IpAddr::V6(s.parse().unwrap())
    }
    fn sub(s: &str) -> IpSubnet {
        IpSubnet::parse_word(s).unwrap_or_else(|e| panic!("{s}: {e:?}"))
    }
    fn shown(s: &str) -> String {
        sub(s).to_string()
    }

    #[test]
    fn full_ipv4_is_slash_32_and_full_ipv6_is_slash_128() {
        assert_eq!(shown("10.1.2.3"), "10.1.2.3/32");
        assert_eq!(shown("fd00::2"), "fd00::2/128");
    }

    #[test]
    fn partial_ip_is_slash_8_16_24() {
        assert_eq!(shown("10"), "10.0.0.0/8");
        assert_eq!(shown("10.1"), "10.1.0.0/16");
        assert_eq!(shown("10.1.2"), "10.1.2.0/24");
    }

    #[test]
    fn partial_ip_trailing_dot_is_slash_24() {
        assert_eq!(shown("10.1.2."), "10.1.2.0/24");
        assert_eq!(shown("127.0."), "127.0.0.0/16");
    }

    #[test]
    fn full_ipv4_with_trailing_dot_is_accepted_by_the_partial_parser() {
        assert_eq!(shown("1.2.3.4."), "1.2.3.4/32");
    }

    #[test]
    fn leading_zero_octet_is_accepted_as_decimal() {
        assert_eq!(shown("010.1.2.3"), "10.1.2.3/32");
    }

    #[test]
    fn partial_octet_overflowing_int_wraps_like_atoi() {
        // parse_network uses atoi, which truncates strtol's long to int on glibc.
        assert_eq!(shown("4294967306"), "10.0.0.0/8");
    }

    #[test]
    fn invalid_ip_forms_are_bad_ip() {
        for w in ["1.2.3.4.5", "256.1", "10..1", "::zz", ".", "fe80::1%eth0", "1234567890123456"] {
            assert_eq!(IpSubnet::parse_word(w), Err(AddrError::BadIp), "{w}");
        }
    }

    #[test]
    fn ipv4_mapped_ipv6_literal_is_rejected() {
        assert_eq!(IpSubnet::parse_word("::ffff:1.2.3.4"), Err(AddrError::BadIp));
        assert_eq!(IpSubnet::parse_word("::ffff:127.0.0.1/104"), Err(AddrError::BadIp));
    }

    #[test]
    fn partial_ip_with_mask_is_bad_ip() {
        assert_eq!(IpSubnet::parse_word("127.0/16"), Err(AddrError::BadIp));
    }

    #[test]
    fn bad_masks() {
        for w in ["10.0.0.0/0", "10.0.0.0/33", "10.0.0.0/abc", "10.0.0.0/", "::1/255.0.0.0", "::/129", "::/0"] {
            assert_eq!(IpSubnet::parse_word(w), Err(AddrError::BadMask), "{w}");
        }
    }

    #[test]
    fn non_ip_before_slash_is_not_an_ip() {
        assert_eq!(IpSubnet::parse_word("foo.com/16"), Err(AddrError::NotAnIp));
        assert_eq!(IpSubnet::parse_word("a.b.c/8"), Err(AddrError::NotAnIp));
        assert_eq!(IpSubnet::parse_word("/8"), Err(AddrError::NotAnIp));
    }

    #[test]
    fn cidr_clears_host_bits() {
        assert_eq!(shown("127.0.0.1/31"), "127.0.0.0/31");
        assert!(sub("127.0.0.1/31").test(v4("127.0.0.0")));
        assert!(sub("127.0.0.1/31").test(v4("127.0.0.1")));
        assert!(!sub("127.0.0.1/31").test(v4("127.0.0.2")));
    }

    #[test]
    fn non_contiguous_dotted_mask_is_a_bitmask() {
        let s = sub("127.0.0.3/255.0.255.0");
        assert_eq!(s.to_string(), "127.0.0.0/255.0.255.0");
        assert!(s.prefix_len().is_none());
        assert!(s.test(v4("127.9.0.1")));
        assert!(!s.test(v4("127.9.1.1")));
    }

    #[test]
    fn netmask_cidr_and_partial_forms_are_the_same_set() {
        assert_eq!(sub("10.1.0.0/255.255.0.0"), sub("10.1.0.0/16"));
        assert_eq!(sub("10.1"), sub("10.1.0.0/16"));
    }

    #[test]
    fn ipv6_with_bits() {
        let s = sub("fd00::/64");
        assert!(s.test(v6("fd00::2")));
        assert!(!s.test(v6("fd01::2")));
        assert_eq!(s.to_ipnet().unwrap().to_string(), "fd00::/64");
    }

    #[test]
    fn ipv4_entries_match_ipv4_mapped_clients_ipv6_entries_only_native() {
        assert!(sub("127.0.0.1").test(v6("::ffff:127.0.0.1")));
        assert!(!sub("::/1").test(v6("::ffff:127.0.0.1")));
        assert!(sub("::1").test(v6("::1")));
        assert!(!sub("::1").test(v4("127.0.0.1")));
        assert!(!sub("127.0.0.1").test(v6("::1")));
    }

    #[test]
    fn apr_inet_pton6_quirks() {
        // A lone trailing colon is accepted by APR's copy of inet_pton6.
        assert_eq!(inet_pton6(b"1::2:").map(Ipv6Addr::from), Some("1::2".parse().unwrap()));
        // "::" with eight groups is zeroed by the self-overlapping shift loop.
        assert_eq!(inet_pton6(b"::1:2:3:4:5:6:7:8").map(Ipv6Addr::from), Some(Ipv6Addr::UNSPECIFIED));
        assert_eq!(inet_pton6(b"::1.2.3.4").map(Ipv6Addr::from), Some("::1.2.3.4".parse().unwrap()));
        assert_eq!(inet_pton6(b":1::"), None);
    }

    #[test]
    fn strtol_mask_accepts_sign_and_leading_space() {
        assert_eq!(sub("10.0.0.0/+8"), sub("10.0.0.0/8"));
        assert_eq!(sub("10.0.0.0/ 8"), sub("10.0.0.0/8"));
        assert_eq!(IpSubnet::parse_word("10.0.0.0/8 "), Err(AddrError::BadMask));
    }

    #[test]
    fn in_domain_suffix_rule() {
        assert!(in_domain("example.test", "a.example.test"));
        assert!(in_domain("example.test", "b.sub.example.test"));
        assert!(in_domain(".example.test", "a.example.test"));
        assert!(in_domain("sub.example.test", "b.sub.example.test"));
        assert!(!in_domain("sub.example.test", "a.example.test"));
        assert!(!in_domain("ample.test", "a.example.test"));
        assert!(in_domain("test", "a.example.test"));
        assert!(in_domain("localhost", "localhost"));
        assert!(!in_domain("host", "localhost"));
        assert!(!in_domain("calhost", "localhost"));
        assert!(!in_domain(".localhost", "localhost"));
        assert!(in_domain("LOCALHOST", "localhost"));
    }

    #[test]
    fn allow_from_classification_order() {
        assert_eq!(HostSpec::parse("env=!X"), Ok(HostSpec::EnvAbsent("X".into())));
        assert_eq!(HostSpec::parse("ENV=x"), Ok(HostSpec::EnvPresent("x".into())));
        assert_eq!(HostSpec::parse("env=a/b"), Ok(HostSpec::EnvPresent("a/b".into())));
        assert_eq!(HostSpec::parse("ALL"), Ok(HostSpec::All));
        assert_eq!(HostSpec::parse("foo.com/16"), Err("An IP address was expected".into()));
        assert_eq!(HostSpec::parse("127.0/16"), Err("The specified IP address is invalid.".into()));
        assert_eq!(HostSpec::parse("10.0.0.0/33"), Err("The specified network mask is invalid.".into()));
        assert_eq!(HostSpec::parse("1.2.3.4.5"), Err("The specified IP address is invalid.".into()));
        assert_eq!(HostSpec::parse("#"), Err("No comments are allowed here".into()));
        assert_eq!(HostSpec::parse("#c"), Err("No comments are allowed here".into()));
        assert_eq!(HostSpec::parse("example.test"), Ok(HostSpec::Host("example.test".into())));
        assert_eq!(HostSpec::parse("10.1."), Ok(HostSpec::Ip(sub("10.1.0.0/16"))));
    }

    #[test]
    fn require_ip_error_messages() {
        assert_eq!(parse_require_ip("foo"), Err("ip address 'foo' appears to be invalid".into()));
        assert_eq!(parse_require_ip("#"), Err("ip address '#' appears to be invalid".into()));
        assert_eq!(
            parse_require_ip("127.0/16"),
            Err("ip address '127.0/16' appears to be invalid: The specified IP address is invalid.".into())
        );
        assert_eq!(
            parse_require_ip("127.0.0.0/0"),
            Err("ip address '127.0.0.0/0' appears to be invalid: The specified network mask is invalid.".into())
        );
        assert_eq!(
            parse_require_ip("::ffff:127.0.0.1"),
            Err("ip address '::ffff:127.0.0.1' appears to be invalid: The specified IP address is invalid.".into())
        );
        assert!(parse_require_ip("127.1").is_ok());
        assert!(parse_require_ip("127.0.0.2/255.255.255.255").is_ok());
    }

    #[test]
    fn sockaddr_equal_is_v4_mapped_aware() {
        assert!(sockaddr_equal(v4("192.0.2.2"), v6("::ffff:192.0.2.2")));
        assert!(!sockaddr_equal(v4("192.0.2.2"), v6("::1")));
    }
}
