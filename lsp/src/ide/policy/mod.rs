//! The pure access-evaluation core: how httpd 2.4 decides access for a request, from the
//! configuration items of the sections that apply to it.
//!
//! Invariants:
//! * No IO, no DNS, no protocol types. Everything the result depends on comes in through
//!   [`Item`]s, [`PolicyCtx`] and [`Request`].
//! * Ground truth is the real server (`/work/shared/httpd-semantics.md`, httpd 2.4.x source):
//!   every module here mirrors named C functions, quirks included.
//! * Three layers are built and inherited independently, each per its module's rules:
//!   * [`compat`]: mod_access_compat, replace-if-present ([`merge_compat`]);
//!   * [`authz`]: mod_authz_core, AuthMerging rules ([`merge_authz`]) and the per-phase fold
//!     ([`fold_phase`]);
//!   * [`authn`]: AuthType/AuthName/AuthUserFile/…, later value wins ([`merge_authn`]).
//! * [`eval::evaluate`] combines them exactly like `ap_process_request_internal` (Satisfy
//!   All/Any), and says "unknown" rather than guessing.
//!
//! Typical use: build a [`SectionPolicy`] per matched section with [`section_from_items`],
//! then walk the phases (Directory, Files, Location, If) with
//! [`EffectivePolicy::apply_phase`], and call [`EffectivePolicy::evaluate`].

pub mod addr;
pub mod authn;
pub mod authz;
pub mod compat;
pub mod eval;
pub mod expr;
pub mod expr_eval;
pub mod items;
pub mod method;
pub(crate) mod pcre;

pub use addr::{in_domain, AddrError, HostSpec, IpSubnet};
pub use authn::{authn_from_items, merge_authn, merge_authn_opt, AuthTypeKind, AuthnConfig};
pub use authz::{
    authz_from_items, fold_phase, merge_authz, merge_authz_opt, AuthMerging, AuthzConfig, AuthzNode, ContainerKind,
    LogicOp, NodeKind, Provider, Requirement,
};
pub use compat::{compat_from_items, merge_compat, AccessEntry, CompatConfig, Order, Satisfy};
pub use eval::{
    evaluate, host_check_refusal, AuthzStatus, Deciding, EnvKnowledge, EnvVar, HostKnowledge, Layer, LogEntry,
    LogLevel, Outcome, Request, TraceStep,
};
pub use items::{ConfigError, Item, Loc, ModuleSet, PolicyCtx};
pub use method::{MethodId, MethodMask};

/// Everything the policy core knows about one section.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SectionPolicy {
    pub compat: Option<CompatConfig>,
    pub authz: Option<AuthzConfig>,
    pub authn: Option<AuthnConfig>,
    /// All startup errors of the section (directive errors, `<Limit>` errors, AH01624), in
    /// source order.
    pub errors: Vec<ConfigError>,
    /// Method names this section's `<Limit>`/`<LimitExcept>` blocks register (not builtin and
    /// not already in [`PolicyCtx::registered_methods`]). httpd's method registry is global:
    /// union these over the whole configuration into `PolicyCtx::registered_methods`.
    pub registered_methods: std::collections::BTreeSet<String>,
}

/// Build all layers of one section body, reporting every error once.
pub fn section_from_items(items: &[Item], ctx: &PolicyCtx) -> SectionPolicy {
    section_from_items_with_layer_errors(items, ctx).0
}

/// [`section_from_items`], and also the errors of the compat and the authz layer alone
/// (what [`compat_from_items`] and [`authz_from_items`] report), built once.
pub fn section_from_items_with_layer_errors(
    items: &[Item],
    ctx: &PolicyCtx,
) -> (SectionPolicy, Vec<ConfigError>, Vec<ConfigError>) {
    let (compat, compat_errors) = compat_from_items(items, ctx);
    let (authz, authz_errors) = authz_from_items(items, ctx);
    let (authn, e3) = authn_from_items(items, ctx);
    let mut errors = compat_errors.clone();
    errors.extend(authz_errors.iter().cloned());
    errors.extend(e3);
    let mut registered = ctx.registered_methods.clone();
    method::limit_errors(items, &MethodMask::all(), &mut registered, ctx.htaccess, &mut errors);
    errors.sort_by(|a, b| (a.ah_code.is_some(), &a.loc).cmp(&(b.ah_code.is_some(), &b.loc)));
    let registered_methods = registered.difference(&ctx.registered_methods).cloned().collect();
    (SectionPolicy { compat, authz, authn, errors, registered_methods }, compat_errors, authz_errors)
}

/// Whether [`compat_from_items`] or [`authz_from_items`] read a directive called `name`
/// (besides the `<Limit>`/`<LimitExcept>`/`<RequireAll|Any|None>` blocks holding them):
/// items without the others build the same two layers ([`crate::ide::access::access_layer_items`]).
pub fn access_layer_directive(name: &str) -> bool {
    is_compat_directive(name) || is_authz_directive(name)
}

