//! The search page's parts beside the hits: the links that change one thing of the
//! search (a facet, a time range), the facet lists and the histogram drawn as SVG bars
//! that zoom to their range (a click on one, or a drag across several: static/brush.js).

use std::fmt::Write as _;

use super::format::{count, encode_component, escape_html, readable_time};
use crate::index::{FacetCount, Facets, Histogram, NO_LEVEL};

/// What a search page was asked: every parameter but the page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchState {
    pub q: String,
    pub from: String,
    pub to: String,
    pub host: String,
    pub service: String,
    pub level: String,
}

impl SearchState {
    /// Nothing asked: the page shows the form only.
    pub fn is_empty(&self) -> bool {
        *self == SearchState::default()
    }

    /// The page of this search (`page` when past the first), only non-empty parameters.
    pub fn url(&self, id: &str, page: Option<usize>) -> String {
        let mut url = format!("/analyses/{id}/search");
        let mut sep = '?';
        for (name, value) in [
            ("q", &self.q),
            ("from", &self.from),
            ("to", &self.to),
            ("host", &self.host),
            ("service", &self.service),
            ("level", &self.level),
        ] {
            if !value.trim().is_empty() {
                let _ = write!(url, "{sep}{name}={}", encode_component(value.trim()));
                sep = '&';
            }
        }
        if let Some(page) = page.filter(|p| *p > 1) {
            let _ = write!(url, "{sep}page={page}");
        }
        url
    }

    /// This search within `[from, to]`.
    pub fn within(&self, from: &str, to: &str) -> SearchState {
        SearchState {
            from: from.to_string(),
            to: to.to_string(),
            ..self.clone()
        }
    }
}

/// The search of every line on every host within 30 s of `timestamp` (RFC 3339).
pub fn around(id: &str, timestamp: &str) -> Option<String> {
    let at: jiff::Timestamp = timestamp.parse().ok()?;
    let half = jiff::SignedDuration::from_secs(30);
    let state = SearchState {
        from: at.checked_sub(half).ok()?.to_string(),
        to: at.checked_add(half).ok()?.to_string(),
        ..SearchState::default()
    };
    Some(state.url(id, None))
}

/// One facet value as a link: to filter by it, or (when it is the filter) to drop it.
#[derive(Debug)]
pub struct FacetLink {
    pub value: String,
    pub count: String,
    pub url: Option<String>,
    pub active: bool,
}

/// A facet: its label and values.
#[derive(Debug)]
pub struct FacetGroup {
    pub label: &'static str,
    pub values: Vec<FacetLink>,
}

/// The facet groups of `facets`, each value linking to the search filtered by it.
pub fn facet_groups(id: &str, state: &SearchState, facets: &Facets) -> Vec<FacetGroup> {
    let group = |label: &'static str,
                 values: &[FacetCount],
                 current: &str,
                 set: &dyn Fn(&mut SearchState, String)| {
        let values = values
            .iter()
            .map(|v| {
                let active = !current.is_empty() && current.eq_ignore_ascii_case(&v.value);
                // Hits without a level cannot be filtered to.
                let url = (v.value != NO_LEVEL).then(|| {
                    let mut next = state.clone();
                    set(
                        &mut next,
                        if active {
                            String::new()
                        } else {
                            v.value.clone()
                        },
                    );
                    next.url(id, None)
                });
                FacetLink {
                    value: v.value.clone(),
                    count: count(v.count as u64),
                    url,
                    active,
                }
            })
            .collect();
        FacetGroup { label, values }
    };
    vec![
        group("Host", &facets.host, &state.host, &|s, v| s.host = v),
        group("Service", &facets.service, &state.service, &|s, v| {
            s.service = v
        }),
        group("Level", &facets.level, &state.level, &|s, v| s.level = v),
    ]
}

