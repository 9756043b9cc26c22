//! Lines `apache2 -t` refuses that black-box round 11c found `check` silent on (and lines it
//! accepts that `check` called errors), compared case by case with the real server: each
//! snippet is included from a main configuration that loads Debian's enabled modules (and the
//! case's extra ones); httpd's verdict must be check's: an error of the case's code on the line
//! httpd names (on some line of the snippet when httpd names none, as for the log directories it
//! checks after reading), and no error at all in the snippet where httpd starts.

use std::path::Path;
use std::process::Command;

/// (name, extra modules from mods-available, snippet, the code check reports it under). `D`
/// stands for the case's directory (which exists, as does `D/htdocs`).
const CASES: &[(&str, &str, &str, &str)] = &[
    // Paths httpd looks at while it reads the configuration.
    ("document_root_missing", "", "DocumentRoot @D/nonexistent\n", "startup-path"),
    ("document_root_present", "", "DocumentRoot @D/htdocs\n", "startup-path"),
    (
        "vhost_document_root_missing_is_a_warning",
        "",
        "<VirtualHost *:80>\nDocumentRoot @D/nonexistent\n</VirtualHost>\n",
        "startup-path",
    ),
    ("document_root_relative_to_server_root", "", "DocumentRoot htdocs\n", "startup-path"),
    ("server_root_missing", "", "ServerRoot /nonexistent/dir\n", "startup-path"),
    (
        "ssl_certificate_missing",
        "socache_shmcb ssl",
        "SSLCertificateFile /etc/ssl/certs/nonexistent.pem\n",
        "startup-path",
    ),
    ("ssl_key_missing", "socache_shmcb ssl", "SSLCertificateKeyFile @D/nonexistent.key\n", "startup-path"),
    (
        "ssl_chain_missing_in_vhost",
        "socache_shmcb ssl",
        "<VirtualHost *:443>\nSSLCertificateChainFile @D/chain.pem\n</VirtualHost>\n",
        "startup-path",
    ),
    (
        "ssl_ca_present",
        "socache_shmcb ssl",
        "SSLCACertificateFile /etc/ssl/certs/ca-certificates.crt\n",
        "startup-path",
    ),
    (
        "load_module_missing_file",
        "",
        "LoadModule wsgi_module /usr/lib/apache2/modules/mod_wsgi_nonexistent.so\n",
        "startup-path",
    ),
    (
        "load_module_wrong_name",
        "",
        "LoadModule php_module /usr/lib/apache2/modules/mod_access_compat.so\n",
        "startup-path",
    ),
    ("load_module_present", "", "LoadModule info_module /usr/lib/apache2/modules/mod_info.so\n", "startup-path"),
    ("load_module_already_loaded", "", "LoadModule alias_module /nonexistent/mod_alias.so\n", "startup-path"),
    (
        "vhost_error_log_dir_missing",
        "",
        "<VirtualHost *:80>\nErrorLog @D/nosuchdir/error.log\n</VirtualHost>\n",
        "startup-path",
    ),
    ("error_log_piped", "", "ErrorLog \"|/bin/cat\"\n", "startup-path"),
    ("error_log_syslog", "", "ErrorLog syslog:local7\n", "startup-path"),
    ("custom_log_dir_missing", "", "CustomLog @D/nosuchdir/access.log combined\n", "startup-path"),
    ("custom_log_relative_present", "", "CustomLog htdocs/access.log combined\n", "startup-path"),
    (
        "transfer_log_dir_missing_in_vhost",
        "",
        "<VirtualHost *:80>\nTransferLog @D/nosuchdir/access.log\n</VirtualHost>\n",
        "startup-path",
    ),
    // Authn providers (finding 2).
    ("authn_provider_not_loaded", "", "<Location /x>\nAuthType Basic\nAuthName x\nAuthBasicProvider file dbm\nRequire valid-user\n</Location>\n", "argument-value"),
    ("authn_provider_typo", "", "<Location /x>\nAuthBasicProvider yes\n</Location>\n", "argument-value"),
    ("authn_provider_loaded", "authn_dbm", "<Location /x>\nAuthBasicProvider dbm file\n</Location>\n", "argument-value"),
    ("authn_provider_alias", "", "<AuthnProviderAlias file mine>\nAuthUserFile /etc/passwd\n</AuthnProviderAlias>\n<Location /x>\nAuthBasicProvider mine\n</Location>\n", "argument-value"),
    ("digest_provider_without_realm_hash", "auth_digest authn_anon", "<Location /x>\nAuthDigestProvider file anon\n</Location>\n", "argument-value"),
    // Unclosed conditionals (finding 3).
    ("unclosed_ifmodule_false", "", "<IfModule mod_rewrite.c>\nRewriteEngine On\n", "syntax"),
    ("unclosed_ifmodule_true", "rewrite", "<IfModule mod_rewrite.c>\nRewriteEngine On\n", "syntax"),
    ("unclosed_ifdefine_false", "", "ServerAdmin a@b\n<IfDefine NOPE>\nFoo\n", "syntax"),
    // RewriteCond/RewriteRule of one word (finding 5).
    ("rewrite_cond_one_word", "rewrite", "RewriteEngine On\nRewriteCond %{HTTP_HOST}\nRewriteRule ^ - [F]\n", "argument-value"),
    ("rewrite_rule_one_word", "rewrite", "RewriteRule ^/x$\n", "argument-value"),
    ("rewrite_rule_one_quoted_word", "rewrite", "RewriteRule \"^/x\"\n", "argument-value"),
    ("rewrite_rule_four_words", "rewrite", "RewriteRule ^/a /b [L] extra\n", "argument-value"),
    // Substitute's s/// form (finding 4).
    ("substitute_sed_flag", "substitute", "<Location /x>\nAddOutputFilterByType SUBSTITUTE text/html\nSubstitute \"s/foo/bar/g\"\n</Location>\n", "argument-value"),
    ("substitute_no_pattern", "substitute", "<Location /x>\nSubstitute foo\n</Location>\n", "argument-value"),
    ("substitute_incomplete", "substitute", "<Location /x>\nSubstitute s/foo\n</Location>\n", "argument-value"),
    ("substitute_no_final_delimiter", "substitute", "<Location /x>\nSubstitute s/foo/bar\n</Location>\n", "argument-value"),
    ("substitute_all_flags", "substitute", "<Location /x>\nSubstitute S|a|b|iNq\n</Location>\n", "argument-value"),
    // Path forms in sections with a path (finding 6).
    ("proxy_pass_reverse_path_in_location", "proxy", "<Location /app>\nProxyPassReverse /app http://127.0.0.1:8080/\n</Location>\n", "argument-value"),
    ("proxy_pass_reverse_interpolate_in_location", "proxy", "<Location /app>\nProxyPassReverse http://127.0.0.1:8080/ interpolate\n</Location>\n", "argument-value"),
    ("proxy_pass_reverse_no_path_globally", "proxy", "ProxyPassReverse http://127.0.0.1:8080/ interpolate\n", "argument-value"),
    ("alias_two_words_in_location_match", "", "<LocationMatch \"^/a\">\nAlias /a /srv/a\n</LocationMatch>\n", "argument-value"),
    ("script_alias_two_words_in_proxy", "proxy", "<Proxy *>\nScriptAlias /a /srv/a\n</Proxy>\n", "argument-value"),
    ("alias_one_word_in_location", "", "<Location /a>\nAlias /srv/a\n</Location>\n", "argument-value"),
    // RequestReadTimeout (finding 7).
    ("request_read_timeout_comment", "", "RequestReadTimeout header=20-40,MinRate=500 # tune\n", "argument-value"),
    ("request_read_timeout_not_numerical", "", "RequestReadTimeout header=foo\n", "argument-value"),
    ("request_read_timeout_quote", "", "RequestReadTimeout header=20-40,minrate=500\"\n", "argument-value"),
    ("request_read_timeout_range_without_rate", "", "RequestReadTimeout header=20-40\n", "argument-value"),
    ("request_read_timeout_fine", "", "RequestReadTimeout handshake=5 header=20-40,MinRate=500 Body=10\n", "argument-value"),
    // AddOutputFilterByType (findings 8 and 8b).
    ("output_filter_not_loaded", "", "AddOutputFilterByType BROTLI_COMPRESS text/html\n", "argument-value"),
    ("output_filter_second_not_loaded", "", "AddOutputFilterByType deflate;SUBSTITUTE text/html\n", "argument-value"),
    ("output_filter_one_word", "", "AddOutputFilterByType DEFLATE\n", "argument-value"),
    ("output_filter_empty_word", "", "AddOutputFilterByType DEFLATE \"\" text/html\n", "argument-value"),
    ("output_filter_last_word_empty", "", "AddOutputFilterByType DEFLATE \"\"\n", "argument-value"),
    ("output_filter_loaded", "include", "AddOutputFilterByType INCLUDES;DEFLATE text/html\n", "argument-value"),
    // A name no module registers (black-box round 17 C17 F7): a FilterDeclare registers no
    // provider, an ExtFilterDefine registers one for the lines after it only.
    ("output_filter_typo", "", "AddOutputFilterByType DEFLAT text/html\n", "argument-value"),
    ("output_filter_declared", "", "FilterDeclare FOO\nAddOutputFilterByType FOO text/html\n", "argument-value"),
    ("output_filter_in_directory", "", "<Directory /tmp>\nAddOutputFilterByType DEFLATE;FOO text/html\n</Directory>\n", "argument-value"),
    (
        "output_filter_ext_defined_before",
        "ext_filter",
        "ExtFilterDefine foo mode=output cmd=/bin/cat\nAddOutputFilterByType FOO text/html\n",
        "argument-value",
    ),
    (
        "output_filter_ext_defined_after",
        "ext_filter",
        "AddOutputFilterByType FOO text/html\nExtFilterDefine foo mode=output cmd=/bin/cat\n",
        "argument-value",
    ),
    // Black-box round 17 C17 F2: mod_auth_basic knows Off and MD5 only.
    ("digest_algorithm_sha", "", "<Directory /tmp>\nAuthBasicUseDigestAlgorithm SHA\n</Directory>\n", "argument-value"),
    ("digest_algorithm_md5", "", "<Location /x>\nAuthBasicUseDigestAlgorithm md5\n</Location>\n", "argument-value"),
    ("output_filter_of_the_core", "", "AddOutputFilterByType CONTENT_LENGTH;byterange text/html\n", "argument-value"),
    // Argument values (finding 8): CustomLog conditions, Listen's port, expiry codes.
    ("custom_log_bad_condition", "", "CustomLog /tmp/a.log combined nolog\n", "argument-value"),
    ("custom_log_empty_env", "", "CustomLog /tmp/a.log combined env=!\n", "argument-value"),
    ("custom_log_env_any_case", "", "CustomLog /tmp/a.log combined ENV=x\n", "argument-value"),
    ("listen_without_port", "", "Listen localhost\n", "argument-value"),
    ("listen_port_and_protocol", "", "Listen 8080 https\n", "argument-value"),
    // Listen's address as apr_parse_addr_port reads it (black-box round 14, F6).
    ("listen_v6_without_port", "", "Listen [::1]\n", "argument-value"),
    ("listen_any_v6_without_port", "", "Listen [::]\n", "argument-value"),
    ("listen_colon_without_port", "", "Listen 127.0.0.1:\n", "argument-value"),
    ("listen_v6_colon_without_port", "", "Listen [::1]:\n", "argument-value"),
    ("listen_port_zero", "", "Listen 0\n", "argument-value"),
    ("listen_host_port_zero", "", "Listen 127.0.0.1:0\n", "argument-value"),
    ("listen_port_too_big", "", "Listen 70000\n", "argument-value"),
    ("listen_host_port_too_big", "", "Listen 127.0.0.1:99999\n", "argument-value"),
    ("listen_v6_port_with_letters", "", "Listen [::1]:80x\n", "argument-value"),
    ("listen_v6_without_brackets", "", "Listen ::1\n", "argument-value"),
    ("listen_port_after_a_colon_alone", "", "Listen :18081\n", "argument-value"),
    ("listen_v6_bad_address", "", "Listen [::g]:18081\n", "argument-value"),
    ("listen_forms_fine", "", "Listen 18081\nListen [::1]:18082\nListen ::1:18083\nListen *:18084 http\nListen [::]:18085\n", "argument-value"),
    // The same host as written and port twice (F10).
    ("listen_twice", "", "Listen 18081\nListen 18081\n", "argument-value"),
    ("listen_twice_other_protocol", "", "Listen 127.0.0.1:18080 https\n", "argument-value"),
    ("listen_star_and_none", "", "Listen 18081\nListen *:18081\n", "argument-value"),
    ("listen_v6_with_and_without_brackets", "", "Listen [::1]:18081\nListen ::1:18081\n", "argument-value"),
    (
        "listen_same_port_other_hosts",
        "",
        "Listen 18081\nListen 0.0.0.0:18081\nListen 127.0.0.1:18081\nListen localhost:18081\nListen [::]:18081\n",
        "argument-value",
    ),
    ("listen_again_in_a_false_conditional", "", "<IfModule mod_nosuch.c>\nListen 127.0.0.1:18080\n</IfModule>\n", "argument-value"),
    // An Error line stops httpd wherever it is read (F11).
    ("error_without_message", "", "Error\n", "argument-value"),
    ("error_with_message", "", "<Directory @D/htdocs>\nError \"stop\"\n</Directory>\n", "argument-value"),
    ("error_in_a_false_conditional", "", "<IfModule mod_nosuch.c>\nError x\n</IfModule>\n", "argument-value"),
    // The closer of a true conditional section ends its body only alone on its line (session 23,
    // black-box round 14 F9); a false one's is found by its first word.
    ("ifmodule_true_closer_with_a_comment", "", "<Directory @D/htdocs>\n<IfModule mod_authz_core.c>\nRequire all granted\n</IfModule> # end\n</Directory>\n", "syntax"),
    ("ifmodule_true_closer_around_a_section", "", "<IfModule mod_alias.c>\n<Directory @D/htdocs>\n</Directory>\n</IfModule> x\n", "syntax"),
    ("ifdefine_true_closer_with_a_word", "", "<IfDefine !NOPE>\nServerAdmin a@b\n</IfDefine> x\n", "syntax"),
    ("ifversion_true_closer_with_a_word", "", "<IfVersion >= 2.4>\n</IfVersion> x\n", "syntax"),
    ("iffile_true_closer_without_gt", "", "<IfFile /etc/passwd>\n</IfFile\n", "syntax"),
    ("nested_true_closer_with_a_comment", "", "<IfModule mod_alias.c>\n<IfDefine !NOPE>\n</IfDefine> # inner\n</IfModule>\n", "syntax"),
    ("ifmodule_false_closer_with_a_comment", "", "<IfModule mod_nosuch.c>\nFoo\n</IfModule> # end\n", "syntax"),
    ("ifmodule_true_closer_any_case_and_blanks", "", "<IfModule mod_alias.c>\nServerAdmin a@b\n  </IFMODULE> \t\n", "syntax"),
    // `<Name> words>`: the handler is handed the words as for `<Name words>` (session 23).
    ("directory_gt_then_a_path_and_gt", "", "<Directory> @D/htdocs>\nRequire all granted\n</Directory>\n<Files> x>\n</Files>\n", "syntax"),
    // ... inside a false conditional section, a section `Directory>` for the skipping reader;
    // a closer of another name there names the conditional's line (session 24).
    ("false_directory_gt_then_a_path_and_gt", "", "<IfModule mod_nosuch.c>\n<Directory> @D/htdocs>\n</Directory>\n</IfModule>\n", "syntax"),
    ("false_directory_gt_closed_by_its_gt_gt", "", "<IfDefine NOPE>\n<Directory> @D/htdocs>\n</Directory>>\n</IfDefine>\n", "syntax"),
    ("false_closer_of_another_section", "", "ServerAdmin a@b\n<IfModule mod_nosuch.c>\n<Limit GET>\n</Files>\n</Limit>\n</IfModule>\n", "syntax"),
    // Accounts User and Group name must be this machine's (session 23, F12).
    ("user_unknown", "", "User nosuchuser\n", "startup-account"),
    ("group_unknown", "", "Group www\n", "startup-account"),
    ("user_other_case", "", "User WWW-DATA\n", "startup-account"),
    ("user_root", "", "User root\n", "startup-account"),
    ("user_number_not_a_number", "", "User #abc\n", "startup-account"),
    ("accounts_fine", "", "User www-data\nGroup www-data\nUser #12345\nGroup #abc\n", "startup-account"),
    ("expires_unit_typo", "expires", "ExpiresDefault \"access plus 1 mnth\"\n", "argument-value"),
    ("expires_negative", "expires", "ExpiresActive On\nExpiresByType text/html \"access plus -1 days\"\n", "argument-value"),
    ("expires_old_form_unchecked", "expires", "ExpiresDefault \"Access plus 1 mnth\"\n", "argument-value"),
    ("expires_abbreviated", "expires", "ExpiresDefault \"n p 1 mo 2 mi 3 y\"\n", "argument-value"),
    ("expires_mime_without_slash", "expires", "ExpiresByType text A300\n", "argument-value"),
    // Keywords (finding 8).
    ("rewrite_options_off", "rewrite", "RewriteOptions off\n", "argument-value"),
    ("rewrite_options_known", "rewrite", "RewriteOptions Inherit MaxRedirects=5 AllowNoSlash AllowAnyURI MergeBase IgnoreContextInfo LegacyPrefixDocRoot UnsafePrefixStat InheritDownBefore\n", "argument-value"),
    ("ssl_engine_word", "socache_shmcb ssl", "SSLEngine foo\n", "argument-value"),
    ("ssl_engine_optional", "socache_shmcb ssl", "SSLEngine Optional\n", "argument-value"),
    ("ssl_verify_client_number", "socache_shmcb ssl", "<Directory /srv>\nSSLVerifyClient 99\n</Directory>\n", "argument-value"),
    ("ssl_verify_client_any_case", "socache_shmcb ssl", "SSLVerifyClient Require\n", "argument-value"),
    ("xbithack_yes", "include", "XBitHack yes\n", "argument-value"),
    ("cookie_style_number", "usertrack", "CookieStyle 0\n", "argument-value"),
    ("force_language_priority_number", "", "ForceLanguagePriority 1.2.3\n", "argument-value"),
    // A continuation at the end of a file (finding 13).
    ("continuation_at_end_of_file", "", "ServerAdmin a@b \\\n", "argument-count"),
    ("continuation_at_end_of_file_no_space", "", "<Directory /srv>\n</Directory>\nOptions Indexes\\\n", "options-syntax"),
    ("backslash_without_newline_at_end", "", "ServerAdmin a@b \\", "argument-count"),
    // httpd names the last physical line of a continued line (session 21).
    ("continued_argument_count", "", "ServerAdmin a@b \\\n  c \\\n  d\n", "argument-count"),
    ("continued_option", "", "<Directory /srv>\nOptions \\\n  Bogus\n</Directory>\n", "options-syntax"),
    ("continued_rewrite_rule_one_word", "rewrite", "RewriteRule \\\n ^/x$\n", "argument-value"),
    ("continued_fine", "", "ServerAdmin \\\n  a@b\n<Directory \\\n @D/htdocs>\nOptions \\\n None\n</Directory>\n", "syntax"),
    ("continued_opener_mismatched_closer", "", "<Directory \\\n /srv>\n</Location>\n", "syntax"),
    // Section openers without their `>` (session 21).
    ("if_version_without_gt", "", "<IfVersion >= 2.4\n</IfVersion>\n", "syntax"),
    ("if_version_gt_inside_a_word", "", "<IfVersion >= 2.4>x\n</IfVersion>\n", "syntax"),
    ("if_version_bad_version", "", "<IfVersion > 2.4.x>\n</IfVersion>\n", "syntax"),
    ("if_version_fine", "", "<IfVersion >= 2.4 >\nServerAdmin a@b\n</IfVersion>\n<IfVersion < \"2.4>\"\n</IfVersion>\n<IfVersion = /^2/>\n</IfVersion>\n", "syntax"),
    ("location_bare", "", "<Location\n</Location>\n", "syntax"),
    // Section headers inside a skipped conditional (finding 15).
    ("skipped_ifdefine_headers", "", "<IfDefine NOPE>\n<IfDefine >\n</IfDefine>\n<FilesMatch>\n</FilesMatch>\n<Directory /srv\n</Directory>\n<IfDefine APACHE2\n</IfDefine>\n</IfDefine>\n", "syntax"),
    ("skipped_ifmodule_headers", "", "<IfModule mod_nosuch.c>\n<Location>\n</Location>\n</IfModule>\n", "syntax"),
    ("read_ifdefine_headers", "", "<IfDefine !NOPE>\n<FilesMatch>\n</FilesMatch>\n</IfDefine>\n", "syntax"),
    // Words after a NO_ARGS directive (finding 15).
    ("ssl_require_ssl_with_a_word", "socache_shmcb ssl", "<Directory /srv>\nSSLRequireSSL foo\n</Directory>\n", "argument-count"),
    ("authn_cache_enable_with_a_word", "socache_shmcb authn_socache", "AuthnCacheEnable foo\n", "argument-count"),
    // SSLOptions, section names without `<` (finding 8).
    ("ssl_options_illegal", "socache_shmcb ssl", "<Directory /srv>\nSSLOptions StdEnvVars Full\n</Directory>\n", "argument-value"),
    ("ssl_options_known", "socache_shmcb ssl", "<Directory /srv>\nSSLOptions +stdenvvars -FakeBasicAuth StrictRequire OptRenegotiate LegacyDNStringFormat ExportCertData\n</Directory>\n", "argument-value"),
    ("bare_limit_except", "", "<Directory /srv>\nLimitExcept GET\n</Directory>\n", "unknown-directive"),
    ("bare_if_module", "", "IfModule mod_alias.c\n", "unknown-directive"),
    // ErrorDocument's status (finding 8).
    ("error_document_keyword", "", "ErrorDocument On /e.html\n", "argument-value"),
    ("error_document_over_599", "", "<Directory /srv>\nErrorDocument 600 /e.html\n</Directory>\n", "argument-value"),
    ("error_document_digits_then_letters", "", "ErrorDocument 404abc /e.html\n", "argument-value"),
    // Words of single modules' handlers (session 20, task C).
    ("index_options_unknown_word", "", "IndexOptions FancyIndexing Bogus\n", "argument-value"),
    ("index_options_signed_none", "", "IndexOptions +None\n", "argument-value"),
    ("index_options_none_with_option", "", "IndexOptions None FancyIndexing\n", "argument-value"),
    ("index_options_none_then_option_line", "", "IndexOptions None\nIndexOptions SuppressSize\n", "argument-value"),
    ("index_options_none_then_added", "", "IndexOptions SuppressSize\nIndexOptions None +FancyIndexing\n<Directory /srv>\nIndexOptions FancyIndexing\n</Directory>\n", "argument-value"),
    ("index_options_narrow_width", "", "IndexOptions Charset=x NameWidth=* DescriptionWidth=5\n", "argument-value"),
    ("index_options_width_words", "", "IndexOptions NameWidth=0 DescriptionWidth=* -IconWidth IconHeight=abc +IconHeight=4 Type=text/html UseOldDateFormat -NameWidth\n", "argument-value"),
    ("index_options_bare_name_width", "", "IndexOptions NameWidth\n", "argument-value"),
    ("ssl_session_cache_not_loaded", "socache_shmcb ssl", "SSLSessionCache dbm:@D/cache\n", "argument-value"),
    ("ssl_session_cache_without_socache_module", "ssl", "SSLSessionCache shmcb:@D/scache(512000)\n", "argument-value"),
    ("ssl_session_cache_name_case", "socache_shmcb ssl", "SSLSessionCache Default\n", "argument-value"),
    ("ssl_session_cache_loaded", "socache_shmcb socache_dbm ssl", "SSLSessionCache dbm:@D/cache\nSSLSessionCache NONE\nSSLSessionCache shmcb:@D/c(512000)\n", "argument-value"),
    ("ssl_random_seed_context", "socache_shmcb ssl", "SSLRandomSeed foo builtin\n", "argument-value"),
    ("ssl_random_seed_egd", "socache_shmcb ssl", "SSLRandomSeed startup egd:/run/egd\n", "argument-value"),
    ("ssl_random_seed_builtin_bytes", "socache_shmcb ssl", "SSLRandomSeed connect builtin 512\n", "argument-value"),
    ("ssl_random_seed_fine", "socache_shmcb ssl", "SSLRandomSeed Startup file:/dev/urandom 512\nSSLRandomSeed connect exec:/bin/true abc\n", "argument-value"),
    ("ssl_pass_phrase_dialog_file", "socache_shmcb ssl", "SSLPassPhraseDialog file:/x\n", "argument-value"),
    ("ssl_pass_phrase_dialog_exec_case", "socache_shmcb ssl", "SSLPassPhraseDialog EXEC:/bin/true\n", "argument-value"),
    ("ssl_pass_phrase_dialog_fine", "socache_shmcb ssl", "SSLPassPhraseDialog Builtin\nSSLPassPhraseDialog |/bin/cat\nSSLPassPhraseDialog exec:/bin/true\n", "argument-value"),
    ("user_dir_no_word", "userdir", "UserDir\n", "argument-value"),
    ("user_dir_empty_word", "userdir", "UserDir \"\"\n", "argument-value"),
    ("user_dir_forms", "userdir", "UserDir disabled\nUserDir enabled alice bob\nUserDir public_html /srv/*/www\n", "argument-value"),
    ("virtual_document_root_bad_escape", "vhost_alias", "VirtualDocumentRoot /srv/%x\n", "argument-value"),
    ("virtual_document_root_dot_without_digit", "vhost_alias", "VirtualDocumentRoot /srv/%0.\n", "argument-value"),
    ("virtual_document_root_relative", "vhost_alias", "VirtualDocumentRoot srv/%0\n", "argument-value"),
    ("virtual_script_alias_ip_bad_part", "vhost_alias", "VirtualScriptAliasIP /srv/%1.x\n", "argument-value"),
    ("virtual_document_root_fine", "vhost_alias", "VirtualDocumentRoot /srv/%0/%-1.2/%3+/%-1+.-2+\nVirtualDocumentRootIP /srv/%p/%%\nVirtualScriptAlias NONE\n", "argument-value"),
    ("substitute_max_line_length_suffix", "substitute", "<Location /x>\nSubstituteMaxLineLength 10kb\n</Location>\n", "argument-value"),
    ("substitute_max_line_length_negative", "substitute", "<Location /x>\nSubstituteMaxLineLength -1\n</Location>\n", "argument-value"),
    ("substitute_max_line_length_overflow", "substitute", "<Location /x>\nSubstituteMaxLineLength 9000000000000000000k\n</Location>\n", "argument-value"),
    ("substitute_max_line_length_fine", "substitute", "<Location /x>\nSubstituteMaxLineLength 10K\nSubstituteMaxLineLength k\nSubstituteMaxLineLength \" 5B\"\n</Location>\n", "argument-value"),
    ("dav_on_without_dav_fs", "dav", "<Location /x>\nDav On\n</Location>\n", "argument-value"),
    ("dav_provider_case", "dav dav_fs", "<Location /x>\nDav Filesystem\n</Location>\n", "argument-value"),
    ("dav_fine", "dav dav_fs", "<Location /x>\nDav filesystem\n</Location>\n<Location /y>\nDAV on\n</Location>\n<Location /z>\nDav OFF\n</Location>\n", "argument-value"),
    ("rewrite_map_dbm_without_file", "rewrite", "RewriteMap m dbm=sdbm\n", "argument-value"),
    ("rewrite_map_dbm_prefix", "rewrite", "RewriteMap m dbmx:/etc/passwd\n", "argument-value"),
    ("rewrite_map_int_case", "rewrite", "RewriteMap m int:ToUpper\n", "argument-value"),
    ("rewrite_map_dbd_without_mod_dbd", "rewrite", "RewriteMap m fastdbd:SELECT 1\n", "argument-value"),
    // Files the maps, mutexes and mod_ssl's seeds and dialogs name (session 21).
    ("rewrite_map_txt_missing", "rewrite", "RewriteMap m txt:@D/nosuch.txt\n", "startup-path"),
    ("rewrite_map_rnd_relative_missing", "rewrite", "RewriteMap m rnd:nosuch.txt\n", "startup-path"),
    ("rewrite_map_without_type_missing", "rewrite", "<VirtualHost *:80>\nRewriteMap m @D/nosuch\n</VirtualHost>\n", "startup-path"),
    ("rewrite_map_dbm_missing", "rewrite", "RewriteMap m dbm:@D/nosuch.db\n", "startup-path"),
    ("rewrite_map_sdbm_missing_dir_file", "rewrite", "RewriteMap m dbm=sdbm:@D/htdocs\n", "startup-path"),
    ("rewrite_map_dbm_type_unknown", "rewrite", "RewriteMap m dbm=ndbm:@D/htdocs\n", "startup-path"),
    ("rewrite_map_prg_missing", "rewrite", "RewriteMap m \"prg:@D/nosuch.sh -u\"\n", "startup-path"),
    ("rewrite_map_files_present", "rewrite", "RewriteMap a txt:@D/htdocs\nRewriteMap b DBM=DB:@D/htdocs\nRewriteMap c dbm=gdbm:htdocs\nRewriteMap d prg:htdocs\nRewriteMap e \"prg:/bin/cat -u\"\n", "startup-path"),
    ("mutex_directory_missing", "", "Mutex file:@D/nodir default\n", "startup-path"),
    ("mutex_directory_present", "", "Mutex fcntl:@D/htdocs default\nMutex flock:@D/htdocs\n", "startup-path"),
    // A semaphore's name is looked at as a directory too (`ap_set_mutex` after `ap_parse_mutex`).
    ("mutex_semaphore_name_missing", "", "Mutex sem:@D/nodir default\n", "startup-path"),
    ("mutex_posix_semaphore_name_missing", "", "Mutex POSIXSEM:@D/nodir\n", "startup-path"),
    ("mutex_semaphore_name_a_directory", "", "Mutex sem:@D/htdocs default\nMutex sem: default\n", "startup-path"),
    ("ssl_random_seed_file_missing", "socache_shmcb ssl", "SSLRandomSeed startup file:@D/nofile 512\n", "startup-path"),
    ("ssl_random_seed_exec_missing", "socache_shmcb ssl", "SSLRandomSeed connect exec:@D/noprog\n", "startup-path"),
    ("ssl_random_seed_present", "socache_shmcb ssl", "SSLRandomSeed startup /dev/urandom\nSSLRandomSeed connect exec:/bin/true\n", "startup-path"),
    ("ssl_pass_phrase_dialog_exec_missing", "socache_shmcb ssl", "SSLPassPhraseDialog exec:noprog\n", "startup-path"),
    ("ssl_pass_phrase_dialog_exec_a_directory", "socache_shmcb ssl", "SSLPassPhraseDialog exec:@D/htdocs\n", "startup-path"),
    ("rewrite_map_fine", "rewrite dbd", "RewriteMap a int:toupper\nRewriteMap b DBM=db:/etc/passwd\nRewriteMap c dbd:SELECT 1\n", "argument-value"),
    ("mutex_unknown_mechanism", "", "Mutex bogus\n", "argument-value"),
    ("mutex_unknown_mechanism_with_dir", "", "Mutex bogus:/tmp\n", "argument-value"),
    ("mutex_comment_words", "", "Mutex sysvsem # c\n", "argument-value"),
    ("mutex_type_of_another_mpm", "", "Mutex default mpm-accept\n", "argument-value"),
    ("mutex_type_case", "", "Mutex default Default\n", "argument-value"),
    ("mutex_none", "", "Mutex none\n", "argument-value"),
    ("mutex_no_with_type", "rewrite", "Mutex no rewrite-map\n", "argument-value"),
    ("mutex_fine", "rewrite socache_shmcb ssl", "Mutex file:/tmp default\nMutex default OmitPID\nMutex sem rewrite-map omitpid\nMutex pthread ssl-cache ssl-stapling ssl-stapling-refresh default\n", "argument-value"),
    ("ssl_protocol_sslv3", "socache_shmcb ssl", "SSLProtocol SSLv3\n", "argument-value"),
    ("ssl_proxy_protocol_plus_sslv3", "socache_shmcb ssl", "<VirtualHost *:443>\nSSLProxyProtocol +SSLv3\n</VirtualHost>\n", "argument-value"),
    ("ssl_protocol_comment", "socache_shmcb ssl", "SSLProtocol all -SSLv3 #c\n", "argument-value"),
    ("ssl_protocol_comment_after_blank", "socache_shmcb ssl", "SSLProtocol all -SSLv3 # c\n", "argument-value"),
    ("ssl_protocol_minus_sslv3", "socache_shmcb ssl", "SSLProtocol all -sslv3 +TLSv1.2\n", "argument-value"),
    ("request_header_note", "headers", "RequestHeader note X-A b\n", "argument-value"),
    ("header_note", "headers", "Header note X-A b\n", "argument-value"),
];

