//! Per-directory authentication settings the access status depends on: AuthType, AuthName
//! (mod_authn_core), AuthUserFile (mod_authn_file), AuthGroupFile (mod_authz_groupfile),
//! AuthDBMGroupFile (mod_authz_dbm), AuthBasicProvider (mod_auth_basic), AuthDigestProvider
//! (mod_auth_digest), and mod_authn_anon's `Anonymous*` directives.
//!
//! Invariants:
//! * No IO: file names are recorded, never opened.
//! * Merging mirrors each module: mod_authn_core merges AuthType (if set, including `None`) and
//!   AuthName field by field (`merge_authn_core_dir_config`); mod_authn_file, mod_authz_groupfile,
//!   mod_authz_dbm and mod_authn_dbm have no merger: a section with any line of one of them
//!   ([`no_merger_module`]) replaces every inherited field of that module, those it does not set
//!   with the module's defaults ([`AuthnConfig::made`]: `AuthzDBMType` alone drops an inherited
//!   `AuthDBMGroupFile`, `AuthDBMType` alone an inherited `AuthDBMUserFile`); mod_auth_basic merges
//!   `providers` as "overrides' list if set" (`merge_auth_basic_dir_config`); mod_auth_digest has
//!   no merger and also handles `AuthName` (`set_realm`), so any section with AuthName or an
//!   `AuthDigest*` directive resets the digest provider list; mod_authn_anon has no merger either,
//!   so a section with any `Anonymous*` directive replaces the inherited settings whole, starting
//!   from the module's defaults (`create_authn_anon_dir_config`).
//! * Values are ap_expr strings in httpd (AuthType/AuthName); one containing `%{…}` is kept and
//!   classified as [`AuthTypeKind::Expr`].

use super::items::{is_expr_string, ConfigError, Item, Loc, PolicyCtx};
use super::method::{is_limit, is_require_container, limit_block_mask, MethodMask};

/// A value and where it was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value<T> {
    pub value: T,
    pub loc: Loc,
}

/// Authentication-related settings of a section, or the effective ones after merging.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AuthnConfig {
    /// `AuthType` as written (the last one wins within a section).
    pub auth_type: Option<Value<String>>,
    pub auth_name: Option<Value<String>>,
    pub user_file: Option<Value<String>>,
    pub group_file: Option<Value<String>>,
    pub dbm_group_file: Option<Value<String>>,
    /// mod_authn_dbm's `AuthDBMUserFile` and `AuthDBMType` (when it is loaded).
    pub dbm_user_file: Option<Value<String>>,
    pub dbm_type: Option<Value<String>>,
    /// `AuthBasicProvider` lists (several lines append); loc of the first line.
    pub basic_providers: Option<Value<Vec<String>>>,
    /// mod_auth_digest's config: present when the section had AuthName or an AuthDigest*
    /// directive (and mod_auth_digest is loaded); its provider list may be unset.
    pub digest: Option<DigestConf>,
    /// mod_authn_anon's config: present when the section had an `Anonymous*` directive (and
    /// mod_authn_anon is loaded).
    pub anon: Option<AnonConf>,
    /// The value-holding modules without a merger whose configuration the section made (a line
    /// of the module, even one httpd skipped: [`skipped_line`]); mod_auth_digest's and
    /// mod_authn_anon's are [`AuthnConfig::digest`] and [`AuthnConfig::anon`].
    pub made: Made,
}

/// Which value-holding modules without a merger a section made the configuration of
/// ([`AuthnConfig::made`]): merged, each replaces every inherited field of its module, those the
/// section does not set with none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Made {
    /// mod_authn_file's (`AuthUserFile`).
    pub authn_file: bool,
    /// mod_authz_groupfile's (`AuthGroupFile`).
    pub authz_groupfile: bool,
    /// mod_authz_dbm's (`AuthDBMGroupFile`, `AuthzDBMType`).
    pub authz_dbm: bool,
    /// mod_authn_dbm's (`AuthDBMUserFile`, `AuthDBMType`).
    pub authn_dbm: bool,
}

