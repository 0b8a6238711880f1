//! cliff's default table output (prettytable): `+---+---+` borders, a header row, the
//! data rows, every cell padded to its column. A cell longer than its column
//! (`--fit-width`, or a value with newlines) continues on the next lines with the other
//! cells blank. Rows `grep`ped out of a table come without borders.

use serde_json::Value;

use super::fields::Obj;

/// A table as printed: its header (when the borders show which row it is) and rows of
/// cells; a cell that spanned several lines has them joined with `\n`.
#[derive(Debug, Default)]
pub(crate) struct Table {
    pub header: Option<Vec<String>>,
    pub rows: Vec<Vec<String>>,
}

/// What a table holds once its header is understood.
#[derive(Debug)]
pub(crate) enum Shape {
    /// A `Field | Value` table of a show command.
    Fields(Obj),
    /// A list command's rows, keyed by column name.
    Rows(Vec<Obj>),
}

/// True for a border line: `+`, then `-`/`=`/`+` only.
pub(crate) fn is_border(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && t.starts_with("+-") && t.bytes().all(|b| matches!(b, b'+' | b'-' | b'='))
}

/// True for a row line: `|` … `|`.
pub(crate) fn is_row(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 2 && t.starts_with('|') && t.ends_with('|')
}

/// Splits a row into trimmed cells, by the border's `+` positions when they line up,
/// else at every `|`.
fn cells(line: &str, bounds: &[usize]) -> Vec<String> {
    let line = line.trim();
    if bounds.len() >= 2 {
        let chars: Vec<char> = line.chars().collect();
        let aligned = bounds.iter().all(|&b| chars.get(b) == Some(&'|'));
        if aligned && chars.len() == bounds.last().map_or(0, |l| l + 1) {
            return bounds
                .windows(2)
                .map(|w| match w {
                    [a, b] => chars
                        .get(a + 1..*b)
                        .map(|s| s.iter().collect::<String>().trim().to_string())
                        .unwrap_or_default(),
                    _ => String::new(),
                })
                .collect();
        }
    }
    let inner = line.strip_prefix('|').unwrap_or(line);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

/// Reads the lines of one table (borders and rows; anything else is skipped).
pub(crate) fn parse_table<'a>(lines: impl IntoIterator<Item = &'a str>) -> Table {
    let mut bounds: Vec<usize> = Vec::new();
    let mut borders = 0usize;
    let mut header: Option<Vec<String>> = None;
    let mut header_lines: Vec<Vec<String>> = Vec::new();
    let mut rows: Vec<Vec<String>> = Vec::new();
    for line in lines {
        if is_border(line) {
            if borders == 0 {
                bounds = line
                    .trim()
                    .chars()
                    .enumerate()
                    .filter(|(_, c)| *c == '+')
                    .map(|(i, _)| i)
                    .collect();
            }
            borders += 1;
            if borders == 2 && !header_lines.is_empty() {
                header = Some(merge(std::mem::take(&mut header_lines)).unwrap_or_default());
            }
            continue;
        }
        if !is_row(line) {
            continue;
        }
        let row = cells(line, &bounds);
        if borders == 1 {
            header_lines.push(row);
            continue;
        }
        let continues = rows.last().is_some_and(|prev: &Vec<String>| {
            row.first().is_none_or(|c| c.is_empty())
                || prev.first().is_some_and(|c| c.ends_with('-'))
        });
        match rows.last_mut() {
            Some(prev) if continues => append(prev, row),
            _ => rows.push(row),
        }
    }
    if header.is_none() && !header_lines.is_empty() {
        // A header with no border under it: a table cut short after its header row.
        header = merge(header_lines);
    }
    Table { header, rows }
}

/// Adds a continuation line's cells to the row it continues.
fn append(prev: &mut Vec<String>, row: Vec<String>) {
    for (i, cell) in row.into_iter().enumerate() {
        if cell.is_empty() {
            continue;
        }
        match prev.get_mut(i) {
            Some(p) if p.is_empty() => *p = cell,
            Some(p) => {
                p.push('\n');
                p.push_str(&cell);
            }
            None => prev.push(cell),
        }
    }
}

/// Merges the lines of a wrapped header row.
fn merge(lines: Vec<Vec<String>>) -> Option<Vec<String>> {
    let mut it = lines.into_iter();
    let mut first = it.next()?;
    for line in it {
        for (i, cell) in line.into_iter().enumerate() {
            if let Some(p) = first.get_mut(i).filter(|_| !cell.is_empty()) {
                if !p.is_empty() {
                    p.push(' ');
                }
                p.push_str(&cell);
            }
        }
    }
    Some(first)
}

impl Table {
    /// The table as fields or rows. `columns` names the columns of a headerless
    /// (`grep`ped) list, when the command is known; without it, two-cell rows are read
    /// as fields and anything else is not understood.
    pub(crate) fn shape(self, columns: Option<&[String]>) -> Option<Shape> {
        let is_fields =
            |h: &[String]| matches!(h, [f, v] if (f == "Field" || f == "Property") && v == "Value");
        let header = match self.header {
            Some(h) if is_fields(&h) => return Some(Shape::Fields(fields(self.rows))),
            Some(h) => h,
            None => match columns {
                Some(c) if self.rows.iter().any(|r| r.len() > 2) => c.to_vec(),
                Some(_) | None if self.rows.iter().all(|r| r.len() == 2) => {
                    return Some(Shape::Fields(fields(self.rows)));
                }
                Some(c) => c.to_vec(),
                None => return None,
            },
        };
        if header.is_empty() {
            return None;
        }
        let rows = self
            .rows
            .into_iter()
            .map(|r| {
                header
                    .iter()
                    .cloned()
                    .zip(r.into_iter().map(Value::String))
                    .collect::<Obj>()
            })
            .collect();
        Some(Shape::Rows(rows))
    }
}

fn fields(rows: Vec<Vec<String>>) -> Obj {
    let mut obj = Obj::new();
    for row in rows {
        let mut it = row.into_iter();
        let (Some(key), value) = (it.next(), it.collect::<Vec<_>>().join(" | ")) else {
            continue;
        };
        if !key.is_empty() && !obj.contains_key(&key) {
            obj.insert(key, Value::String(value));
        }
    }
    obj
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_table_with_wrapped_cell() {
        let t = "\
+-------+------------------+
| Field | Value            |
+-------+------------------+
| id    | abc              |
| long  | first part of    |
|       | the value        |
| empty |                  |
+-------+------------------+";
        let Some(Shape::Fields(f)) = parse_table(t.lines()).shape(None) else {
            panic!("not fields");
        };
        assert_eq!(f["id"], "abc");
        assert_eq!(f["long"], "first part of\nthe value");
        assert_eq!(f["empty"], "");
    }

    #[test]
    fn list_table_and_pipe_in_value() {
        let t = "\
+----+-----------+
| ID | Note      |
+----+-----------+
| a  | x | y     |
| b- | z         |
| c  | w         |
+----+-----------+";
        let Some(Shape::Rows(rows)) = parse_table(t.lines()).shape(None) else {
            panic!("not rows");
        };
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["Note"], "x | y");
        assert_eq!(rows[1]["ID"], "b-\nc");
    }

    #[test]
    fn grepped_rows() {
        let t = "| multiattach | False |";
        let Some(Shape::Fields(f)) = parse_table(t.lines()).shape(None) else {
            panic!("not fields");
        };
        assert_eq!(f["multiattach"], "False");
    }
}
