//! The text of every readable file of the sample scenarios: the real-format lines the
//! redaction engine's equivalence tests run over.

/// Each text file under `samples/scenarios` (compressed files are not text and are left
/// out).
pub(crate) fn sample_texts() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/scenarios");
    let mut files = vec![root];
    let mut texts = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            texts.push(text);
        }
    }
    texts
}
