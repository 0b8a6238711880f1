//! Test helpers: tables drawn exactly as cliff/prettytable draws them.

/// Wraps `text` into lines of at most `width` chars the way Python's textwrap does:
/// at spaces (dropping them) or after hyphens.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    // Chunks: words, split after hyphens too.
    let mut chunks = Vec::new();
    for word in text.split(' ') {
        let mut w = word;
        while let Some(i) = w.find('-') {
            chunks.push((w[..=i].to_string(), false));
            w = &w[i + 1..];
        }
        chunks.push((w.to_string(), true));
    }
    let mut space_before = false;
    for (chunk, ends_word) in chunks {
        let sep = if space_before && !cur.is_empty() {
            1
        } else {
            0
        };
        if !cur.is_empty() && cur.chars().count() + sep + chunk.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        } else if sep == 1 {
            cur.push(' ');
        }
        cur.push_str(&chunk);
        space_before = ends_word;
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// A `Field | Value` table exactly as cliff prints it; the value of `wrap_field`
/// is wrapped to `width` columns (`--fit-width`).
pub(crate) fn show_table(rows: &[(&str, &str)], wrap_field: Option<(&str, usize)>) -> String {
    let mut lines: Vec<(String, String)> = Vec::new();
    for (k, v) in rows {
        match wrap_field {
            Some((f, width)) if f == *k => {
                for (i, part) in wrap(v, width).into_iter().enumerate() {
                    lines.push((if i == 0 { k.to_string() } else { String::new() }, part));
                }
            }
            _ => lines.push((k.to_string(), v.to_string())),
        }
    }
    let kw = lines
        .iter()
        .map(|l| l.0.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let vw = lines
        .iter()
        .map(|l| l.1.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let border = format!("+{}+{}+", "-".repeat(kw + 2), "-".repeat(vw + 2));
    let row = |a: &str, b: &str| {
        format!(
            "| {a}{} | {b}{} |",
            " ".repeat(kw - a.chars().count()),
            " ".repeat(vw - b.chars().count())
        )
    };
    let mut out = vec![border.clone(), row("Field", "Value"), border.clone()];
    out.extend(lines.iter().map(|(a, b)| row(a, b)));
    out.push(border);
    out.join("\n") + "\n"
}

/// A list table as cliff prints it: every column padded to its widest cell.
pub(crate) fn list_table(header: &[&str], rows: &[Vec<&str>]) -> String {
    let widths: Vec<usize> = header
        .iter()
        .enumerate()
        .map(|(i, h)| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .chain([h.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let border = widths
        .iter()
        .map(|w| "-".repeat(w + 2))
        .fold("+".to_string(), |acc, s| acc + &s + "+");
    let row = |cells: &[&str]| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!(" {c}{} ", " ".repeat(w - c.chars().count())))
            .fold("|".to_string(), |acc, s| acc + &s + "|")
    };
    let mut out = vec![border.clone(), row(header), border.clone()];
    out.extend(rows.iter().map(|r| row(r)));
    out.push(border);
    out.join("\n") + "\n"
}
