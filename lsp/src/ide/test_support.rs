//! Generators shared by the features' property tests: random httpd
//! configuration text with what each feature must survive — sections well and
//! badly nested, quotes, continuations, comments, `${VAR}`, tabs, CRLF,
//! non-ASCII text and trailing junk.

use proptest::prelude::*;

/// One physical line, with its line ending.
pub fn config_line() -> impl Strategy<Value = String> {
    let indent = prop::sample::select(vec!["", " ", "  ", "\t", "    ", " \t "]);
    let body = prop::sample::select(vec![
        "<Directory /srv/é>",
        "</Directory>",
        "<Location \"/a b\">",
        "</Location>",
        "<IfModule !mod_x.c> junk",
        "</IfModule>",
        "<VirtualHost *:80>",
        "</VirtualHost>",
        "<RequireAll>",
        "</RequireAll>",
        "<",
        "</",
        "<Dir",
        "Require all granted",
        "Require not env ",
        "Options -Indexes \\",
        "Header set X \"a \\",
        "  b\"",
        "\"quoted name\" arg",
        "# comment 😀 \\",
        "RewriteRule ^(.*)$ /x [L]",
        "",
        "Deny\tfrom\tall",
        "AuthName 'Zugriff für Ärzte'",
        "Define docroot /srv/é",
        "DocumentRoot ${docroot}/x ${do",
        "Order ",
        "AllowOverride AuthConfig ",
    ]);
    let end = prop::sample::select(vec!["\n", "\r\n", ""]);
    (indent, body, end).prop_map(|(i, b, e)| format!("{i}{b}{e}"))
}

/// A whole file of such lines.
pub fn config_text() -> impl Strategy<Value = String> {
    prop::collection::vec(config_line(), 0..30).prop_map(|l| l.concat())
}

/// A text and a char-boundary offset into it.
pub fn text_and_offset() -> impl Strategy<Value = (String, usize)> {
    config_text().prop_flat_map(|t| {
        let bounds: Vec<usize> = t.char_indices().map(|(i, _)| i).chain([t.len()]).collect();
        (Just(t), prop::sample::select(bounds))
    })
}
