//! publishDiagnostics serialized for the output (see [`super::output`]).
//!
//! The protocol resends a document's diagnostics whole at every version, and a
//! keystroke changes few of them: each document keeps the JSON of the diagnostics
//! it last serialized, and the next list copies the JSON of those equal to the
//! ones at its start and at its end, serializing only the ones between.

use super::output::Frame;
use std::io::Write;
use tower_lsp::lsp_types::notification::{Notification, PublishDiagnostics};
use tower_lsp::lsp_types::{Diagnostic, PublishDiagnosticsParams, Url};

/// A document's diagnostics with their JSON, one after the other.
#[derive(Debug, Default)]
pub struct DiagnosticsJson {
    diags: Vec<Diagnostic>,
    json: Vec<u8>,
    /// Where each diagnostic's JSON ends in `json`.
    ends: Vec<usize>,
}

impl DiagnosticsJson {
    fn start(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.ends[i - 1]
        }
    }

    /// Replaces the diagnostics, reusing the JSON of the unchanged ones at the start
    /// and at the end. Gives the diagnostics back if one could not be serialized
    /// (then nothing is kept).
    #[cfg(test)]
    pub fn update(&mut self, diags: Vec<Diagnostic>) -> Result<(), Vec<Diagnostic>> {
        self.update_with(&diags, |a, b| a == b, Clone::clone)
    }

    /// Replaces the diagnostics as `update` (a test helper) does, from items that become
    /// diagnostics: `same` tells
    /// whether an item would convert to a kept diagnostic, so that only the items
    /// between the unchanged start and end are converted (a keystroke in a file of
    /// thousands of diagnostics converts a few). On a serialization error, gives back
    /// every item converted.
    pub fn update_with<T>(
        &mut self,
        items: &[T],
        same: impl Fn(&T, &Diagnostic) -> bool,
        convert: impl Fn(&T) -> Diagnostic,
    ) -> Result<(), Vec<Diagnostic>> {
        let old = std::mem::take(self);
        let prefix = items.iter().zip(&old.diags).take_while(|(a, b)| same(a, b)).count();
        let most = items.len().min(old.diags.len()) - prefix;
        let suffix = items.iter().rev().zip(old.diags.iter().rev()).take(most).take_while(|(a, b)| same(a, b)).count();
        let mut json = Vec::with_capacity(old.json.len() + 4096);
        json.extend_from_slice(&old.json[..old.start(prefix)]);
        let mut ends = Vec::with_capacity(items.len());
        ends.extend_from_slice(&old.ends[..prefix]);
        let mut diags = Vec::with_capacity(items.len());
        let from = old.start(old.diags.len() - suffix);
        let old_ends = old.ends[old.diags.len() - suffix..].to_vec();
        let mut old_diags = old.diags;
        let kept_end = old_diags.split_off(old_diags.len() - suffix);
        old_diags.truncate(prefix);
        diags.extend(old_diags);
        for item in &items[prefix..items.len() - suffix] {
            let d = convert(item);
            if let Err(e) = serde_json::to_writer(&mut json, &d) {
                tracing::error!("serializing a diagnostic: {e}");
                return Err(items.iter().map(convert).collect());
            }
            diags.push(d);
            ends.push(json.len());
        }
        let at = json.len();
        json.extend_from_slice(&old.json[from..]);
        ends.extend(old_ends.iter().map(|e| e - from + at));
        diags.extend(kept_end);
        *self = DiagnosticsJson { diags, json, ends };
        Ok(())
    }

    /// The publishDiagnostics notification of these diagnostics.
    pub fn frame(&self, uri: &Url, version: Option<i32>) -> Frame {
        let mut body = Vec::with_capacity(self.json.len() + self.diags.len() + uri.as_str().len() + 128);
        write!(body, r#"{{"jsonrpc":"2.0","method":"{}","params":{{"uri":"#, PublishDiagnostics::METHOD).unwrap();
        // A URL serializes as a JSON string, which cannot fail.
        serde_json::to_writer(&mut body, uri).unwrap();
        body.extend_from_slice(br#","diagnostics":["#);
        for i in 0..self.diags.len() {
            if i > 0 {
                body.push(b',');
            }
            body.extend_from_slice(&self.json[self.start(i)..self.ends[i]]);
        }
        body.push(b']');
        if let Some(v) = version {
            write!(body, r#","version":{v}"#).unwrap();
        }
        body.extend_from_slice(b"}}");
        Frame::new(body)
    }
}

/// The parameters a frame made by [`DiagnosticsJson::frame`] carries, to send them
/// another way.
pub fn params_of(frame: &Frame) -> Option<PublishDiagnosticsParams> {
    let req: tower_lsp::jsonrpc::Request = serde_json::from_slice(frame.body()).ok()?;
    serde_json::from_value(req.params()?.clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp::lsp_types::*;

    fn diag(line: u32, message: &str) -> Diagnostic {
        let uri = Url::parse("file:///etc/apache2/sites-available/caf%C3%A9.conf").unwrap();
        let range = Range::new(Position::new(line, 4), Position::new(line, 9));
        Diagnostic {
            range,
            severity: Some(DiagnosticSeverity::WARNING),
            code: Some(NumberOrString::String("deprecated-order".into())),
            source: Some("apache-lsp".into()),
            message: format!("{message} « deny,allow » — ünïcödé 🦀 \"quoted\"\n\tnext"),
            related_information: Some(vec![DiagnosticRelatedInformation {
                location: Location { uri, range },
                message: "here".into(),
            }]),
            tags: Some(vec![DiagnosticTag::DEPRECATED]),
            ..Default::default()
        }
    }

    /// The frame is the notification tower-lsp would have sent: its own decoder
    /// reads it, and the parameters read back equal those given, after lists that
    /// keep, change, insert and remove diagnostics at the start, middle and end.
    #[test]
    fn frames_carry_the_diagnostics_given() {
        let uri = Url::parse("file:///etc/apache2/sites-available/caf%C3%A9.conf").unwrap();
        let base: Vec<Diagnostic> = (0..10).map(|i| diag(i, "Order")).collect();
        let mut changed_middle = base.clone();
        changed_middle[4] = diag(4, "Allow");
        let mut inserted = base.clone();
        inserted.insert(5, diag(5, "Deny"));
        let mut removed_ends = base.clone();
        removed_ends.remove(9);
        removed_ends.remove(0);
        let lists = [base.clone(), base.clone(), changed_middle, inserted, vec![], base.clone(), removed_ends, base];
        let mut json = DiagnosticsJson::default();
        for (n, list) in lists.into_iter().enumerate() {
            let version = (n % 3 != 0).then_some(n as i32);
            json.update(list.clone()).unwrap();
            let frame = json.frame(&uri, version);
            let bytes = frame.to_bytes();
            let text = std::str::from_utf8(&bytes).unwrap();
            let (header, body) = text.split_once("\r\n\r\n").unwrap();
            assert_eq!(header, format!("Content-Length: {}", body.len()));
            let req: tower_lsp::jsonrpc::Request = serde_json::from_str(body).unwrap();
            assert_eq!(req.method(), "textDocument/publishDiagnostics");
            assert_eq!(req.id(), None);
            let want = PublishDiagnosticsParams::new(uri.clone(), list.clone(), version);
            assert_eq!(params_of(&frame), Some(want.clone()), "list {n}");
            // Byte for byte what serializing the whole list gives.
            let whole = serde_json::json!({"jsonrpc": "2.0", "method": req.method(), "params": want});
            assert_eq!(serde_json::from_str::<serde_json::Value>(body).unwrap(), whole);
            let fresh = {
                let mut j = DiagnosticsJson::default();
                j.update(list).unwrap();
                j.frame(&uri, version).to_bytes()
            };
            assert_eq!(bytes, fresh, "list {n}");
        }
    }

    /// Items that convert to the diagnostics kept at the start and the end are not
    /// converted again, and the frame is the one a fresh list gives.
    #[test]
    fn update_with_converts_only_the_changed_middle() {
        let uri = Url::parse("file:///etc/apache2/a.conf").unwrap();
        let make = |(line, msg): &(u32, &str)| diag(*line, msg);
        let same = |item: &(u32, &str), old: &Diagnostic| make(item) == *old;
        let mut json = DiagnosticsJson::default();
        let first: Vec<(u32, &str)> = (0..20).map(|i| (i, "Order")).collect();
        json.update_with(&first, same, make).unwrap();
        let mut second = first.clone();
        second[7] = (7, "Allow");
        second.insert(12, (12, "Deny"));
        let calls = std::cell::Cell::new(0);
        json.update_with(&second, same, |item| {
            calls.set(calls.get() + 1);
            make(item)
        })
        .unwrap();
        // Items 7 to 12 lie between the unchanged start (0..7) and end (13..).
        assert_eq!(calls.get(), 6);
        let mut fresh = DiagnosticsJson::default();
        fresh.update(second.iter().map(make).collect()).unwrap();
        assert_eq!(json.frame(&uri, Some(2)).to_bytes(), fresh.frame(&uri, Some(2)).to_bytes());
        assert_eq!(json.diags, fresh.diags);
    }
}