/// The authentication module without a merger (it makes a per-directory configuration and
/// merges none: httpd keeps the nearest section's whole) that directive `name` belongs to, of
/// those the engine models; read from httpd 2.4's modules/aaa: mod_authn_file (`AuthUserFile`),
/// mod_authz_groupfile (`AuthGroupFile`), mod_authz_dbm (`AuthDBMGroupFile`, `AuthzDBMType`),
/// mod_authn_dbm (`AuthDBMUserFile`, `AuthDBMType`), mod_authn_anon (`Anonymous*`) and
/// mod_auth_digest (`AuthDigest*`, and `AuthName`, which mod_authn_core also handles). Those
/// with a merger: mod_authn_core, mod_authz_core, mod_auth_basic, mod_auth_form,
/// mod_authn_socache, mod_authn_dbd, mod_authz_dbd; mod_authz_user has no directive,
/// mod_authz_owner and mod_authz_host no configuration. (mod_access_compat, also without a
/// merger, is [`crate::ide::nonfatal`]'s.) httpd makes the module's configuration of the
/// section for any of its lines (`ap_set_config_vectors`) before it asks whether the
/// AllowOverride lets the line in, so the first such .htaccess line skipped under
/// `Nonfatal=Override` still replaces what the module inherited with its defaults.
pub fn no_merger_module(name: &str) -> Option<&'static str> {
    let l = name.to_ascii_lowercase();
    Some(match l.as_str() {
        "authuserfile" => "authn_file_module",
        "authgroupfile" => "authz_groupfile_module",
        "authdbmgroupfile" | "authzdbmtype" => "authz_dbm_module",
        "authdbmuserfile" | "authdbmtype" => "authn_dbm_module",
        _ if ANON_DIRECTIVES.iter().any(|d| d.eq_ignore_ascii_case(name)) => "authn_anon_module",
        _ if DIGEST_DIRECTIVES.iter().any(|d| d.eq_ignore_ascii_case(name)) => "auth_digest_module",
        _ => return None,
    })
}

/// Whether a directive line stands for one httpd skipped, kept for the module configuration it
/// still made ([`no_merger_module`]): no argument, and words in place of its arguments (a line
/// of a file cannot have words and no argument). Made by [`crate::ide::nonfatal::without`].
pub fn skipped_line(args: &[super::items::Word], raw_args: &str) -> bool {
    args.is_empty() && !raw_args.is_empty()
}

/// mod_authn_anon's per-directory settings (`authn_anon_config_rec`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnonConf {
    /// `Anonymous` names, compared without case; `*` (`any_user`) stops the list.
    pub users: Vec<String>,
    pub any_user: bool,
    /// `Anonymous_NoUserID`: an empty name is accepted.
    pub no_user_id: bool,
    /// `Anonymous_MustGiveEmail` (on by default): the password must not be empty.
    pub must_email: bool,
    /// `Anonymous_VerifyEmail`: the password must hold an `@` and a `.`.
    pub verify_email: bool,
    /// The section's first `Anonymous*` line.
    pub loc: Loc,
}

impl AnonConf {
    fn new(loc: Loc) -> AnonConf {
        AnonConf { users: vec![], any_user: false, no_user_id: false, must_email: true, verify_email: false, loc }
    }

    /// Whether `check_anonymous` finds `user` (else it answers "user not found", and
    /// mod_auth_basic asks the next provider).
    pub fn knows(&self, user: &str) -> bool {
        if !self.knows_some_name() {
            return false;
        }
        if user.is_empty() {
            self.no_user_id
        } else {
            self.any_user || self.users.iter().any(|u| u.eq_ignore_ascii_case(user))
        }
    }

    /// Whether some name is known (`check_anonymous` ignores a configuration with none).
    pub fn knows_some_name(&self) -> bool {
        self.any_user || !self.users.is_empty()
    }

    /// Whether some password of a name it knows is refused (the email checks).
    pub fn checks_password(&self) -> bool {
        self.must_email || self.verify_email
    }
}

/// mod_authn_dbm's directives.
const DBM_DIRECTIVES: &[&str] = &["AuthDBMUserFile", "AuthDBMType"];

/// mod_authz_dbm's directive the engine reads only for the configuration it makes (the DBM
/// type of the group file is not modelled).
const AUTHZ_DBM_TYPE: &str = "AuthzDBMType";

/// mod_authn_anon's directives (`authn_anon_cmds`).
const ANON_DIRECTIVES: &[&str] =
    &["Anonymous", "Anonymous_MustGiveEmail", "Anonymous_NoUserID", "Anonymous_VerifyEmail", "Anonymous_LogEmail"];

