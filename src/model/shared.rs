//! Strings that many events repeat (HTTP methods, the paths of status polls, user
//! agents), held once and shared.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How many strings a thread keeps for sharing before it starts again: the set is a
/// cache for neighbouring lines (the polls of one wait), not a registry, and a service
/// thread must not grow it forever.
const INTERNED_MAX: usize = 4096;

thread_local! {
    static INTERNED: RefCell<HashSet<Arc<str>>> = RefCell::default();
}

/// An immutable string shared by the events that repeat it; reads as a `&str`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SharedStr(Arc<str>);

impl SharedStr {
    /// The shared copy of `text` when this thread has seen it lately, else a new one.
    pub fn interned(text: &str) -> SharedStr {
        INTERNED.with(|cell| {
            let mut set = cell.borrow_mut();
            if let Some(found) = set.get(text) {
                return SharedStr(found.clone());
            }
            if set.len() >= INTERNED_MAX {
                set.clear();
            }
            let new: Arc<str> = Arc::from(text);
            set.insert(new.clone());
            SharedStr(new)
        })
    }

    /// The string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for SharedStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for SharedStr {
    fn from(text: &str) -> SharedStr {
        SharedStr::interned(text)
    }
}

impl From<String> for SharedStr {
    fn from(text: String) -> SharedStr {
        SharedStr::interned(&text)
    }
}

impl PartialEq<str> for SharedStr {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for SharedStr {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl Serialize for SharedStr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for SharedStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SharedStr, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(SharedStr::interned(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_strings_share_one_copy() {
        let a = SharedStr::interned("/v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96");
        let b = SharedStr::from("/v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96");
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert_eq!(a, "/v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96");
        let json = serde_json::to_string(&a).unwrap();
        let back: SharedStr = serde_json::from_str(&json).unwrap();
        assert_eq!(back, a);
        for n in 0..INTERNED_MAX + 1 {
            SharedStr::interned(&n.to_string());
        }
        assert!(INTERNED.with(|s| s.borrow().len()) <= INTERNED_MAX);
    }
}
