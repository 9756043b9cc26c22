//! What an `Error` line says when httpd reads it (the `argument-value` check's message, and
//! the 500 of an .htaccess file holding one).

/// core.c's `generate_error`: an `Error` line stops httpd wherever it is read, with its text
/// (RAW_ARGS, one pair of enclosing quotes taken off) as the message.
pub(crate) fn message(raw: &str) -> String {
    if raw.is_empty() {
        return "The Error directive was used with no message.".to_string();
    }
    let b = raw.as_bytes();
    let message = match b[0] {
        q @ (b'"' | b'\'') if b[b.len() - 1] == q => raw.get(1..raw.len() - 1).unwrap_or(""),
        _ => raw,
    };
    if message.is_empty() {
        return "an empty message (this Error line stops httpd wherever it is read)".to_string();
    }
    format!("{message} (the message of this Error line, which stops httpd wherever it is read)")
}
