//! CLI captures' tables: `| field | value |` rows by their field, list rows by their
//! column's header.

use super::Identifier;
use super::key_values::{Class, class_of};

/// What a CLI table is: no table, its header next, or its rows under these headers.
#[derive(Debug, Default)]
pub(super) enum Table {
    #[default]
    None,
    Header,
    Rows(Vec<Option<Class>>),
}

impl Identifier {
    /// A row of a CLI table: a list's cells by their column's header. `true` when the
    /// line is part of a table.
    pub(super) fn table_line(&mut self, trimmed: &str) -> bool {
        if trimmed.starts_with("+-") && trimmed.ends_with('+') {
            self.table = match std::mem::take(&mut self.table) {
                Table::None => Table::Header,
                other => other,
            };
            return true;
        }
        if !(trimmed.starts_with('|') && trimmed.ends_with('|') && trimmed.len() > 1) {
            self.table = Table::None;
            return false;
        }
        let cells: Vec<&str> = trimmed[1..trimmed.len() - 1]
            .split('|')
            .map(str::trim)
            .collect();
        match &self.table {
            Table::Header => {
                let field_value = cells.len() == 2
                    && cells[0].eq_ignore_ascii_case("field")
                    && cells[1].eq_ignore_ascii_case("value");
                self.table = Table::Rows(if field_value {
                    Vec::new()
                } else {
                    cells.iter().map(|h| class_of(h)).collect()
                });
                true
            }
            Table::Rows(columns) if columns.is_empty() => {
                // `| field | value |`
                if let [key, value] = cells[..]
                    && let Some(class) = class_of(key)
                {
                    self.value(class, value);
                }
                true
            }
            Table::Rows(columns) => {
                let columns = columns.clone();
                for (class, cell) in columns.iter().zip(&cells) {
                    if let Some(class) = class {
                        self.value(*class, cell);
                    }
                }
                true
            }
            Table::None => false,
        }
    }
}