/// What `apache2 -t` says of `main`: None when it starts, else the line of the snippet it
/// names (None inside when it names none) and its message.
fn httpd_verdict(main: &Path, snippet: &Path) -> Option<(Option<u32>, String)> {
    let out = Command::new("/usr/sbin/apache2")
        .arg("-t")
        .arg("-d")
        .arg(main.parent().unwrap())
        .arg("-f")
        .arg(main)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    if out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    let key = format!(" of {}", snippet.display());
    let line = text.split("Syntax error on line ").skip(1).find_map(|rest| {
        let (n, after) = rest.split_once(' ')?;
        after.starts_with(&key[1..]).then(|| n.parse().ok()).flatten()
    });
    Some((line, text))
}

#[test]
fn check_refuses_what_apache2_t_refuses() {
    if !apache_lsp_e2e::httpd::require_apache2() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let mut failures = vec![];
    let mut refused = 0;
    for (name, mods, snippet, code) in CASES {
        let dir = root.path().join(name);
        std::fs::create_dir_all(dir.join("htdocs")).unwrap();
        let d = dir.display().to_string();
        let snippet_path = dir.join("snippet.conf");
        std::fs::write(&snippet_path, snippet.replace("@D", &d)).unwrap();
        let mut main = format!("ServerRoot {d}\nInclude /etc/apache2/mods-enabled/*.load\n");
        for m in mods.split_whitespace() {
            main += &format!("Include /etc/apache2/mods-available/{m}.load\n");
        }
        main += &format!(
            "PidFile {d}/pid\nErrorLog {d}/error.log\nServerName localhost\nListen 127.0.0.1:18080\nDocumentRoot {d}/htdocs\n<Directory {d}/htdocs>\n  AllowOverride All\n  Require all granted\n</Directory>\nInclude {d}/snippet.conf\n"
        );
        let main_path = dir.join("main.conf");
        std::fs::write(&main_path, main).unwrap();
        let httpd = httpd_verdict(&main_path, &snippet_path);
        let reported = apache_lsp::cli::check_paths(std::slice::from_ref(&main_path)).unwrap();
        let errors: Vec<(u32, &str)> = reported
            .iter()
            .filter(|r| r.severity == "error" && Path::new(&r.file) == snippet_path)
            .map(|r| (r.line, r.code))
            .collect();
        refused += usize::from(httpd.is_some());
        let agrees = match &httpd {
            None => errors.is_empty(),
            Some((Some(line), _)) => errors.contains(&(*line, *code)),
            Some((None, _)) => errors.iter().any(|(_, c)| c == code),
        };
        if !agrees {
            failures.push(format!("{name}: httpd {httpd:?}; check {errors:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // (Both verdicts occur: the frame itself is one httpd starts with.)
    assert!(refused > 0 && refused < CASES.len(), "{refused} of {} refused", CASES.len());
}
