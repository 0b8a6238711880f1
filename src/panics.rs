//! What a caught panic said: its message when it carried one (`panic!` with a string
//! literal or a formatted string), for logs and failure reasons.

use std::any::Any;

/// The message of a panic's payload, or `"(no message)"`.
pub fn message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("(no message)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panics_message_is_read_from_either_payload() {
        let literal = std::panic::catch_unwind(|| panic!("a literal")).unwrap_err();
        assert_eq!(message(literal.as_ref()), "a literal");
        let n = 7;
        let formatted = std::panic::catch_unwind(|| panic!("line {n}")).unwrap_err();
        assert_eq!(message(formatted.as_ref()), "line 7");
        let other = std::panic::catch_unwind(|| std::panic::panic_any(42_u8)).unwrap_err();
        assert_eq!(message(other.as_ref()), "(no message)");
    }
}
