//! A request the cloud refuses: the HTTP status and the explanation Nova or Cinder
//! would give.

/// A refused request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub message: String,
}

impl Refusal {
    pub fn new(status: u16, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Refusal {
        Refusal::new(400, message)
    }

    pub fn not_found(message: impl Into<String>) -> Refusal {
        Refusal::new(404, message)
    }

    pub fn conflict(message: impl Into<String>) -> Refusal {
        Refusal::new(409, message)
    }
}
