//! A tolerant reader for the Python literals `openstack` prints inside table cells:
//! `{'event': 'STOPPED', 'host_status': 'NORMAL'}`, `[{'server_id': '…'}]`,
//! `True`/`False`/`None`, and JSON (`true`/`false`/`null`, double quotes). It also
//! reads the `key='value', key2='value2'` form of `format_dict` / `format_list_of_dicts`.
//!
//! Nothing here fails: a truncated literal comes back with what was read so far (open
//! strings, lists and dicts are closed), an unknown bare word is kept as a string, and
//! nesting deeper than [`MAX_DEPTH`] is kept as the raw text.

use serde_json::{Map, Number, Value};

/// Nesting beyond this depth is returned as text rather than recursed into.
pub const MAX_DEPTH: usize = 64;

/// Reads `text` as a Python (or JSON) literal. `None` for blank text.
///
/// ```
/// use evacdoc_parsers::capture::pylit::parse_python_literal;
/// let v = parse_python_literal("{'event': 'STOPPED', 'ok': True, 'n': None, 'p': 1.0}").unwrap();
/// assert_eq!(v["event"], "STOPPED");
/// assert_eq!(v["ok"], true);
/// assert!(v["n"].is_null());
/// // Truncated input keeps what was read.
/// let v = parse_python_literal("[{'server_id': 'abc', 'host_name': 'nod").unwrap();
/// assert_eq!(v[0]["host_name"], "nod");
/// ```
pub fn parse_python_literal(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    let first = trimmed.as_bytes().first().copied();
    if !matches!(first, Some(b'{' | b'[' | b'(' | b'\'' | b'"')) && looks_like_kv_pairs(trimmed) {
        return Some(parse_kv_pairs(trimmed));
    }
    let mut reader = Reader { s: trimmed, pos: 0 };
    Some(reader.value(0))
}

/// True for `key='value', …` / `key=value` text (OSC's `format_dict`).
fn looks_like_kv_pairs(s: &str) -> bool {
    let Some((key, _)) = s.split_once('=') else {
        return false;
    };
    let key = key.trim();
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':' | b'.'))
}

/// `a='1', b='x, y', c=None` → `{"a": "1", "b": "x, y", "c": null}`. Several lines
/// (one dict per line, as `format_list_of_dicts` prints them) merge into one object,
/// later keys winning; use [`parse_kv_lines`] to keep them apart.
fn parse_kv_pairs(s: &str) -> Value {
    let mut map = Map::new();
    let mut reader = Reader { s, pos: 0 };
    loop {
        reader.skip_ws_and(b",");
        let start = reader.pos;
        while let Some(b) = reader.peek() {
            if b == b'=' || b == b',' {
                break;
            }
            reader.pos += 1;
        }
        let key = s.get(start..reader.pos).unwrap_or("").trim().to_string();
        if reader.peek() != Some(b'=') {
            if key.is_empty() && reader.peek().is_none() {
                break;
            }
            if !key.is_empty() {
                map.insert(key, Value::Null);
            }
            if reader.peek().is_none() {
                break;
            }
            continue;
        }
        reader.pos += 1;
        reader.skip_ws();
        let value = match reader.peek() {
            Some(b'\'' | b'"' | b'[' | b'{' | b'(') => reader.value(1),
            _ => {
                let vstart = reader.pos;
                while let Some(b) = reader.peek() {
                    if b == b',' {
                        break;
                    }
                    reader.pos += 1;
                }
                bare_word(s.get(vstart..reader.pos).unwrap_or("").trim())
            }
        };
        if !key.is_empty() {
            map.insert(key, value);
        }
        if reader.peek().is_none() {
            break;
        }
    }
    Value::Object(map)
}

/// One object per non-blank line of `key='value', …` text (OSC's
/// `format_list_of_dicts`), or `None` when a line is not in that form.
pub fn parse_kv_lines(text: &str) -> Option<Vec<Value>> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() || !lines.iter().all(|l| looks_like_kv_pairs(l)) {
        return None;
    }
    Some(lines.into_iter().map(parse_kv_pairs).collect())
}

