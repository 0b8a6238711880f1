//! The picture of each finding of a bundle, as the web UI's finding page draws it:
//! `cargo run --example finding_picture -- BUNDLE OUT_DIR` writes `OUT_DIR/<detector>.svg`.

use std::path::PathBuf;

use anyhow::Context as _;
use evacdoc::correlate::timeline::SvgOptions;
use evacdoc::detect::{DetectOptions, detect, finding_picture};
use evacdoc::run::{Options, analyze};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args_os().skip(1);
    let (Some(bundle), Some(out)) = (args.next(), args.next()) else {
        anyhow::bail!("usage: finding_picture BUNDLE OUT_DIR");
    };
    let out = PathBuf::from(out);
    let analysis = analyze(&[PathBuf::from(bundle)], &Options::default())?;
    for (i, finding) in detect(&analysis, &DetectOptions::default())
        .iter()
        .enumerate()
    {
        let svg = finding_picture(&analysis, finding, &SvgOptions::default());
        let path = out.join(format!("{i}-{}.svg", finding.detector));
        std::fs::write(&path, svg).with_context(|| format!("cannot write {}", path.display()))?;
        println!("{}", path.display());
    }
    Ok(())
}
