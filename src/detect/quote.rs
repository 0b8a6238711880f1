//! Quoting log messages in a finding's prose: cut where they are long (and said to be
//! cut), and each message once, with how many times it came, so that three identical
//! database errors read as one.

/// `text` cut to `max` characters, ending in `…` when cut.
pub(crate) fn clipped(text: &str, max: usize) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(max).collect();
    if chars.next().is_some() {
        format!("{}…", head.trim_end())
    } else {
        head
    }
}

/// Each distinct text once, in the order first seen, `(3 times)` after a repeated one.
pub(crate) fn once_each(texts: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for text in texts {
        match seen.iter_mut().find(|(t, _)| *t == text) {
            Some((_, n)) => *n += 1,
            None => seen.push((text, 1)),
        }
    }
    seen.into_iter()
        .map(|(t, n)| if n > 1 { format!("{t} ({n} times)") } else { t })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_say_they_are_cut_and_repeats_are_counted() {
        let line = "(2013, 'Lost connection to MySQL server during query')";
        assert_eq!(clipped(line, 32), "(2013, 'Lost connection to MySQL…");
        assert_eq!(clipped("short", 32), "short");
        assert_eq!(clipped("héllo", 5), "héllo");
        let quoted = once_each(
            [line, "GET / answered 503", line, line]
                .into_iter()
                .map(str::to_string),
        );
        assert_eq!(
            quoted,
            vec![
                format!("{line} (3 times)"),
                "GET / answered 503".to_string()
            ]
        );
    }
}
