//! The oslo.log line cut into head and message: the cut, the memo of messages, the secret
//! step skipped for clean lines, and the head read around its context bracket.

use super::*;
use crate::redact::public::messages;

/// The message of an oslo.log line starts after its head (and its context bracket); any
/// other line has none, and is shown whole.
#[test]
fn an_oslo_line_is_cut_after_its_head_and_context() {
    fn cut(line: &str) -> Option<&str> {
        messages::message_start(line).map(|at| &line[at..])
    }
    assert_eq!(
        cut(
            "2020-12-08 19:51:12.671 141079 INFO nova.api.openstack.wsgi [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari service - default default] HTTP exception thrown: in use."
        ),
        Some("HTTP exception thrown: in use.")
    );
    assert_eq!(
        cut("2024-09-18T07:53:42.784 7 DEBUG oslo_concurrency.lockutils [-] Lock \"x\" acquired"),
        Some("Lock \"x\" acquired")
    );
    assert_eq!(
        cut("2024-09-18 07:53:42,784 7 WARNING masakari.engine.manager Host is down"),
        Some("Host is down")
    );
    assert_eq!(
        cut("2024-09-18 07:53:42.784  7  INFO nova.compute.manager [-] Took 1.2 seconds"),
        Some("Took 1.2 seconds")
    );
    for whole in [
        "172.27.100.141 - - [08/Dec/2020:19:51:12 +0000] \"POST /v2.1/servers HTTP/1.1\" 400",
        "Sep 18 07:53:42 node02ob100 nova-compute[2071]: 2024-09-18 07:53:42.784 7 INFO x y",
        "2024-09-18 07:53:42.784 7 INFO nova.compute.manager ",
        "2024-09-18 07:53:42.784 7 INFO nova.compute.manager [req-1 unterminated",
        "2024-09-18 07:53:42.784 seven INFO nova.compute.manager message",
        "2024-09-18 07:53:42.784 7 info nova.compute.manager message",
        "2024-09-18 07:53:42.784 7 INFO nova/compute:manager message",
        "2024-09-18",
        "",
    ] {
        assert_eq!(cut(whole), None, "{whole}");
    }
}

/// A message shown again is what showing it anew gives, under other heads, and the
/// head is shown by default-deny on its own: a logger named like a secret key still
/// hides the value after it (the line is then shown whole).
#[test]
fn a_message_shown_again_reads_as_shown_anew_under_any_head() {
    let message = "Failed to build instance acme-billing-db01 on compute-01: password hunter2";
    let mut f = fixture();
    let mut step = PublicText::new(&f.names, &f.upload);
    let mut outs = Vec::new();
    for head in [
        "2024-09-18 07:53:42.784 7 ERROR nova.compute.manager [req-de081ecf-4201-4542-b092-e21b2f5ce942 acme-admin acme-project - - -] ",
        "2024-09-18 07:53:43.001 8 ERROR nova.compute.manager [-] ",
        "2024-09-18 07:53:44.002 9 ERROR nova.compute.manager ",
    ] {
        let out = step.line(
            &format!("{head}{message}"),
            Vocabulary::Log,
            &mut f.map,
            &mut f.stats,
        );
        let (_, shown) = out.split_at(out.find("Failed").unwrap());
        outs.push(shown.to_string());
        assert!(
            !out.contains("acme") && !out.contains("hunter2") && !out.contains("compute-01"),
            "{out}"
        );
    }
    assert!(outs.windows(2).all(|w| w[0] == w[1]), "{outs:?}");
    let mut step = PublicText::new(&f.names, &f.upload);
    let keyed = step.line(
        "2024-09-18 07:53:44.002 9 ERROR --os-password error was refused",
        Vocabulary::Log,
        &mut f.map,
        &mut f.stats,
    );
    assert!(
        keyed.contains(&format!("--os-password {HIDDEN} was")),
        "{keyed}"
    );
}

