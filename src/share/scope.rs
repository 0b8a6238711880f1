//! What a share link shows: one finding, one timeline (a subject and an optional time
//! range), or a whole analysis. Stored as JSON in the share's row; always the real
//! values (the view redacts them when it serves the link).

use crate::model::EventsById;
use serde::{Deserialize, Serialize};

use crate::correlate::Analysis;
use crate::correlate::timeline::{Subject, select};
use crate::model::{EventId, Uuid};

/// The scope of a share.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Scope {
    /// One finding (its id in the analysis).
    Finding {
        /// The finding's id.
        finding: String,
    },
    /// The timeline of one subject.
    Timeline(TimelineScope),
    /// The whole analysis: its findings and the redacted bundle.
    Analysis,
}

/// A timeline: exactly one subject, and a range of time when given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TimelineScope {
    /// An instance UUID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// A Masakari notification UUID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notification: Option<String>,
    /// A host name, short or qualified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Lines from this time on (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Lines up to this time (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

impl Scope {
    /// `finding`, `timeline` or `analysis`.
    pub fn kind(&self) -> &'static str {
        match self {
            Scope::Finding { .. } => "finding",
            Scope::Timeline(_) => "timeline",
            Scope::Analysis => "analysis",
        }
    }
}

impl TimelineScope {
    /// The subject, or why the scope names none (or more than one).
    pub fn subject(&self) -> Result<Subject, String> {
        let some = |v: &Option<String>| {
            v.as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        };
        let given = [
            some(&self.instance).map(|v| ("instance", v)),
            some(&self.notification).map(|v| ("notification", v)),
            some(&self.host).map(|v| ("host", v)),
        ];
        let mut named = given.into_iter().flatten();
        let (Some((kind, value)), None) = (named.next(), named.next()) else {
            return Err("give exactly one of instance, notification or host".into());
        };
        let uuid = |v: &str| {
            Uuid::parse(v)
                .ok_or_else(|| format!("{kind} {v:?} is not a UUID (8-4-4-4-12 hex digits)"))
        };
        match kind {
            "instance" => Ok(Subject::Instance(uuid(&value)?)),
            "notification" => Ok(Subject::Notification(uuid(&value)?)),
            _ => Ok(Subject::Host(value)),
        }
    }

    /// The range in UTC nanoseconds, or why a bound is not a time.
    pub fn range(&self) -> Result<(i64, i64), String> {
        let bound = |v: &Option<String>, default: i64| match v.as_deref().map(str::trim) {
            None | Some("") => Ok(default),
            Some(t) => t
                .parse::<jiff::Timestamp>()
                .map(|t| i64::try_from(t.as_nanosecond()).unwrap_or(default))
                .map_err(|e| format!("{t:?} is not an RFC 3339 time: {e}")),
        };
        let (from, to) = (bound(&self.from, i64::MIN)?, bound(&self.to, i64::MAX)?);
        if to < from {
            return Err("the range ends before it starts".into());
        }
        Ok((from, to))
    }

    /// The scope checked: a subject and a range.
    pub fn check(&self) -> Result<(), String> {
        self.subject().map(|_| ())?;
        self.range().map(|_| ())
    }

    /// The events of the scope in `analysis` (with `subject` already redacted to the
    /// analysis's names), within the range.
    pub fn events(&self, analysis: &Analysis, subject: &Subject) -> Vec<EventId> {
        let Ok((from, to)) = self.range() else {
            return Vec::new();
        };
        select(analysis, subject)
            .into_iter()
            .filter(|&id| {
                analysis
                    .events
                    .by_id(id)
                    .is_some_and(|e| e.time >= from && e.time <= to)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_round_trip_and_timelines_name_one_subject() {
        let scope = Scope::Timeline(TimelineScope {
            host: Some("node02ob100".into()),
            from: Some("2020-12-08T19:48:00Z".into()),
            ..TimelineScope::default()
        });
        let json = serde_json::to_string(&scope).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"timeline","host":"node02ob100","from":"2020-12-08T19:48:00Z"}"#
        );
        assert_eq!(serde_json::from_str::<Scope>(&json).unwrap(), scope);
        assert_eq!(
            serde_json::from_str::<Scope>(r#"{"kind":"analysis"}"#).unwrap(),
            Scope::Analysis
        );
        let two = TimelineScope {
            host: Some("a".into()),
            instance: Some("56ce6206-3659-495e-a6ea-f4d3d578cc96".into()),
            ..TimelineScope::default()
        };
        assert!(two.check().is_err());
        let bad_time = TimelineScope {
            host: Some("a".into()),
            to: Some("yesterday".into()),
            ..TimelineScope::default()
        };
        assert!(bad_time.check().unwrap_err().contains("RFC 3339"));
        let bad_uuid = TimelineScope {
            instance: Some("x".into()),
            ..TimelineScope::default()
        };
        assert!(bad_uuid.check().unwrap_err().contains("not a UUID"));
    }
}
