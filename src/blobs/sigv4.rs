//! AWS Signature Version 4 for S3 requests (path-style, headers signed: host,
//! x-amz-content-sha256, x-amz-date), as documented in "Signature Version 4 signing
//! process"; the test checks it against the documentation's GET example.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

/// The hash of an empty payload.
pub(crate) const EMPTY_SHA256: &str =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// What a request is signed with.
#[derive(Debug, Clone)]
pub(crate) struct Signer<'a> {
    pub access_key: &'a str,
    pub secret_key: &'a str,
    pub region: &'a str,
}

/// One request to sign: `path` and `query` already encoded as sent (the query's pairs
/// in any order, each `key=value` with both RFC 3986-encoded).
#[derive(Debug)]
pub(crate) struct ToSign<'a> {
    pub method: &'a str,
    pub host: &'a str,
    pub path: &'a str,
    pub query: &'a [(String, String)],
    pub payload_sha256: &'a str,
    /// `YYYYMMDDTHHMMSSZ`.
    pub amz_date: &'a str,
    /// Headers signed besides host, x-amz-content-sha256 and x-amz-date (lowercase).
    pub extra_headers: &'a [(&'a str, &'a str)],
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    // A key of any length is accepted by HMAC; the error arm cannot be taken.
    match <Hmac<Sha256> as KeyInit>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(data.as_bytes());
            mac.finalize().into_bytes().to_vec()
        }
        Err(_) => Vec::new(),
    }
}

/// The canonical query string: pairs sorted by key then value, joined by `&`.
pub(crate) fn canonical_query(query: &[(String, String)]) -> String {
    let mut pairs: Vec<_> = query
        .iter()
        .map(|(k, v)| (super::key::encode(k), super::key::encode(v)))
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

impl Signer<'_> {
    /// The `Authorization` header of `request`.
    pub(crate) fn authorization(&self, request: &ToSign<'_>) -> String {
        let date = request.amz_date.get(..8).unwrap_or(request.amz_date);
        let mut headers: Vec<(&str, &str)> = vec![
            ("host", request.host),
            ("x-amz-content-sha256", request.payload_sha256),
            ("x-amz-date", request.amz_date),
        ];
        headers.extend_from_slice(request.extra_headers);
        headers.sort();
        let signed_headers = headers
            .iter()
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
            .join(";");
        let header_lines: String = headers
            .iter()
            .map(|(name, value)| format!("{name}:{}\n", value.trim()))
            .collect();
        let canonical = format!(
            "{}\n{}\n{}\n{header_lines}\n{signed_headers}\n{}",
            request.method,
            request.path,
            canonical_query(request.query),
            request.payload_sha256,
        );
        let scope = format!("{date}/{}/s3/aws4_request", self.region);
        let to_sign = format!(
            "AWS4-HMAC-SHA256\n{}\n{scope}\n{}",
            request.amz_date,
            sha256_hex(canonical.as_bytes())
        );
        let mut key = hmac(format!("AWS4{}", self.secret_key).as_bytes(), date);
        for part in [self.region, "s3", "aws4_request"] {
            key = hmac(&key, part);
        }
        let signature = hex::encode(hmac(&key, &to_sign));
        format!(
            "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed_headers}, Signature={signature}",
            self.access_key
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "Example: GET Object" of the S3 documentation (Signature Calculations for the
    /// Authorization Header), its inputs and its signature.
    #[test]
    fn the_documented_get_object_example_signs_the_same() {
        let signer = Signer {
            access_key: "AKIAIOSFODNN7EXAMPLE",
            secret_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            region: "us-east-1",
        };
        let header = signer.authorization(&ToSign {
            method: "GET",
            host: "examplebucket.s3.amazonaws.com",
            path: "/test.txt",
            query: &[],
            payload_sha256: EMPTY_SHA256,
            amz_date: "20130524T000000Z",
            extra_headers: &[("range", "bytes=0-9")],
        });
        assert_eq!(
            header,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, \
             SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, \
             Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        );
    }

    #[test]
    fn the_query_is_sorted_and_encoded() {
        let query = [
            ("uploadId".to_string(), "a/b c".to_string()),
            ("partNumber".to_string(), "2".to_string()),
        ];
        assert_eq!(canonical_query(&query), "partNumber=2&uploadId=a%2Fb%20c");
        assert_eq!(
            canonical_query(&[("uploads".into(), String::new())]),
            "uploads="
        );
    }
}
