//! The escaper of every HTML template (`askama.toml`): control characters made visible
//! (see [`crate::visible`]), then askama's own HTML escaping. Configured for the `html`
//! extension, so no template can forget it.

use std::fmt;

use askama::filters::{Escaper, Html};

use crate::visible::visible_controls;

/// HTML escaping that also shows control characters as visible escapes.
#[derive(Debug, Clone, Copy, Default)]
pub struct VisibleHtml;

impl Escaper for VisibleHtml {
    fn write_escaped_str<W: fmt::Write>(&self, dest: W, string: &str) -> fmt::Result {
        Html.write_escaped_str(dest, &visible_controls(string))
    }
}

#[cfg(test)]
mod tests {
    use askama::Template;

    #[derive(Template)]
    #[template(source = "<p title=\"{{ text }}\">{{ text }}</p>", ext = "html")]
    struct Probe<'a> {
        text: &'a str,
    }

    #[test]
    fn templates_escape_markup_and_show_control_characters() {
        let page = Probe {
            text: "\x1b[31m<b>x</b>\x00\x07",
        }
        .render()
        .unwrap();
        assert_eq!(
            page,
            "<p title=\"␛[31m&#60;b&#62;x&#60;/b&#62;\\x00\\x07\">␛[31m&#60;b&#62;x&#60;/b&#62;\\x00\\x07</p>"
        );
    }
}