/// Whether [`section_from_items`] reads a directive called `name` (besides the blocks holding
/// them): the access layers' ([`access_layer_directive`]) and authentication's
/// ([`authn::is_authn_directive`]); items without the others build the same policy
/// ([`crate::ide::access::policy_items`]).
pub fn policy_directive(name: &str) -> bool {
    access_layer_directive(name) || authn::is_authn_directive(name)
}

/// mod_access_compat's directives, which [`compat_from_items`] reads: Order, Allow, Deny,
/// Satisfy (any case, as httpd matches directive names).
pub fn is_compat_directive(name: &str) -> bool {
    ["Order", "Allow", "Deny", "Satisfy"].iter().any(|n| name.eq_ignore_ascii_case(n))
}

/// The mod_authz_core directives [`authz_from_items`] reads besides the Require blocks:
/// Require, AuthMerging, AuthzSendForbiddenOnFailure.
pub fn is_authz_directive(name: &str) -> bool {
    ["Require", "AuthMerging", "AuthzSendForbiddenOnFailure"].iter().any(|n| name.eq_ignore_ascii_case(n))
}

/// The merged configuration in effect at some point of the walk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EffectivePolicy {
    pub compat: Option<CompatConfig>,
    pub authz: Option<AuthzConfig>,
    pub authn: AuthnConfig,
}

impl EffectivePolicy {
    /// The server defaults (`lookup_defaults`): never contain Require or Order/Allow/Deny.
    pub fn server_default() -> EffectivePolicy {
        EffectivePolicy::default()
    }

    /// `ap_merge_per_dir_configs(self, section)`.
    pub fn merge_section(&self, s: &SectionPolicy) -> EffectivePolicy {
        EffectivePolicy {
            compat: merge_compat(self.compat.as_ref(), s.compat.as_ref()),
            authz: merge_authz_opt(self.authz.as_ref(), s.authz.as_ref()),
            authn: match &s.authn {
                Some(n) => merge_authn(&self.authn, n),
                None => self.authn.clone(),
            },
        }
    }

    /// One walk phase: fold `sections` (in walk order) among themselves, then merge the result
    /// onto `self`. For authz this reproduces the chain quirk ([`fold_phase`]); for the other
    /// layers it equals merging the sections one by one.
    pub fn apply_phase(&self, sections: &[&SectionPolicy]) -> EffectivePolicy {
        let mut folded: Option<EffectivePolicy> = None;
        let mut folded_authn: Option<AuthnConfig> = None;
        for s in sections {
            folded_authn = merge_authn_opt(folded_authn.as_ref(), s.authn.as_ref());
            folded = Some(match folded {
                None => {
                    EffectivePolicy { compat: s.compat.clone(), authz: s.authz.clone(), authn: AuthnConfig::default() }
                }
                Some(f) => EffectivePolicy {
                    compat: merge_compat(f.compat.as_ref(), s.compat.as_ref()),
                    authz: merge_authz_opt(f.authz.as_ref(), s.authz.as_ref()),
                    authn: AuthnConfig::default(),
                },
            });
        }
        let Some(folded) = folded else { return self.clone() };
        EffectivePolicy {
            compat: merge_compat(self.compat.as_ref(), folded.compat.as_ref()),
            authz: merge_authz_opt(self.authz.as_ref(), folded.authz.as_ref()),
            authn: match &folded_authn {
                Some(n) => merge_authn(&self.authn, n),
                None => self.authn.clone(),
            },
        }
    }

    /// Evaluate a request against this configuration.
    pub fn evaluate(&self, req: &Request, ctx: &PolicyCtx) -> Outcome {
        evaluate(self.compat.as_ref(), self.authz.as_ref(), &self.authn, req, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::items::test_util::items;
    use super::*;

    fn sec(src: &str) -> SectionPolicy {
        section_from_items(&items(src), &PolicyCtx::default())
    }

    #[test]
    fn limit_errors_are_reported_once() {
        let s = sec("<Limit TRACE>\nOrder allow,deny\nRequire all granted\nAuthType Basic\n</Limit>");
        let msgs: Vec<_> = s.errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(msgs, vec!["TRACE cannot be controlled by <Limit>, see TraceEnable"]);
    }

    #[test]
    fn limit_blocks_report_registered_methods() {
        let s = sec("<Limit GET FOO>\nRequire all granted\n</Limit>\n<LimitExcept BAR>\nDeny from all\n</LimitExcept>");
        assert_eq!(s.registered_methods, ["BAR".to_string(), "FOO".to_string()].into());
    }

    #[test]
    fn layers_are_inherited_independently() {
        // §5.4 example 1: <Directory /> Deny from all; <Location> Require local.
        let dir = sec("Order deny,allow\nDeny from all");
        let loc = sec("Require local");
        let eff = EffectivePolicy::server_default().apply_phase(&[&dir]).apply_phase(&[&loc]);
        assert!(eff.compat.as_ref().unwrap().denies.len() == 1);
        assert!(eff.authz.is_some());
    }
}
