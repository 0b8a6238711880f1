//! UUIDs kept as numbers, so that indexes of them stay small.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A UUID stored as a number; printed in the canonical 8-4-4-4-12 form.
///
/// Kept as two `u64` (high, low) rather than a `u128`: the same order, but 8-byte
/// alignment, so an `Option<Uuid>` in every event takes 24 bytes, not 32.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uuid([u64; 2]);

impl Uuid {
    /// The UUID of a 128-bit number.
    pub fn from_u128(value: u128) -> Uuid {
        Uuid([(value >> 64) as u64, value as u64])
    }

    /// The 128-bit number.
    pub fn as_u128(&self) -> u128 {
        (u128::from(self.0[0]) << 64) | u128::from(self.0[1])
    }

    /// Parses a canonical UUID (either case).
    pub fn parse(s: &str) -> Option<Uuid> {
        if !evacdoc_parsers::text::is_uuid(s) {
            return None;
        }
        let mut value = 0u128;
        for b in s.bytes().filter(|b| *b != b'-') {
            value = (value << 4) | u128::from(hex_digit(b)?);
        }
        Some(Uuid::from_u128(value))
    }

    /// Parses an oslo request id (`req-<uuid>`).
    pub fn parse_request_id(s: &str) -> Option<Uuid> {
        Uuid::parse(s.strip_prefix("req-")?)
    }

    /// The `req-<uuid>` form of a request id.
    pub fn request_id(&self) -> String {
        format!("req-{self}")
    }
}

fn hex_digit(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.as_u128();
        write!(
            f,
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            (v >> 96) as u32,
            (v >> 80) as u16,
            (v >> 64) as u16,
            (v >> 48) as u16,
            v & 0xffff_ffff_ffff
        )
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for Uuid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Uuid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Uuid, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Uuid::parse(&text).ok_or_else(|| serde::de::Error::custom(format!("not a UUID: {text}")))
    }
}
