//! Debian's `envvars`: the shell file `apache2ctl` (and the service unit through it) sources
//! before starting httpd, beside `apache2.conf`, which sets the `${APACHE_…}` variables that
//! file uses. httpd takes a `${NAME}` no `Define` set from its environment (AH00111 otherwise),
//! so the names this file sets are not undefined, and their values are known where the file
//! says them plainly.
//!
//! Only plain assignments are read (`NAME=value` or `export NAME=value`, one per line, the
//! value unquoted or in one pair of quotes, `$NAME`/`${NAME}` of names read before). A name
//! assigned twice with different values (say, in the two branches of an `if`), assigned from
//! anything else (a command, `${X##y}`), or `unset` after, is set but its value is unknown.

use std::collections::HashMap;

/// The variables `text` sets: Some(value) where the value is known, None where it is set to
/// something only the shell knows.
pub(crate) fn read(text: &str) -> HashMap<String, Option<String>> {
    let mut vars: HashMap<String, Option<String>> = HashMap::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(names) = line.strip_prefix("unset ") {
            for n in names.split_whitespace().filter(|n| is_name(n)) {
                vars.insert(n.to_string(), None);
            }
            continue;
        }
        let line = line.strip_prefix("export ").map(str::trim_start).unwrap_or(line);
        let Some((name, value)) = line.split_once('=') else { continue };
        if !is_name(name) {
            continue;
        }
        let value = value_of(value, &vars);
        match vars.get(name) {
            Some(old) if *old != value => {
                vars.insert(name.to_string(), None);
            }
            _ => {
                vars.insert(name.to_string(), value);
            }
        }
    }
    vars
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A plain value: unquoted or in one pair of quotes, with `$NAME`/`${NAME}` of known names;
/// None for anything else.
fn value_of(raw: &str, vars: &HashMap<String, Option<String>>) -> Option<String> {
    let raw = raw.trim_end();
    if let Some(quoted) = raw.strip_prefix('\'') {
        let v = quoted.strip_suffix('\'')?;
        return (!v.contains('\'')).then(|| v.to_string());
    }
    let body = match raw.strip_prefix('"') {
        Some(quoted) => quoted.strip_suffix('"').filter(|v| !v.contains(['"', '`', '\\']))?,
        None if raw.contains([' ', '\t', ';', '&', '|', '(', ')', '<', '>', '`', '\\', '"', '\'', '*', '?', '[']) => {
            return None
        }
        None => raw,
    };
    let mut out = String::new();
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = if let Some(inner) = after.strip_prefix('{') {
            let end = inner.find('}')?;
            (&inner[..end], &inner[end + 1..])
        } else {
            let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if !is_name(name) {
            return None;
        }
        out.push_str(vars.get(name)?.as_deref()?);
        rest = tail;
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debians_envvars() {
        let text = "unset HOME\nif [ \"${APACHE_CONFDIR##/etc/apache2-}\" != \"${APACHE_CONFDIR}\" ] ; then\n\tSUFFIX=\"-${APACHE_CONFDIR##/etc/apache2-}\"\nelse\n\tSUFFIX=\nfi\nexport APACHE_RUN_USER=www-data\nexport APACHE_RUN_GROUP=www-data\nexport APACHE_PID_FILE=/var/run/apache2$SUFFIX/apache2.pid\nexport APACHE_LOG_DIR=/var/log/apache2$SUFFIX\nexport LANG=C\nexport LANG\nBASE=/srv\nexport DOCS=\"${BASE}/www\"\nQ='a b'\nCMD=$(hostname)\n";
        let vars = read(text);
        let get = |n: &str| vars.get(n).cloned();
        assert_eq!(get("APACHE_RUN_USER"), Some(Some("www-data".into())));
        assert_eq!(get("SUFFIX"), Some(None), "two branches of an if");
        assert_eq!(get("APACHE_LOG_DIR"), Some(None), "from SUFFIX");
        assert_eq!(get("LANG"), Some(Some("C".into())));
        assert_eq!(get("DOCS"), Some(Some("/srv/www".into())));
        assert_eq!(get("Q"), Some(Some("a b".into())));
        assert_eq!(get("CMD"), Some(None));
        assert_eq!(get("HOME"), Some(None));
        assert_eq!(get("APACHE_CONFDIR"), None);
    }
}
