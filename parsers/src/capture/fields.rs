//! Reading typed fields out of one record of a capture, whatever its format: table
//! cells arrive as strings (`"True"`, `"None"`, Python reprs), JSON and YAML as values.

use serde_json::{Map, Value};

use super::pylit::parse_python_literal;

/// One record: a show command's fields, or a row of a list.
pub(crate) type Obj = Map<String, Value>;

/// Lower-cases and maps `' '`/`'-'` to `'_'`, so `Request ID` finds `request_id`.
fn same_key(a: &str, b: &str) -> bool {
    let norm = |c: char| match c {
        ' ' | '-' => '_',
        c => c.to_ascii_lowercase(),
    };
    a.len() == b.len() && a.chars().map(norm).eq(b.chars().map(norm))
}

/// The value of the first of `keys` the record has (exact name first, then loosely).
pub(crate) fn get<'a>(obj: &'a Obj, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().find_map(|k| {
        obj.get(*k).or_else(|| {
            obj.iter()
                .find(|(name, _)| same_key(name, k))
                .map(|(_, v)| v)
        })
    })
}

/// True when the record has any of `keys`.
pub(crate) fn has(obj: &Obj, keys: &[&str]) -> bool {
    get(obj, keys).is_some()
}

/// True for the spellings of "no value".
pub(crate) fn is_absent(s: &str) -> bool {
    matches!(s.trim(), "" | "None" | "none" | "null" | "NULL" | "-" | "~")
}

/// Joins the lines of a table cell the way they were wrapped: `textwrap` drops the
/// space it breaks at, but keeps a hyphen it breaks after.
pub(crate) fn unwrap_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.lines().map(str::trim) {
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() && !out.ends_with('-') {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}

/// A value as text: strings unwrapped and trimmed, numbers and booleans printed, other
/// structures as JSON; `None` when absent.
pub(crate) fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => {
            let s = if s.contains('\n') {
                unwrap_lines(s)
            } else {
                s.trim().to_string()
            };
            (!is_absent(&s)).then_some(s)
        }
        Value::Bool(b) => Some(if *b { "True" } else { "False" }.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(a) if a.is_empty() => None,
        Value::Object(o) if o.is_empty() => None,
        other => Some(other.to_string()),
    }
}

/// The first of `keys` as text.
pub(crate) fn text(obj: &Obj, keys: &[&str]) -> Option<String> {
    get(obj, keys).and_then(text_of)
}

/// A boolean: JSON `true`, `True`, `true`, `yes`, `1` (and their negatives).
pub(crate) fn flag_of(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => n.as_i64().map(|i| i != 0),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" | "<is> true" => Some(true),
            "false" | "no" | "0" | "<is> false" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// The first of `keys` as a boolean.
pub(crate) fn flag(obj: &Obj, keys: &[&str]) -> Option<bool> {
    get(obj, keys).and_then(flag_of)
}

/// A number: JSON numbers and numeric strings.
pub(crate) fn number_of(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

/// A structured value: strings are read as Python/JSON literals (or `k='v'` pairs);
/// `None` when absent.
pub(crate) fn structured_of(value: &Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::String(s) if is_absent(s) => None,
        Value::String(s) => parse_python_literal(s),
        other => Some(other.clone()),
    }
}

/// The first of `keys` as a structured value.
pub(crate) fn structured(obj: &Obj, keys: &[&str]) -> Option<Value> {
    get(obj, keys).and_then(structured_of)
}

/// The objects of a list value (a list of dicts, one dict, or `k='v'` lines).
pub(crate) fn objects_of(value: &Value) -> Vec<Obj> {
    let value = match value {
        Value::String(s) => {
            if let Some(lines) = super::pylit::parse_kv_lines(s) {
                Value::Array(lines)
            } else {
                match structured_of(value) {
                    Some(v) => v,
                    None => return Vec::new(),
                }
            }
        }
        other => other.clone(),
    };
    match value {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|v| match v {
                Value::Object(o) => Some(o),
                _ => None,
            })
            .collect(),
        Value::Object(o) => vec![o],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn loose_keys_and_absent_values() {
        let Value::Object(o) = json!({"Request ID": "req-1", "message": "-", "n": null, "e": ""})
        else {
            unreachable!()
        };
        assert_eq!(text(&o, &["request_id"]).as_deref(), Some("req-1"));
        assert_eq!(text(&o, &["message"]), None);
        assert_eq!(text(&o, &["n"]), None);
        assert_eq!(text(&o, &["e"]), None);
        assert!(has(&o, &["n"]));
    }

    #[test]
    fn unwrapping_keeps_hyphen_breaks() {
        assert_eq!(
            unwrap_lines("Failed to\nevacuate caad8b3d-\nc2c3"),
            "Failed to evacuate caad8b3d-c2c3"
        );
    }

    #[test]
    fn flags() {
        assert_eq!(flag_of(&json!("False")), Some(false));
        assert_eq!(flag_of(&json!("true")), Some(true));
        assert_eq!(flag_of(&json!(true)), Some(true));
        assert_eq!(flag_of(&json!("maybe")), None);
    }
}