/// The histogram as inline SVG: one bar per bucket, each a link to the search within
/// its bucket, with its range and count as its title. Empty when there is no bucket.
/// The bars carry their range and the SVG the search without one, so a drag across bars
/// can search within them (static/brush.js).
pub fn histogram_svg(id: &str, state: &SearchState, histogram: &Histogram) -> String {
    const WIDTH: f64 = 720.0;
    const HEIGHT: f64 = 72.0;
    let buckets = &histogram.buckets;
    if buckets.is_empty() {
        return String::new();
    }
    let most = buckets.iter().map(|b| b.count).max().unwrap_or(0).max(1) as f64;
    let step = WIDTH / buckets.len() as f64;
    let mut svg = format!(
        r#"<svg class="histogram" viewBox="0 0 {WIDTH} {HEIGHT}" preserveAspectRatio="none" role="img" aria-label="hits over time" data-search="{}">"#,
        escape_html(&state.within("", "").url(id, None))
    );
    for (i, b) in buckets.iter().enumerate() {
        let height = if b.count == 0 {
            0.0
        } else {
            (b.count as f64 / most * (HEIGHT - 2.0)).max(2.0)
        };
        let last_ns = last_instant(&b.end);
        let url = state.within(&b.start, &last_ns).url(id, None);
        let title = format!(
            "{} – {}: {}",
            readable_time(&b.start),
            readable_time(&b.end),
            count(b.count as u64)
        );
        let _ = write!(
            svg,
            r#"<a href="{}" data-from="{}" data-to="{}"><rect class="slot" x="{:.2}" y="0" width="{:.2}" height="{HEIGHT}"/><rect class="bar" x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}"/><title>{}</title></a>"#,
            escape_html(&url),
            escape_html(&b.start),
            escape_html(&last_ns),
            i as f64 * step,
            step,
            i as f64 * step + step * 0.1,
            HEIGHT - height,
            step * 0.8,
            height,
            escape_html(&title)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The last nanosecond before `end` (a bucket's `to`, which is inclusive).
fn last_instant(end: &str) -> String {
    end.parse::<jiff::Timestamp>()
        .ok()
        .and_then(|t| t.checked_sub(jiff::SignedDuration::from_nanos(1)).ok())
        .map_or_else(|| end.to_string(), |t| t.to_string())
}

/// `1 s`, `5 min`, `1 h`, `1 d` for a bucket width.
pub fn width_label(seconds: i64) -> String {
    match seconds {
        s if s % 86_400 == 0 => format!("{} d", s / 86_400),
        s if s % 3600 == 0 => format!("{} h", s / 3600),
        s if s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Bucket;

    #[test]
    fn links_keep_the_search_and_change_one_thing() {
        let state = SearchState {
            q: "req-1 x".into(),
            level: "ERROR".into(),
            ..SearchState::default()
        };
        assert_eq!(
            state.url("a1", None),
            "/analyses/a1/search?q=req-1%20x&level=ERROR"
        );
        assert_eq!(
            state.url("a1", Some(3)),
            "/analyses/a1/search?q=req-1%20x&level=ERROR&page=3"
        );
        assert_eq!(
            around("a1", "2020-12-08T19:51:12.5Z").unwrap(),
            "/analyses/a1/search?from=2020-12-08T19%3A50%3A42.5Z&to=2020-12-08T19%3A51%3A42.5Z"
        );
        let facets = Facets {
            level: vec![
                FacetCount {
                    value: "ERROR".into(),
                    count: 2,
                },
                FacetCount {
                    value: NO_LEVEL.into(),
                    count: 1,
                },
            ],
            ..Facets::default()
        };
        let groups = facet_groups("a1", &state, &facets);
        let level = &groups[2].values;
        // The active filter's link drops it; no link to filter "no level".
        assert!(level[0].active);
        assert_eq!(
            level[0].url.as_deref(),
            Some("/analyses/a1/search?q=req-1%20x")
        );
        assert_eq!(level[1].url, None);
    }

    #[test]
    fn bars_link_to_their_range() {
        let histogram = Histogram {
            bucket_seconds: 60,
            buckets: vec![
                Bucket {
                    start: "2020-12-08T19:51:00Z".into(),
                    end: "2020-12-08T19:52:00Z".into(),
                    count: 4,
                },
                Bucket {
                    start: "2020-12-08T19:52:00Z".into(),
                    end: "2020-12-08T19:53:00Z".into(),
                    count: 0,
                },
            ],
            untimed: 0,
        };
        let svg = histogram_svg("a1", &SearchState::default(), &histogram);
        assert_eq!(svg.matches("<a href=").count(), 2);
        assert!(
            svg.contains("from=2020-12-08T19%3A51%3A00Z&amp;to=2020-12-08T19%3A51%3A59.999999999Z")
        );
        assert!(svg.contains("2020-12-08 19:51:00 – 2020-12-08 19:52:00: 4"));
        // What a drag across bars needs: the search without a range, each bar's range.
        assert!(svg.contains(r#"data-search="/analyses/a1/search""#));
        assert!(svg.contains(
            r#"data-from="2020-12-08T19:52:00Z" data-to="2020-12-08T19:52:59.999999999Z""#
        ));
        assert_eq!(width_label(60), "1 min");
        assert_eq!(width_label(5), "5 s");
    }
}
