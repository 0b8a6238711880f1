//! The webhook signature: HMAC-SHA256 of the body with the shared secret, sent as
//! `X-Evacdoc-Signature: sha256=<hex>`, so that a receiver can trust a POST.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The header the signature goes in.
pub const SIGNATURE_HEADER: &str = "X-Evacdoc-Signature";

/// The header value for `body` signed with `secret`.
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    // HMAC takes keys of any length.
    let mut mac = match <Hmac<Sha256> as KeyInit>::new_from_slice(secret) {
        Ok(mac) => mac,
        Err(_) => return String::new(),
    };
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Whether `header` is the signature of `body` with `secret` (compared in constant time).
pub fn verify(secret: &[u8], body: &[u8], header: &str) -> bool {
    let Some(hex_sig) = header.strip_prefix("sha256=") else {
        return false;
    };
    let Ok(sig) = hex::decode(hex_sig) else {
        return false;
    };
    let Ok(mut mac) = <Hmac<Sha256> as KeyInit>::new_from_slice(secret) else {
        return false;
    };
    mac.update(body);
    mac.verify_slice(&sig).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_as_rfc_4231_test_case_2_and_verifies() {
        // RFC 4231, test case 2.
        let sig = sign(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            sig,
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert!(verify(b"Jefe", b"what do ya want for nothing?", &sig));
        assert!(!verify(b"Jefe", b"what do ya want for nothing!", &sig));
        assert!(!verify(b"jefe", b"what do ya want for nothing?", &sig));
        assert!(!verify(b"Jefe", b"what do ya want for nothing?", "sha1=00"));
    }
}
