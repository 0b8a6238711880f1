//! Comparing package versions the Debian way (`[epoch:]upstream[-revision]`), which also
//! orders plain upstream versions and RPM `version-release` strings sensibly.

use std::cmp::Ordering;

/// The upstream part of a version: epoch and packaging revision removed
/// (`3:29.0.1-0ubuntu1` → `29.0.1`).
pub fn upstream(version: &str) -> &str {
    let without_epoch = version.split_once(':').map_or(version, |(_, rest)| rest);
    without_epoch
        .rsplit_once('-')
        .map_or(without_epoch, |(up, _)| up)
}

/// Orders two version parts: non-digit runs compared with `~` first and letters before
/// other characters, digit runs numerically (Debian policy §5.6.12).
fn compare_part(a: &str, b: &str) -> Ordering {
    let order = |c: Option<char>| -> i32 {
        match c {
            Some('~') => -1,
            None => 0,
            Some(c) if c.is_ascii_alphabetic() => c as i32,
            Some(c) => c as i32 + 256,
        }
    };
    let (mut a, mut b) = (a, b);
    while !a.is_empty() || !b.is_empty() {
        let a_text_len = a.find(|c: char| c.is_ascii_digit()).unwrap_or(a.len());
        let b_text_len = b.find(|c: char| c.is_ascii_digit()).unwrap_or(b.len());
        let (a_text, a_rest) = a.split_at(a_text_len);
        let (b_text, b_rest) = b.split_at(b_text_len);
        let (mut ai, mut bi) = (a_text.chars(), b_text.chars());
        loop {
            let (ca, cb) = (ai.next(), bi.next());
            if ca.is_none() && cb.is_none() {
                break;
            }
            match order(ca).cmp(&order(cb)) {
                Ordering::Equal => {}
                other => return other,
            }
        }
        let a_num_len = a_rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(a_rest.len());
        let b_num_len = b_rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(b_rest.len());
        let (a_num, a_next) = a_rest.split_at(a_num_len);
        let (b_num, b_next) = b_rest.split_at(b_num_len);
        let a_trim = a_num.trim_start_matches('0');
        let b_trim = b_num.trim_start_matches('0');
        match a_trim
            .len()
            .cmp(&b_trim.len())
            .then_with(|| a_trim.cmp(b_trim))
        {
            Ordering::Equal => {}
            other => return other,
        }
        a = a_next;
        b = b_next;
    }
    Ordering::Equal
}

/// Compares two full versions.
pub fn compare(a: &str, b: &str) -> Ordering {
    let split = |v: &str| -> (u64, String, String) {
        let (epoch, rest) = match v.split_once(':') {
            Some((e, rest)) if e.bytes().all(|b| b.is_ascii_digit()) => {
                (e.parse().unwrap_or(0), rest)
            }
            _ => (0, v),
        };
        let (up, rev) = rest.rsplit_once('-').unwrap_or((rest, ""));
        (epoch, up.to_string(), rev.to_string())
    };
    let (ea, ua, ra) = split(a);
    let (eb, ub, rb) = split(b);
    ea.cmp(&eb)
        .then_with(|| compare_part(&ua, &ub))
        .then_with(|| compare_part(&ra, &rb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debian_ordering() {
        assert_eq!(
            compare("17.0.0-0ubuntu1", "17.0.0-0ubuntu1.1"),
            Ordering::Less
        );
        assert_eq!(compare("1:1.0", "2.0"), Ordering::Greater);
        assert_eq!(compare("1.0~rc1", "1.0"), Ordering::Less);
        assert_eq!(compare("23.0.0", "22.1.0"), Ordering::Greater);
        assert_eq!(compare("9.10", "9.9"), Ordering::Greater);
        assert_eq!(
            compare("2:23.0.0-0ubuntu1", "2:23.0.0-0ubuntu1"),
            Ordering::Equal
        );
    }

    #[test]
    fn upstream_part() {
        assert_eq!(upstream("3:29.0.1-0ubuntu1~cloud0"), "29.0.1");
        assert_eq!(upstream("23.0.0"), "23.0.0");
    }
}