/// Applies one `Anonymous*` line to the section's settings (ITERATE for `Anonymous`, FLAG for
/// the others); a value httpd refuses at start-up changes nothing.
fn set_anon(conf: &mut AnonConf, name: &str, args: &[super::items::Word]) {
    if name.eq_ignore_ascii_case("Anonymous") {
        for w in args {
            if conf.any_user || w.is_empty() {
                break;
            }
            if w == "*" {
                conf.any_user = true;
            } else {
                conf.users.push(w.to_string());
            }
        }
        return;
    }
    let flag = match args {
        [v] if v.eq_ignore_ascii_case("on") => true,
        [v] if v.eq_ignore_ascii_case("off") => false,
        _ => return,
    };
    match name.to_ascii_lowercase().as_str() {
        "anonymous_mustgiveemail" => conf.must_email = flag,
        "anonymous_nouserid" => conf.no_user_id = flag,
        "anonymous_verifyemail" => conf.verify_email = flag,
        _ => {}
    }
}

/// The part of mod_auth_digest's per-dir config that matters here.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DigestConf {
    pub providers: Option<Value<Vec<String>>>,
}

/// What `ap_auth_type(r)` yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthTypeKind {
    /// No AuthType, or `AuthType None` (any case): `ap_auth_type` returns NULL.
    None,
    /// `Basic` (any case), handled by mod_auth_basic.
    Basic,
    /// `Digest`, handled by mod_auth_digest.
    Digest,
    /// `Form`, handled by mod_auth_form (not modelled).
    Form,
    /// Another name (a third-party module, or none → 500 AH01796).
    Other(String),
    /// An expression evaluated per request.
    Expr(String),
}

impl AuthnConfig {
    /// Classify the effective AuthType.
    pub fn auth_type_kind(&self) -> AuthTypeKind {
        let Some(t) = &self.auth_type else { return AuthTypeKind::None };
        let v = t.value.as_str();
        if is_expr_string(v) {
            AuthTypeKind::Expr(v.to_string())
        } else if v.eq_ignore_ascii_case("None") {
            AuthTypeKind::None
        } else if v.eq_ignore_ascii_case("Basic") {
            AuthTypeKind::Basic
        } else if v.eq_ignore_ascii_case("Digest") {
            AuthTypeKind::Digest
        } else if v.eq_ignore_ascii_case("Form") {
            AuthTypeKind::Form
        } else {
            AuthTypeKind::Other(v.to_string())
        }
    }
}

const AUTHN_DIRECTIVES: &[&str] = &[
    "AuthType",
    "AuthName",
    "AuthUserFile",
    "AuthGroupFile",
    "AuthDBMGroupFile",
    "AuthBasicProvider",
    "AuthDigestProvider",
];

const DIGEST_DIRECTIVES: &[&str] = &[
    "AuthName",
    "AuthDigestProvider",
    "AuthDigestQop",
    "AuthDigestNonceLifetime",
    "AuthDigestNonceFormat",
    "AuthDigestNcCheck",
    "AuthDigestAlgorithm",
    "AuthDigestDomain",
];

/// Authn provider name → module registering it (mod_authn_* and mod_authnz_ldap: `ap_register_auth_provider`).
pub(crate) fn authn_provider_module(name: &str) -> Option<&'static str> {
    Some(match name {
        "file" => "authn_file_module",
        "dbm" => "authn_dbm_module",
        "anon" => "authn_anon_module",
        "dbd" => "authn_dbd_module",
        "socache" => "authn_socache_module",
        "ldap" => "authnz_ldap_module",
        _ => return None,
    })
}

/// Whether the provider `name` (of mod_authn_anon or mod_authnz_ldap) gives no realm's hash:
/// mod_auth_digest refuses it at start-up (`add_authn_provider`).
pub(crate) fn without_realm_hash(name: &str) -> bool {
    matches!(name, "anon" | "ldap")
}

fn usage(name: &str) -> &'static str {
    match name {
        "authtype" => "AuthType takes one argument, an HTTP authorization type (e.g., \"Basic\")",
        "authname" => "AuthName takes one argument, the authentication realm (e.g. \"Members Only\")",
        "authuserfile" => "AuthUserFile takes one argument, text file containing user IDs and passwords",
        "authgroupfile" => "AuthGroupFile takes one argument, text file containing group names and member user IDs",
        "authdbmgroupfile" => {
            "AuthDBMGroupFile takes one argument, database file containing group names and member user IDs"
        }
        "authbasicprovider" => {
            "AuthBasicProvider requires at least one argument, specify the auth providers for a directory or location"
        }
        _ => {
            "AuthDigestProvider requires at least one argument, specify the auth providers for a directory or location"
        }
    }
}