/// A line the public step finds clean of secret pieces (from its memos or anew) is one
/// the secret step leaves as it is, on every oslo.log line of the samples, shown once
/// and again; a secret planted in such a line's message or logger makes it not clean.
#[test]
fn a_line_found_clean_is_one_the_secret_step_leaves_as_it_is() {
    use crate::redact::secrets::SecretState;
    let mut f = fixture();
    let mut step = PublicText::new(&f.names, &f.upload);
    let (mut clean, mut planted) = (0, 0);
    for text in crate::redact::sample_texts::sample_texts() {
        for _ in 0..2 {
            for line in text.lines() {
                let Some(message) = messages::message_start(line) else {
                    continue;
                };
                if step.clean(line, message) {
                    let mut state = SecretState::default();
                    assert_eq!(state.redact(line), None, "{line}");
                    assert!(state.idle(), "{line}");
                    clean += 1;
                    for secret in [
                        " password=hunter2",
                        " token: gAAAAABkZ0123456789abcdefghij",
                        " rabbit://u:hunter2@h:5672/",
                        " -----BEGIN RSA PRIVATE KEY-----",
                    ] {
                        let with = format!("{line}{secret}");
                        assert!(!step.clean(&with, message), "{with}");
                        planted += 1;
                    }
                    let logger = format!(
                        "2024-09-18 07:53:42.784 7 INFO keystonemiddleware.auth_token {}",
                        &line[message..]
                    );
                    let at = messages::message_start(&logger).unwrap();
                    assert!(!step.clean(&logger, at), "{logger}");
                }
                step.line(line, Vocabulary::Log, &mut f.map, &mut f.stats);
            }
        }
    }
    assert!(clean > 5_000 && planted > 20_000, "{clean} {planted}");
}

/// A head read around its context bracket ([`Words::head`]) reads as the head segmented
/// whole by the shapes pattern: the same text, pseudonym kinds, key and reduction, on the
/// head of every oslo.log line of the samples and on heads whose brackets hold 32-hex
/// user and project ids (which send a whole head through the pattern).
#[test]
fn a_head_read_around_its_bracket_reads_as_one_segmented_whole() {
    fn read(
        f: &mut Fixture,
        kept: &mut KeptWords,
        head: &str,
        whole: bool,
    ) -> impl PartialEq + std::fmt::Debug {
        let mut asked = Asked {
            inner: &mut f.map,
            kinds: Vec::new(),
        };
        let mut words = Words {
            names: &f.names,
            upload: &f.upload,
            vocabulary: Vocabulary::Log,
            out: String::new(),
            reduced: false,
            key: None,
            assigned: false,
            buf: String::new(),
            kept,
        };
        if whole {
            words.segment(head, &mut asked);
        } else {
            words.head(head, &mut asked);
        }
        (words.out, asked.kinds, words.key, words.reduced)
    }
    let mut heads: Vec<String> = Vec::new();
    for text in crate::redact::sample_texts::sample_texts() {
        for line in text.lines() {
            if let Some(at) = messages::message_start(line) {
                heads.push(line[..at].to_string());
            }
        }
    }
    let ids = "5c2e8f147b3a4d90a6e10f9d8c7b2a35 0f9d8c7b2a355c2e8f147b3a4d90a6e1";
    for context in [
        format!("[req-de081ecf-4201-4542-b092-e21b2f5ce942 {ids} - default default] "),
        format!(
            "[req-de081ecf-4201-4542-b092-e21b2f5ce942 req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35 {ids} - - -] "
        ),
        format!("[None req-de081ecf-4201-4542-b092-e21b2f5ce942 {ids} - - -] "),
        format!("[req-de081ecf-4201-4542-b092-e21b2f5ce942 {ids}] [req-1 a b] "),
        format!("[req-de081ecf-4201-4542-b092-e21b2f5ce942 admin@example.com {ids} - - -] "),
        "[req-de081ecf-4201-4542-b092-e21b2f5ce942 acme-admin acme-project - - -] ".to_string(),
        "[-] ".to_string(),
    ] {
        for logger in [
            "nova.compute.manager",
            "keystonemiddleware.auth_token",
            "10.0.0.5",
        ] {
            heads.push(format!("2024-09-18 07:53:42.784 7 INFO {logger} {context}"));
        }
    }
    let (mut a, mut b) = (fixture(), fixture());
    let (mut kept_a, mut kept_b) = (KeptWords::default(), KeptWords::default());
    for head in &heads {
        let around = read(&mut a, &mut kept_a, head, false);
        let whole = read(&mut b, &mut kept_b, head, true);
        assert_eq!(around, whole, "{head}");
    }
    assert!(heads.len() > 5_000, "{}", heads.len());
}