/// A bare word as a value: keywords, numbers, else the text itself.
fn bare_word(word: &str) -> Value {
    match word {
        "True" | "true" => Value::Bool(true),
        "False" | "false" => Value::Bool(false),
        "None" | "null" | "" => Value::Null,
        _ => number(word).unwrap_or_else(|| Value::String(word.to_string())),
    }
}

fn number(word: &str) -> Option<Value> {
    let b = word.as_bytes();
    let digits = b
        .first()
        .is_some_and(|c| c.is_ascii_digit() || *c == b'-' || *c == b'+');
    if !digits {
        return None;
    }
    if let Ok(i) = word.parse::<i64>() {
        return Some(Value::Number(i.into()));
    }
    let f = word.parse::<f64>().ok()?;
    Number::from_f64(f).map(Value::Number)
}

struct Reader<'a> {
    s: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn skip_ws_and(&mut self, extra: &[u8]) {
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_whitespace() || extra.contains(&b))
        {
            self.pos += 1;
        }
    }

    fn rest(&self) -> &str {
        self.s.get(self.pos..).unwrap_or("")
    }

    fn value(&mut self, depth: usize) -> Value {
        self.skip_ws();
        if depth > MAX_DEPTH {
            let rest = self.rest().to_string();
            self.pos = self.s.len();
            return Value::String(rest);
        }
        match self.peek() {
            None => Value::Null,
            Some(b'{') => {
                self.pos += 1;
                self.dict(depth)
            }
            Some(b'[') => {
                self.pos += 1;
                self.list(depth, b']')
            }
            Some(b'(') => {
                self.pos += 1;
                self.list(depth, b')')
            }
            Some(q @ (b'\'' | b'"')) => {
                self.pos += 1;
                Value::String(self.string(q))
            }
            Some(_) => self.word(),
        }
    }

    /// A bare word, a string with a `u`/`b`/`r` prefix, or a call such as
    /// `datetime.datetime(2020, 12, 8)` kept as text.
    fn word(&mut self) -> Value {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'+') {
                self.pos += 1;
            } else {
                break;
            }
        }
        let word = self.s.get(start..self.pos).unwrap_or("");
        match self.peek() {
            Some(q @ (b'\'' | b'"')) if matches!(word, "u" | "b" | "r" | "U" | "B" | "R") => {
                self.pos += 1;
                return Value::String(self.string(q));
            }
            Some(b'(') if !word.is_empty() => {
                // A call: keep its text, balancing parentheses.
                let mut depth = 0usize;
                while let Some(b) = self.peek() {
                    self.pos += 1;
                    if b == b'(' {
                        depth += 1;
                    } else if b == b')' {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                }
                return Value::String(self.s.get(start..self.pos).unwrap_or("").to_string());
            }
            _ => {}
        }
        if word.is_empty() {
            // A character no literal starts with: skip it so the caller progresses.
            let len = self.rest().chars().next().map_or(1, char::len_utf8);
            self.pos += len;
            return Value::Null;
        }
        bare_word(word)
    }

    fn string(&mut self, quote: u8) -> String {
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        let base = self.pos;
        let mut end = self.s.len();
        while let Some((i, c)) = chars.next() {
            if c as u32 == u32::from(quote) {
                end = base + i + 1;
                break;
            }
            if c == '\n' {
                // A table cell wrapped here: textwrap dropped a space, or broke after '-'.
                if !out.ends_with('-') && !out.ends_with(' ') {
                    out.push(' ');
                }
                continue;
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                None => break,
                Some((_, e)) => match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    // JSON's and Python's other one-letter escapes (found by fuzzing:
                    // `\b` was kept as two characters, so a key read back differently).
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'a' => out.push('\u{7}'),
                    'v' => out.push('\u{b}'),
                    'x' | 'u' | 'U' => {
                        let width = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let hex: String = chars.clone().take(width).map(|(_, c)| c).collect();
                        match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                            Some(ch) if hex.len() == width => {
                                out.push(ch);
                                for _ in 0..width {
                                    chars.next();
                                }
                            }
                            _ => {
                                out.push('\\');
                                out.push(e);
                            }
                        }
                    }
                    '\\' | '\'' | '"' | '/' => out.push(e),
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                },
            }
        }
        self.pos = end;
        out
    }

    fn list(&mut self, depth: usize, close: u8) -> Value {
        let mut items = Vec::new();
        loop {
            self.skip_ws_and(b",");
            match self.peek() {
                None => break,
                Some(b) if b == close => {
                    self.pos += 1;
                    break;
                }
                Some(b']' | b'}' | b')') => {
                    // A mismatched closer: end this list here.
                    self.pos += 1;
                    break;
                }
                Some(_) => {
                    let before = self.pos;
                    let v = self.value(depth + 1);
                    if self.pos == before {
                        self.pos += 1;
                    }
                    items.push(v);
                }
            }
        }
        Value::Array(items)
    }

    fn dict(&mut self, depth: usize) -> Value {
        let mut map = Map::new();
        loop {
            self.skip_ws_and(b",");
            match self.peek() {
                None => break,
                Some(b'}' | b']' | b')') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {}
            }
            let before = self.pos;
            let key = self.value(depth + 1);
            let key_end = self.pos;
            self.skip_ws();
            let value = if self.peek() == Some(b':') {
                self.pos += 1;
                self.value(depth + 1)
            } else {
                Value::Null
            };
            if self.pos == before {
                self.pos += 1;
            }
            // A tuple or other non-string key is kept as written. Not as JSON: nested
            // keys escaped at every level grew twofold per level (fuzzing: 686 bytes of
            // `{{{…` took over a gigabyte).
            let key = match key {
                Value::String(s) => s,
                Value::Null => "None".to_string(),
                _ => self.s.get(before..key_end).unwrap_or("").trim().to_string(),
            };
            map.insert(key, value);
        }
        Value::Object(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_dict_with_keywords() {
        let v = parse_python_literal(
            "{'event': 'STOPPED', 'host_status': 'NORMAL', 'cluster_status': 'OFFLINE', \
             'x': False, 'y': None, 'z': -3, 'f': 0.5, 't': (1, 2)}",
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"event": "STOPPED", "host_status": "NORMAL", "cluster_status": "OFFLINE",
                   "x": false, "y": null, "z": -3, "f": 0.5, "t": [1, 2]})
        );
    }

    #[test]
    fn json_is_read_too() {
        let v = parse_python_literal(
            r#"[{"progress": 1.0, "ok": true, "n": null, "s": "a\"b\u00e9"}]"#,
        )
        .unwrap();
        assert_eq!(
            v,
            json!([{"progress": 1.0, "ok": true, "n": null, "s": "a\"bé"}])
        );
    }

    #[test]
    fn quotes_inside_strings() {
        let v =
            parse_python_literal(r#"[{'message': "Stopped instance: 'df528f02'", 'm2': 'it\'s'}]"#)
                .unwrap();
        assert_eq!(v[0]["message"], "Stopped instance: 'df528f02'");
        assert_eq!(v[0]["m2"], "it's");
    }

    #[test]
    fn truncated_input_is_closed() {
        assert_eq!(
            parse_python_literal("{'a': [1, 2"),
            Some(json!({"a": [1, 2]}))
        );
        assert_eq!(parse_python_literal("{'a': 'xy"), Some(json!({"a": "xy"})));
        assert_eq!(parse_python_literal("{'a':"), Some(json!({"a": null})));
        assert_eq!(parse_python_literal("['a\\"), Some(json!(["a"])));
        assert_eq!(parse_python_literal("   "), None);
    }

    #[test]
    fn calls_and_prefixes() {
        let v = parse_python_literal("{'t': datetime.datetime(2020, 12, 8, 19, 51), 'u': u'x'}")
            .unwrap();
        assert_eq!(v["t"], "datetime.datetime(2020, 12, 8, 19, 51)");
        assert_eq!(v["u"], "x");
    }

    #[test]
    fn kv_pairs() {
        let v =
            parse_python_literal("delete_on_termination='False', id='35ab2ef8', n=None").unwrap();
        assert_eq!(
            v,
            json!({"delete_on_termination": "False", "id": "35ab2ef8", "n": null})
        );
        let lines = parse_kv_lines("id='a'\nid='b'\n").unwrap();
        assert_eq!(lines, vec![json!({"id": "a"}), json!({"id": "b"})]);
        assert!(parse_kv_lines("cirros (abc)").is_none());
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let deep = "[".repeat(10_000);
        assert!(parse_python_literal(&deep).is_some());
        let deep = "{'a': ".repeat(5_000);
        assert!(parse_python_literal(&deep).is_some());
    }

    #[test]
    fn garbage_does_not_loop() {
        for s in [
            "}}}",
            "{:::}",
            "[,,,]",
            "{'a' 'b'}",
            "é",
            "{é: ü}",
            "(((",
            "'",
            "\\",
        ] {
            let _ = parse_python_literal(s);
        }
    }

    /// Fuzzing found `\b` and `\f` (JSON) read as two characters: a literal printed
    /// back as JSON then read as a different key.
    #[test]
    fn every_one_letter_escape_is_read() {
        let input: &[u8] = b"{'server_\\bd': 'a\\fb\\ac\\vd', \"k\\b\": \"x\\f\"}";
        let v = parse_python_literal(std::str::from_utf8(input).unwrap()).unwrap();
        assert_eq!(v["server_\u{8}d"], "a\u{c}b\u{7}c\u{b}d");
        assert_eq!(v["k\u{8}"], "x\u{c}");
        let json = v.to_string();
        assert_eq!(parse_python_literal(&json), Some(v));
    }

    /// Fuzzing found 686 bytes that took over a gigabyte: dicts as keys of dicts,
    /// each serialised to JSON (and escaped again) at every level.
    #[test]
    fn nested_dict_keys_stay_small() {
        let input: &[u8] =
            b"{                                                          \x16\x16\x16\x16\x16\
            \x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\
            \x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\
            \x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16          {             \
            \x20                                            \x16\x16\x16\x16\x16\x16\x16\x16\
            \x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\
            \x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\
            \x16\x16\x16\x16\x16\x16\x16\x16\x16\x16\x16              /                     \
            \x20                                      \x0c\x0c\x0c\x0c\x0c\x0c\x0c\x0c      \
            \x20         /               {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{\
            {{{{{{{{{{{{{{{{{                                             \x0c\x0c\x0c\x0c\
            \x0c\x0c\x0c\x0c         \x0c\x0c\x0c\x0c\x0c\x0c\x0c\x0c                /      \
            \x20                                                     \x0c\x0c\x0c\x0c\x0c\
            \x0c\x0c\x0c              mpute0\x00\x00\x00\x00\x00\x00\x00ask                 \
            \x20                pmuet0\x00\x00\x00\x00\x00\x00\x00ask                      ";
        assert_eq!(input.len(), 686);
        let v = parse_python_literal(&String::from_utf8_lossy(input)).unwrap();
        assert!(v.to_string().len() < 4 * input.len());
        let deep = format!("{}'k': 'v'", "{".repeat(80));
        let v = parse_python_literal(&deep).unwrap();
        assert!(v.to_string().len() < 4 * deep.len());
        // A tuple key is kept as written.
        let v = parse_python_literal("{(1, 2): 'x'}").unwrap();
        assert_eq!(v["(1, 2)"], "x");
    }
}
