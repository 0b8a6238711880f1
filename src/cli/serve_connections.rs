//! The flags of `serve` about who connects and how: the least rate of an upload, the
//! allowance of wrong tokens per client address, and how the service is published
//! (`--public-url`, `--trusted-proxy`), which makes its cookies `Secure` over HTTPS.

use std::net::IpAddr;
use std::time::Duration;

use clap::Args;
use evacdoc::http::ServeConfig;
use evacdoc::http::share::limit::RateLimit;
use evacdoc::http::upload_rate::MinRate;

#[derive(Debug, Clone, Args)]
pub struct ConnectionArgs {
    /// The least average rate of an upload, bytes a second (`16KiB`, `1MiB`, `0` for no
    /// bound); slower uploads are cut with 408 and their slot freed.
    #[arg(long, value_name = "BYTES", default_value = "16KiB", value_parser = parse_bytes)]
    upload_min_rate: u64,
    /// Seconds over which an upload's rate is averaged.
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..))]
    upload_rate_window: u64,
    /// Wrong tokens (sign-in form or bearer) a client address may send per
    /// --login-window; past them it gets 429 with Retry-After.
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..))]
    login_failures: u32,
    /// Seconds in which a client address may send --login-failures wrong tokens.
    #[arg(long, value_name = "SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    login_window: u64,
    /// The address users reach the service at, e.g. `https://evacdoc.example.org/`:
    /// with `https` its cookies are `Secure`.
    #[arg(long, value_name = "URL", value_parser = parse_public_url)]
    public_url: Option<url::Url>,
    /// A reverse proxy whose `X-Forwarded-For` (the client's address, for the limits) and
    /// `X-Forwarded-Proto: https` (Secure cookies) are believed; repeat for more. The
    /// headers from any other address are ignored.
    #[arg(long = "trusted-proxy", value_name = "IP")]
    trusted_proxies: Vec<IpAddr>,
}

impl ConnectionArgs {
    pub fn apply(&self, config: &mut ServeConfig) {
        config.upload_min_rate = MinRate {
            bytes_per_second: self.upload_min_rate,
            window: Duration::from_secs(self.upload_rate_window),
        };
        config.sign_in_limit = RateLimit {
            burst: self.login_failures,
            per_second: f64::from(self.login_failures) / self.login_window as f64,
        };
        config.public_url = self.public_url.clone();
        config.trusted_proxies = self.trusted_proxies.clone();
    }
}

/// A number of bytes, with an optional unit: `B`, `K`/`KiB`, `M`/`MiB`, `G`/`GiB` (powers
/// of 1024), `KB`, `MB`, `GB` (powers of 1000); case and spaces do not matter.
fn parse_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?}: a whole number of bytes, as 16384 or 16KiB"))?;
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        other => {
            return Err(format!(
                "{other:?}: not a unit (B, KiB, MiB, GiB, KB, MB, GB)"
            ));
        }
    };
    number
        .checked_mul(factor)
        .ok_or_else(|| format!("{text:?}: too large"))
}

/// An `http` or `https` URL with a host.
fn parse_public_url(text: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(text).map_err(|e| format!("{text:?}: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(format!(
            "{text:?}: an http:// or https:// address with a host"
        ));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(parse_bytes("16KiB"), Ok(16_384));
        assert_eq!(parse_bytes("16 kib"), Ok(16_384));
        assert_eq!(parse_bytes("16384"), Ok(16_384));
        assert_eq!(parse_bytes("2M"), Ok(2 << 20));
        assert_eq!(parse_bytes("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_bytes("0"), Ok(0));
        assert!(parse_bytes("fast").is_err());
        assert!(parse_bytes("16 parsecs").is_err());
        assert!(parse_bytes("-1").is_err());
        assert!(parse_bytes("99999999999999999999GiB").is_err());
    }

    #[test]
    fn public_urls_are_http_or_https_with_a_host() {
        assert_eq!(
            parse_public_url("https://evacdoc.example.org/")
                .unwrap()
                .scheme(),
            "https"
        );
        assert!(parse_public_url("http://10.0.0.1:8080").is_ok());
        assert!(parse_public_url("ftp://example.org").is_err());
        assert!(parse_public_url("evacdoc.example.org").is_err());
    }
}
