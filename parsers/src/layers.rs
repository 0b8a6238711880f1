//! Prefix layers: the prefixes collectors put before a line, peeled one at a time in
//! whatever order they were stacked (`kubectl logs --prefix --timestamps` over a pebble
//! line, pebble inside a CRI file, a journal line inside a container, ...), at most
//! [`MAX_LAYERS`] deep, down to a known inner format.
//!
//! Each layer is recognised by its first bytes, so a line without a prefix costs one
//! look at them.

use crate::cri::{CriPrefix, parse_cri_prefix};
use crate::docker::{DockerPrefix, parse_docker_line};
use crate::kubectl::{KubectlPrefix, parse_kubectl_name, parse_kubectl_time};
use crate::line::Wrapper;
use crate::pebble::{PebblePrefix, parse_pebble_prefix};
use crate::syslog::{SyslogPrefix, parse_syslog_prefix};
use crate::time::Timestamp;

/// How many prefixes are peeled from one line at most: more than any real stack
/// (`kubectl --prefix --timestamps` over pebble is three), few enough to bound the
/// work a hostile line can cause.
pub const MAX_LAYERS: usize = 4;

/// One prefix.
#[derive(Clone, Debug, PartialEq)]
pub enum Layer<'a> {
    /// Kubernetes CRI: `<time> <stream> <F|P> `.
    Cri(CriPrefix),
    /// A Docker `json-file` object; the rest is its `log` value as written.
    Docker(DockerPrefix),
    /// Pebble: `<time> [<service>] `.
    Pebble(PebblePrefix<'a>),
    /// syslog or journal: `<time> <host> <program>[<pid>]: `.
    Syslog(SyslogPrefix<'a>),
    /// `kubectl logs --prefix`: `[pod/<name>/<container>] `.
    KubectlName(&'a str, &'a str),
    /// `kubectl logs --timestamps`: `<time> `.
    KubectlTime(Timestamp),
}

/// Peels one prefix off `text`: the layer and what follows it, or `None` when `text`
/// starts with no known prefix.
///
/// ```
/// use evacdoc_parsers::layers::{peel, Layer};
/// let (layer, rest) = peel("[pod/nova-0/nova-api] 2024-09-18T07:53:42.784913042Z x").unwrap();
/// assert_eq!(layer, Layer::KubectlName("nova-0", "nova-api"));
/// assert!(matches!(peel(rest), Some((Layer::KubectlTime(_), "x"))));
/// assert_eq!(peel("2024-09-18 07:53:42.784 7 INFO a.b [-] c"), None);
/// ```
pub fn peel(text: &str) -> Option<(Layer<'_>, &str)> {
    let b = text.as_bytes();
    match b.first()? {
        // `YYYY-MM-DDT`: CRI, pebble, a journal short-iso prefix, or a kubectl time.
        c if c.is_ascii_digit() && b.get(10) == Some(&b'T') && b.get(4) == Some(&b'-') => {
            // An oslo.log line whose own time has a `T` (`%(isotime)s`, or a
            // `log_date_format` so written): no prefix, and no prefix reads so (each
            // has a stream, a name or a host after its time, never a pid and a level).
            if crate::oslo::starts_like_oslo(text) {
                return None;
            }
            if let Ok((rest, p)) = parse_cri_prefix(text) {
                return Some((Layer::Cri(p), rest));
            }
            // `--timestamps` before `--prefix` reads like pebble (`<time> [<name>] `):
            // a `pod/` name is kubectl's.
            if let Ok((rest, t)) = parse_kubectl_time(text)
                && parse_kubectl_name(rest).is_ok()
            {
                return Some((Layer::KubectlTime(t), rest));
            }
            if let Ok((rest, p)) = parse_pebble_prefix(text) {
                return Some((Layer::Pebble(p), rest));
            }
            if let Some(found) = syslog(text) {
                return Some(found);
            }
            parse_kubectl_time(text)
                .ok()
                .filter(|(rest, _)| !damaged_cri(rest))
                .map(|(rest, t)| (Layer::KubectlTime(t), rest))
        }
        // Docker `json-file`. The `log` value is read as written: decoding its escapes
        // takes a copy, which the push assembler makes.
        b'{' if b.get(1) == Some(&b'"') => parse_docker_line(text)
            .ok()
            .map(|(_, d)| (Layer::Docker(d.prefix), d.log)),
        b'[' if b.get(1) == Some(&b'p') => parse_kubectl_name(text)
            .ok()
            .map(|(rest, (pod, container))| (Layer::KubectlName(pod, container), rest)),
        // journal short-unix: `1764606988.123456 host prog[pid]: `.
        c if c.is_ascii_digit() && b.get(10) == Some(&b'.') => syslog(text),
        // A month or weekday name: syslog or journal short / short-full.
        c if c.is_ascii_uppercase() => syslog(text),
        _ => None,
    }
}

/// What follows a time is the rest of a CRI prefix cut or damaged (`stderr X`, `std`):
/// the line stays unread rather than pass for a `kubectl` line.
fn damaged_cri(rest: &str) -> bool {
    let word = rest.split(' ').next().unwrap_or("");
    !word.is_empty() && ["stdout", "stderr"].iter().any(|s| s.starts_with(word))
}

fn syslog(text: &str) -> Option<(Layer<'_>, &str)> {
    parse_syslog_prefix(text)
        .ok()
        .map(|(rest, s)| (Layer::Syslog(s), rest))
}

/// Peels up to `budget` prefixes off `text` below the wrapper `outer` already peeled;
/// returns the wrapper the line is known by and its content's text.
///
/// The innermost prefix names the line's source best (pebble's service inside a CRI
/// file), so it becomes the wrapper; kubectl's name and time fold into one
/// [`Wrapper::Kubectl`], and never replace another collector's prefix they are found
/// inside.
pub fn peel_layers<'a>(
    mut outer: Option<Wrapper<'a>>,
    mut text: &'a str,
    budget: usize,
) -> (Option<Wrapper<'a>>, &'a str) {
    for _ in 0..budget {
        let Some((layer, rest)) = peel(text) else {
            break;
        };
        outer = Some(fold(outer, layer));
        text = rest;
    }
    (outer, text)
}