fn walk(
    items: &[Item],
    ctx: &PolicyCtx,
    limited: &MethodMask,
    registered: &mut std::collections::BTreeSet<String>,
    conf: &mut Option<AuthnConfig>,
    errors: &mut Vec<ConfigError>,
) {
    for item in items {
        match item {
            Item::Block { name, items: body, .. } if is_limit(name) => {
                if let Ok(mask) = limit_block_mask(item, limited, registered, ctx.htaccess) {
                    walk(body, ctx, &mask, registered, conf, errors);
                }
            }
            Item::Block { name, items: body, .. } if is_require_container(name) => {
                walk(body, ctx, limited, registered, conf, errors);
            }
            Item::Directive { name, args, raw_args, loc } => {
                if let Some(made) = no_merger_module(name).filter(|m| ctx.modules.is_loaded(m)) {
                    let made_of = &mut conf.get_or_insert_with(Default::default).made;
                    match made {
                        "authn_file_module" => made_of.authn_file = true,
                        "authz_groupfile_module" => made_of.authz_groupfile = true,
                        "authz_dbm_module" => made_of.authz_dbm = true,
                        "authn_dbm_module" => made_of.authn_dbm = true,
                        _ => {} // (mod_auth_digest's and mod_authn_anon's are their own fields)
                    }
                }
                if name.eq_ignore_ascii_case(AUTHZ_DBM_TYPE) {
                    continue;
                }
                if ANON_DIRECTIVES.iter().any(|d| d.eq_ignore_ascii_case(name)) {
                    if ctx.modules.is_loaded("authn_anon_module") {
                        let c = conf.get_or_insert_with(Default::default);
                        set_anon(c.anon.get_or_insert_with(|| AnonConf::new(loc.clone())), name, args);
                    }
                    continue;
                }
                if DBM_DIRECTIVES.iter().any(|d| d.eq_ignore_ascii_case(name)) {
                    let dbm_user_file = name.eq_ignore_ascii_case("AuthDBMUserFile");
                    // (TAKE1; a line httpd refuses is the checker's.)
                    if let ([v], true) = (args.as_slice(), ctx.modules.is_loaded("authn_dbm_module")) {
                        let c = conf.get_or_insert_with(Default::default);
                        let slot = if dbm_user_file { &mut c.dbm_user_file } else { &mut c.dbm_type };
                        *slot = Some(Value { value: v.to_string(), loc: loc.clone() });
                    }
                    continue;
                }
                let Some(canon) = AUTHN_DIRECTIVES.iter().find(|d| d.eq_ignore_ascii_case(name)) else {
                    if DIGEST_DIRECTIVES.iter().any(|d| d.eq_ignore_ascii_case(name))
                        && ctx.modules.is_loaded("auth_digest_module")
                    {
                        conf.get_or_insert_with(Default::default).digest.get_or_insert_with(Default::default);
                    }
                    continue;
                };
                let c = conf.get_or_insert_with(Default::default);
                let lname = canon.to_ascii_lowercase();
                if DIGEST_DIRECTIVES.contains(canon) && ctx.modules.is_loaded("auth_digest_module") {
                    c.digest.get_or_insert_with(Default::default);
                }
                if skipped_line(args, raw_args) {
                    // Its module's configuration, with nothing set: made above.
                    continue;
                }
                let value = |v: &str| Value { value: v.to_string(), loc: loc.clone() };
                match lname.as_str() {
                    "authbasicprovider" | "authdigestprovider" => {
                        // ITERATE: words until an empty one; each must be a registered provider.
                        if !matches!(args.first(), Some(w) if !w.is_empty()) {
                            errors.push(ConfigError::new(loc, usage(&lname)));
                            continue;
                        }
                        let mut names = vec![];
                        for w in args.iter().take_while(|w| !w.is_empty()) {
                            let known = authn_provider_module(w).is_some_and(|m| ctx.modules.is_loaded(m))
                                || ctx.extra_authn_providers.contains(w.as_str());
                            if !known {
                                errors.push(ConfigError::new(loc, format!("Unknown Authn provider: {w}")));
                                break;
                            }
                            if lname == "authdigestprovider" && without_realm_hash(w) {
                                errors.push(ConfigError::new(
                                    loc,
                                    format!("The '{w}' Authn provider doesn't support Digest Authentication"),
                                ));
                                break;
                            }
                            names.push(w.to_string());
                        }
                        let slot = if lname == "authbasicprovider" {
                            &mut c.basic_providers
                        } else {
                            &mut c.digest.get_or_insert_with(Default::default).providers
                        };
                        match slot {
                            Some(v) => v.value.extend(names),
                            None => *slot = Some(Value { value: names, loc: loc.clone() }),
                        }
                    }
                    _ => {
                        // TAKE1
                        if args.len() != 1 || args[0].is_empty() {
                            errors.push(ConfigError::new(loc, usage(&lname)));
                            continue;
                        }
                        let v = Some(value(&args[0]));
                        match lname.as_str() {
                            "authtype" => c.auth_type = v,
                            "authname" => c.auth_name = v,
                            "authuserfile" => c.user_file = v,
                            "authgroupfile" => c.group_file = v,
                            _ => c.dbm_group_file = v,
                        }
                    }
                }
            }
            Item::Block { .. } => {}
        }
    }
}

