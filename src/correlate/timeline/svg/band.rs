//! The band above the axis where marks are labelled: each label in the first row where
//! it does not overlap another, so labels never cover each other or the lines.

/// One label to place: its horizontal extent and what it is.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Placed<T> {
    /// Left edge of what it occupies.
    pub left: f64,
    /// Right edge.
    pub right: f64,
    /// Its row, 0 nearest the axis.
    pub row: usize,
    pub item: T,
}

/// Space kept between two labels of a row.
const SPACING: f64 = 10.0;

/// Rows for `items` (each with its left and right edge), in the order given.
pub(super) fn place<T>(items: Vec<(f64, f64, T)>) -> Vec<Placed<T>> {
    let mut rows_right: Vec<f64> = Vec::new();
    let mut out = Vec::with_capacity(items.len());
    for (left, right, item) in items {
        let row = match rows_right.iter().position(|&r| r + SPACING <= left) {
            Some(row) => row,
            None => {
                rows_right.push(f64::NEG_INFINITY);
                rows_right.len() - 1
            }
        };
        rows_right[row] = right;
        out.push(Placed {
            left,
            right,
            row,
            item,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::place;

    #[test]
    fn overlapping_labels_go_to_new_rows() {
        let placed = place(vec![
            (0.0, 100.0, "a"),
            (50.0, 150.0, "b"),
            (120.0, 200.0, "c"),
            (160.0, 210.0, "d"),
        ]);
        let rows: Vec<usize> = placed.iter().map(|p| p.row).collect();
        assert_eq!(rows, [0, 1, 0, 1]);
    }
}