fn fold<'a>(outer: Option<Wrapper<'a>>, layer: Layer<'a>) -> Wrapper<'a> {
    let kubectl = |k: KubectlPrefix<'a>| match layer {
        Layer::KubectlName(pod, container) => KubectlPrefix {
            pod: Some(pod),
            container: Some(container),
            ..k
        },
        Layer::KubectlTime(t) => KubectlPrefix {
            time: k.time.or(Some(t)),
            ..k
        },
        _ => k,
    };
    match (outer, &layer) {
        (Some(Wrapper::Kubectl(k)), Layer::KubectlName(..) | Layer::KubectlTime(_)) => {
            Wrapper::Kubectl(kubectl(k))
        }
        (Some(w), Layer::KubectlName(..) | Layer::KubectlTime(_)) => w,
        (None, Layer::KubectlName(..) | Layer::KubectlTime(_)) => {
            Wrapper::Kubectl(kubectl(KubectlPrefix {
                pod: None,
                container: None,
                time: None,
            }))
        }
        (_, Layer::Cri(p)) => Wrapper::Cri(*p),
        (_, Layer::Docker(d)) => Wrapper::Docker(*d),
        (_, Layer::Pebble(p)) => Wrapper::Pebble(*p),
        (_, Layer::Syslog(s)) => Wrapper::Syslog(*s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OSLO: &str = "2024-09-18 07:53:42.784 31 INFO nova.api.openstack.requestlog [None req-e6ffeac2-d6b5-469e-83e7-4169ad520421 - - - - - -] x";

    #[test]
    fn kubectl_name_and_time_fold_in_either_order() {
        for line in [
            format!("[pod/nova-0/nova-api] 2024-09-18T07:53:42.784913042Z {OSLO}"),
            format!("2024-09-18T07:53:42.784913042Z [pod/nova-0/nova-api] {OSLO}"),
        ] {
            let (w, rest) = peel_layers(None, &line, MAX_LAYERS);
            assert_eq!(rest, OSLO);
            let Some(Wrapper::Kubectl(k)) = w else {
                panic!("{w:?}")
            };
            assert_eq!((k.pod, k.container), (Some("nova-0"), Some("nova-api")));
            assert_eq!(
                k.time.map(|t| t.to_string()).as_deref(),
                Some("2024-09-18T07:53:42.784913042Z")
            );
        }
    }

    #[test]
    fn an_oslo_line_with_a_t_in_its_time_is_no_kubectl_time() {
        for own in [
            "2024-09-18T07:53:42.784 31 INFO nova.api.openstack.requestlog [-] x",
            "2024-09-18T07:53:42.784913+02:00 31 ERROR nova.compute.api [None req-e6ffeac2-d6b5-469e-83e7-4169ad520421 - - - - - -] x",
        ] {
            assert_eq!(peel(own), None, "{own}");
            // Under a real `--timestamps` prefix, the prefix alone is peeled.
            let line = format!("2024-09-18T05:53:42.784913042Z {own}");
            let (w, rest) = peel_layers(None, &line, MAX_LAYERS);
            assert!(matches!(w, Some(Wrapper::Kubectl(_))), "{w:?}");
            assert_eq!(rest, own);
        }
    }

    #[test]
    fn pebble_under_kubectl_names_the_service() {
        let line = format!(
            "[pod/nova-0/nova-api] 2024-09-18T07:53:42.784913042Z 2024-09-18T07:53:42.784Z [wsgi-nova-api] {OSLO}"
        );
        let (w, rest) = peel_layers(None, &line, MAX_LAYERS);
        assert!(matches!(w, Some(Wrapper::Pebble(p)) if p.service == "wsgi-nova-api"));
        assert_eq!(rest, OSLO);
    }

    #[test]
    fn a_damaged_cri_prefix_is_no_kubectl_time() {
        for line in [
            "2026-11-30T09:34:22.845912345Z std",
            "2026-11-30T09:34:22.846002000Z stderr X 2026-11-30 09:34:22.846 7502 ERROR a b",
        ] {
            assert_eq!(peel(line), None, "{line}");
        }
    }

    #[test]
    fn the_number_of_layers_is_bounded() {
        let deep = "2024-09-18T07:53:42Z ".repeat(MAX_LAYERS + 2) + "x";
        let (_, rest) = peel_layers(None, &deep, MAX_LAYERS);
        assert_eq!(rest, "2024-09-18T07:53:42Z ".repeat(2) + "x");
    }
}