/// Whether [`authn_from_items`] reads a directive called `name` (any case).
pub fn is_authn_directive(name: &str) -> bool {
    AUTHN_DIRECTIVES
        .iter()
        .chain(DIGEST_DIRECTIVES)
        .chain(ANON_DIRECTIVES)
        .chain(DBM_DIRECTIVES)
        .chain(&[AUTHZ_DBM_TYPE])
        .any(|d| d.eq_ignore_ascii_case(name))
}

/// Build a section's authentication settings. `None` when the section has none of the
/// directives (→ inherit).
pub fn authn_from_items(items: &[Item], ctx: &PolicyCtx) -> (Option<AuthnConfig>, Vec<ConfigError>) {
    let mut conf = None;
    let mut errors = vec![];
    let mut registered = ctx.registered_methods.clone();
    walk(items, ctx, &MethodMask::all(), &mut registered, &mut conf, &mut errors);
    (conf, errors)
}

/// Merge `new` (a later section) over `base`, module by module (see the module docs).
pub fn merge_authn(base: &AuthnConfig, new: &AuthnConfig) -> AuthnConfig {
    // A module without a merger whose configuration the section made keeps the section's
    // fields, unset ones too; else the inherited ones go on.
    let or_base = |v: &Option<Value<String>>, made: bool, b: &Option<Value<String>>| {
        v.clone().or_else(|| if made { None } else { b.clone() })
    };
    let made = &new.made;
    AuthnConfig {
        auth_type: new.auth_type.clone().or_else(|| base.auth_type.clone()),
        auth_name: new.auth_name.clone().or_else(|| base.auth_name.clone()),
        user_file: or_base(&new.user_file, made.authn_file, &base.user_file),
        group_file: or_base(&new.group_file, made.authz_groupfile, &base.group_file),
        dbm_group_file: or_base(&new.dbm_group_file, made.authz_dbm, &base.dbm_group_file),
        dbm_user_file: or_base(&new.dbm_user_file, made.authn_dbm, &base.dbm_user_file),
        dbm_type: or_base(&new.dbm_type, made.authn_dbm, &base.dbm_type),
        made: new.made,
        basic_providers: new.basic_providers.clone().or_else(|| base.basic_providers.clone()),
        digest: new.digest.clone().or_else(|| base.digest.clone()),
        anon: new.anon.clone().or_else(|| base.anon.clone()),
    }
}

