//! A log line as Markdown, for the "Copy" control beside evidence lines and search hits:
//! host, time and place as code spans on one line, the text as a fenced block. Fences and
//! spans are longer than any backtick run inside, so a line cannot close them early.

/// `` `host` 2024-05-21 09:41:02.123 UTC `file:line` `` and the text fenced below it;
/// `when` empty for a line without a time.
pub(super) fn line_markdown(host: &str, when: &str, location: &str, text: &str) -> String {
    let mut head = vec![code_span(host)];
    if !when.is_empty() {
        head.push(when.to_string());
    }
    head.push(code_span(location));
    let fence = "`".repeat(longest_backticks(text).max(2) + 1);
    format!(
        "{}\n{fence}\n{}\n{fence}\n",
        head.join(" "),
        text.trim_end()
    )
}

/// A line's date and time as the pages show them, with the zone; empty without a time.
pub(super) fn when_shown(date: &str, time: &str) -> String {
    if time.is_empty() {
        String::new()
    } else {
        format!("{date} {time} UTC").trim_start().to_string()
    }
}

/// `text` as an inline code span.
fn code_span(text: &str) -> String {
    let ticks = "`".repeat(longest_backticks(text) + 1);
    // A span that starts or ends with a backtick needs a space inside its delimiters.
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

fn longest_backticks(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_becomes_a_head_and_a_fenced_block() {
        assert_eq!(
            line_markdown(
                "cmp1",
                "2024-05-21 09:41:02.123 UTC",
                "nova-compute.log:12",
                "ERROR nova.compute.manager Instance failed\n"
            ),
            "`cmp1` 2024-05-21 09:41:02.123 UTC `nova-compute.log:12`\n```\nERROR nova.compute.manager Instance failed\n```\n"
        );
        // No time: config lines; backticks inside lengthen the fence and the span.
        assert_eq!(
            line_markdown("ctl1", "", "a`b.conf:3", "x = ```y```"),
            "`ctl1` ``a`b.conf:3``\n````\nx = ```y```\n````\n"
        );
        assert_eq!(code_span("`q"), "`` `q ``");
        assert_eq!(
            when_shown("2024-05-21", "09:41:02"),
            "2024-05-21 09:41:02 UTC"
        );
        assert_eq!(when_shown("", ""), "");
    }
}
