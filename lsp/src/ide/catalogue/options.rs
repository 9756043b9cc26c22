//! httpd's `Options` bits (`include/http_core.h`: `allow_options_t`) and the words that set
//! them (`server/core.c`: `set_options`, `set_allow_opts`): read by the context check (what an
//! .htaccess file may set) and by the request walk (what is in force on the way).

pub(crate) const OPT_INDEXES: u32 = 1;
pub(crate) const OPT_INCLUDES: u32 = 2;
pub(crate) const OPT_SYM_LINKS: u32 = 4;
pub(crate) const OPT_EXECCGI: u32 = 8;
pub(crate) const OPT_UNSET: u32 = 16;
pub(crate) const OPT_INC_WITH_EXEC: u32 = 32;
pub(crate) const OPT_SYM_OWNER: u32 = 64;
pub(crate) const OPT_MULTI: u32 = 128;
/// httpd's `OPT_ALL`: MultiViews and SymLinksIfOwnerMatch are not in it.
pub(crate) const OPT_ALL: u32 = OPT_INDEXES | OPT_INCLUDES | OPT_INC_WITH_EXEC | OPT_SYM_LINKS | OPT_EXECCGI;

/// The bits an option word turns on (`set_options`, `set_allow_opts`), case aside; None for a
/// word that is no option.
pub(crate) fn option_bits(word: &str) -> Option<u32> {
    const WORDS: &[(&str, u32)] = &[
        ("Indexes", OPT_INDEXES),
        ("Includes", OPT_INCLUDES | OPT_INC_WITH_EXEC),
        ("IncludesNOEXEC", OPT_INCLUDES),
        ("FollowSymLinks", OPT_SYM_LINKS),
        ("SymLinksIfOwnerMatch", OPT_SYM_OWNER),
        ("ExecCGI", OPT_EXECCGI),
        ("MultiViews", OPT_MULTI),
        ("RunScripts", OPT_MULTI | OPT_EXECCGI),
        ("None", 0),
        ("All", OPT_ALL),
    ];
    WORDS.iter().find(|(w, _)| w.eq_ignore_ascii_case(word)).map(|(_, b)| *b)
}