/// `merge_authn` over optional configs (`None` = the section has no such directive).
pub fn merge_authn_opt(base: Option<&AuthnConfig>, new: Option<&AuthnConfig>) -> Option<AuthnConfig> {
    match (base, new) {
        (b, None) => b.cloned(),
        (None, Some(n)) => Some(n.clone()),
        (Some(b), Some(n)) => Some(merge_authn(b, n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::policy::items::test_util::items;

    fn build(src: &str) -> (Option<AuthnConfig>, Vec<String>) {
        let (c, e) = authn_from_items(&items(src), &PolicyCtx::default());
        (c, e.into_iter().map(|e| e.message).collect())
    }

    #[test]
    fn auth_type_kinds() {
        let kind = |s: &str| build(s).0.unwrap_or_default().auth_type_kind();
        assert_eq!(kind("AuthType basic"), AuthTypeKind::Basic);
        assert_eq!(kind("AuthType NONE"), AuthTypeKind::None);
        assert_eq!(kind("AuthName x"), AuthTypeKind::None);
        assert_eq!(kind("AuthType Digest"), AuthTypeKind::Digest);
        assert_eq!(kind("AuthType Kerberos"), AuthTypeKind::Other("Kerberos".into()));
        assert_eq!(kind("AuthType \"%{ENV:T}\""), AuthTypeKind::Expr("%{ENV:T}".into()));
    }

    #[test]
    fn no_authn_directive_means_inherit() {
        assert_eq!(build("Require valid-user").0, None);
    }

    #[test]
    fn later_section_value_wins_if_set_and_auth_type_none_overrides() {
        let parent = build("AuthType Basic\nAuthName realm\nAuthUserFile /p").0.unwrap();
        let child = build("AuthType None").0.unwrap();
        let m = merge_authn(&parent, &child);
        assert_eq!(m.auth_type_kind(), AuthTypeKind::None);
        assert_eq!(m.auth_name.unwrap().value, "realm");
        assert_eq!(m.user_file.unwrap().value, "/p");
    }

    #[test]
    fn basic_providers_append_within_a_section_and_replace_across() {
        let c = build("AuthBasicProvider file\nAuthBasicProvider dbm").0.unwrap();
        assert_eq!(c.basic_providers.as_ref().unwrap().value, vec!["file", "dbm"]);
        let child = build("AuthBasicProvider ldap").0.unwrap();
        assert_eq!(merge_authn(&c, &child).basic_providers.unwrap().value, vec!["ldap"]);
    }

    #[test]
    fn unknown_authn_provider_is_rejected() {
        let ctx =
            PolicyCtx { modules: crate::ide::policy::ModuleSet::only(["authn_file_module"]), ..Default::default() };
        let (_, e) = authn_from_items(&items("AuthBasicProvider file dbm"), &ctx);
        assert_eq!(e[0].message, "Unknown Authn provider: dbm");
    }

    #[test]
    fn digest_refuses_providers_without_realm_hashes() {
        let ctx = PolicyCtx {
            modules: crate::ide::policy::ModuleSet::only([
                "authn_file_module",
                "authn_anon_module",
                "auth_digest_module",
            ]),
            ..Default::default()
        };
        let (_, e) = authn_from_items(&items("AuthDigestProvider file anon"), &ctx);
        assert_eq!(e[0].message, "The 'anon' Authn provider doesn't support Digest Authentication");
        assert!(authn_from_items(&items("AuthBasicProvider file anon"), &ctx).1.is_empty());
        let (_, e) = authn_from_items(&items("AuthDigestProvider ldap"), &ctx);
        assert_eq!(e[0].message, "Unknown Authn provider: ldap", "mod_authnz_ldap is not loaded");
    }

    #[test]
    fn auth_name_resets_digest_providers() {
        let parent = build("AuthDigestProvider dbm").0.unwrap();
        let child = build("AuthName x").0.unwrap();
        assert_eq!(merge_authn(&parent, &child).digest, Some(DigestConf { providers: None }));
    }

    /// mod_authn_dbm and mod_authz_dbm merge nothing: a section with any line of one of them
    /// has that module's fields whole, those it does not set unset (httpd: `AuthDBMType` alone
    /// beneath an `AuthDBMUserFile` answers 500, AH10285, the file name "(null)").
    #[test]
    fn a_line_of_a_module_without_a_merger_replaces_every_inherited_field_of_it() {
        let parent = build("AuthDBMUserFile /p\nAuthDBMType SDBM\nAuthDBMGroupFile /g\nAuthUserFile /u").0.unwrap();
        let m = merge_authn(&parent, &build("AuthDBMType DB").0.unwrap());
        assert_eq!((m.dbm_user_file, m.dbm_type.map(|t| t.value)), (None, Some("DB".to_string())));
        assert_eq!(m.dbm_group_file.map(|g| g.value).as_deref(), Some("/g"));
        let m = merge_authn(&parent, &build("AuthzDBMType db").0.unwrap());
        assert_eq!((m.dbm_group_file, m.dbm_user_file.map(|f| f.value)), (None, Some("/p".to_string())));
        assert_eq!(m.user_file.map(|f| f.value).as_deref(), Some("/u"));
        assert!(is_authn_directive("authzdbmtype"));
    }

    #[test]
    fn take1_errors() {
        assert_eq!(build("AuthType Basic Digest").1, vec![usage("authtype")]);
    }
}
