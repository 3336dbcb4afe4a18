//! The synthetic control-repo generator behind `examples/gen_corpus` and `benches/check.rs`.
//!
//! [`generate`] writes one Puppet environment shaped like real control repos (see
//! docs/benchmarks.md, "The corpus"): a Hiera 5 `hiera.yaml` with per-node, per-role,
//! per-site/OS-family, per-OS-release, glob, eyaml and common levels; per-node files that are
//! mostly small (5-30 keys, a few JSON), role files of 20-150 keys, a common file of 200-2,000
//! keys, modules under `modules/` with their own hiera.yaml and namespaced data; class-parameter
//! keys, nested hashes and arrays, about 10% of string values interpolated (`%{facts.*}`,
//! `%{trusted.*}`, `%{lookup()}`, `%{hiera()}`, `%{alias()}`), lookup_options with literal keys,
//! `^` patterns and merge strategies with options, eyaml `ENC[PKCS7,...]` values, and a low rate
//! of seeded defects listed with their line in `DEFECTS.tsv`. Next to it: `facts/<certname>.json`
//! fact sets (facter 4 shape, taken round-robin from facterdb files, with `role`/`site` custom
//! facts and `trusted`) whose certnames are the node files' names for 9 in 10 of them, and
//! `lookup-keys.txt`, keys for the lookup benchmark.
//!
//! Everything is a function of the [`Config`]: the same seed gives the same bytes (a small
//! splitmix64 generator, no dependency; directory listings are sorted).

use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use base64::Engine as _;

/// Bumped whenever the generator's output changes, so cached corpora are rebuilt.
pub const GENERATOR_VERSION: u32 = 2;

/// Where real fact sets are read from by default (facterdb 4.5 dumps).
pub const DEFAULT_FACTERDB: &str = "/work/shared/facts/facterdb-4.5";

#[derive(Clone, Debug)]
pub struct Config {
    /// About how many files hieralint loads (hiera.yaml files and data files).
    pub files: usize,
    /// How many fact sets to write under `facts/`.
    pub facts: usize,
    pub seed: u64,
    /// A directory of facter 4 JSON dumps to start fact sets from; a small built-in set is used
    /// when it is missing or empty.
    pub facterdb: PathBuf,
}

impl Config {
    pub fn new(files: usize, facts: usize, seed: u64) -> Config {
        Config {
            files,
            facts,
            seed,
            facterdb: PathBuf::from(DEFAULT_FACTERDB),
        }
    }

    /// The cache directory name for this configuration.
    pub fn cache_name(&self) -> String {
        format!(
            "files{}-facts{}-seed{}-v{}",
            self.files, self.facts, self.seed, GENERATOR_VERSION
        )
    }
}

/// What was written.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// hiera.yaml and data files (what `hieralint check` loads).
    pub hiera_files: usize,
    pub data_bytes: u64,
    pub top_level_keys: usize,
    pub nodes: usize,
    pub node_files_json: usize,
    pub roles: usize,
    pub sites: usize,
    pub modules: usize,
    pub fact_sets: usize,
    pub fact_sets_matching_a_node: usize,
    pub defects: usize,
    pub interpolated_strings: usize,
    pub strings: usize,
}

// ---------------------------------------------------------------------------------------------
// Randomness

/// splitmix64: tiny, fast, and good enough for shaping test data.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    /// An independent stream for item `n` of a family `salt`, so that one file's content does
    /// not depend on how much randomness earlier files used.
    pub fn derive(seed: u64, salt: u64, n: u64) -> Rng {
        let mut r = Rng::new(seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.0 ^= n.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    /// In `lo..=hi`, skewed towards `lo` (most files are small, a few are large).
    pub fn skewed(&mut self, lo: usize, hi: usize) -> usize {
        let span = hi.saturating_sub(lo) + 1;
        let a = self.below(span);
        let b = self.below(span);
        lo + a * b / span
    }

    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    pub fn pick<'a, T>(&mut self, s: &'a [T]) -> &'a T {
        &s[self.below(s.len())]
    }

    /// `k` distinct indices in `0..n` (fewer when `n < k`), in draw order.
    pub fn distinct(&mut self, n: usize, k: usize) -> Vec<usize> {
        let k = k.min(n);
        let mut seen = HashSet::with_capacity(k);
        let mut out = Vec::with_capacity(k);
        if k * 2 > n {
            // dense: shuffle a full list
            let mut all: Vec<usize> = (0..n).collect();
            for i in 0..k {
                let j = i + self.below(n - i);
                all.swap(i, j);
            }
            all.truncate(k);
            return all;
        }
        while out.len() < k {
            let i = self.below(n);
            if seen.insert(i) {
                out.push(i);
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Values and their YAML/JSON text

#[derive(Clone, Debug)]
pub enum Val {
    /// A string, quoted only when YAML needs it.
    Str(String),
    /// A string in the given quote style (`'` or `"`).
    Quoted(String, char),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// An eyaml blob; `true` writes it as a folded block over several lines.
    Enc(String, bool),
    /// A sequence; `true` writes it in flow style when all items are scalars.
    Arr(Vec<Val>, bool),
    Map(Vec<(String, Val)>),
}

impl Val {
    fn is_scalar(&self) -> bool {
        !matches!(self, Val::Arr(..) | Val::Map(..) | Val::Enc(_, true))
    }

    fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Val::Str(s) | Val::Quoted(s, _) => J::String(s.clone()),
            Val::Enc(s, _) => J::String(s.clone()),
            Val::Int(i) => J::from(*i),
            Val::Float(f) => J::from(*f),
            Val::Bool(b) => J::Bool(*b),
            Val::Arr(a, _) => J::Array(a.iter().map(Val::to_json).collect()),
            Val::Map(m) => J::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()),
        }
    }
}

/// Words Psych (YAML 1.1) reads as booleans or null when unquoted.
const YAML11_SPECIAL: &[&str] = &[
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~",
];

/// Whether `s` can be written as a plain YAML scalar and still read back as that string.
pub fn plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '/' || first == '_')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./@-:+".contains(c))
        && !s.ends_with(':')
        && !s.contains(": ")
        && !YAML11_SPECIAL.contains(&s.to_ascii_lowercase().as_str())
}

fn quote(s: &str, style: char) -> String {
    if style == '\'' {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

fn scalar_text(v: &Val) -> String {
    match v {
        Val::Str(s) if plain_safe(s) => s.clone(),
        Val::Str(s) => quote(s, if s.contains('\'') { '"' } else { '\'' }),
        Val::Quoted(s, q) => quote(s, *q),
        Val::Int(i) => i.to_string(),
        Val::Float(f) => format!("{f:?}"),
        Val::Bool(b) => b.to_string(),
        Val::Enc(s, _) => s.clone(),
        Val::Arr(a, _) if a.is_empty() => "[]".into(),
        Val::Map(m) if m.is_empty() => "{}".into(),
        Val::Arr(a, _) => format!(
            "[{}]",
            a.iter().map(scalar_text).collect::<Vec<_>>().join(", ")
        ),
        Val::Map(_) => "{}".into(),
    }
}

fn key_text(k: &str) -> String {
    if plain_safe(k) {
        k.to_string()
    } else {
        quote(k, '\'')
    }
}

/// A file being written, line by line (so seeded defects know their line numbers).
#[derive(Default)]
pub struct Lines(Vec<String>);

impl Lines {
    fn push(&mut self, s: impl Into<String>) -> usize {
        self.0.push(s.into());
        self.0.len()
    }

    /// Writes `key: value` at `indent`; returns the line of the key.
    pub fn entry(&mut self, indent: usize, key: &str, v: &Val) -> usize {
        let pad = " ".repeat(indent);
        let k = key_text(key);
        match v {
            Val::Arr(a, flow) if !(a.is_empty() || *flow && a.iter().all(Val::is_scalar)) => {
                let line = self.push(format!("{pad}{k}:"));
                for item in a {
                    self.item(indent + 2, item);
                }
                line
            }
            Val::Map(m) if !m.is_empty() => {
                let line = self.push(format!("{pad}{k}:"));
                for (ck, cv) in m {
                    self.entry(indent + 2, ck, cv);
                }
                line
            }
            Val::Enc(s, true) => {
                let line = self.push(format!("{pad}{k}: >"));
                let bytes = s.as_bytes();
                for chunk in bytes.chunks(64) {
                    self.push(format!("{pad}    {}", String::from_utf8_lossy(chunk)));
                }
                line
            }
            _ => self.push(format!("{pad}{k}: {}", scalar_text(v))),
        }
    }

    /// A sequence item at `indent` (the dash's column).
    fn item(&mut self, indent: usize, v: &Val) {
        let pad = " ".repeat(indent);
        match v {
            Val::Map(m) if !m.is_empty() => {
                let start = self.0.len();
                for (ck, cv) in m {
                    self.entry(indent + 2, ck, cv);
                }
                // the first entry goes on the dash's line
                let first = &mut self.0[start];
                first.replace_range(..indent + 2, &format!("{pad}- "));
            }
            _ => {
                self.push(format!("{pad}- {}", scalar_text(v)));
            }
        }
    }

    pub fn text(&self) -> String {
        let mut s = self.0.join("\n");
        s.push('\n');
        s
    }
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

const PROFILE_CLASSES: &[&str] = &[
    "base",
    "ntp",
    "ssh",
    "sudo",
    "users",
    "firewall",
    "network",
    "monitoring::agent",
    "monitoring::server",
    "logging::rsyslog",
    "logging::filebeat",
    "web::nginx",
    "web::apache",
    "web::haproxy",
    "db::postgres",
    "db::mysql",
    "db::redis",
    "app::java",
    "app::tomcat",
    "app::nodejs",
    "mq::rabbitmq",
    "mq::kafka",
    "dns::bind",
    "dns::unbound",
    "backup::bacula",
    "mail::postfix",
    "puppet::agent",
    "security::selinux",
    "security::auditd",
    "storage::nfs",
    "cache::memcached",
    "ci::jenkins",
    "container::docker",
    "container::kubelet",
    "vault",
    "consul",
    "search::elasticsearch",
    "search::kibana",
    "proxy::squid",
    "ldap::client",
];

const PARAMS: &[&str] = &[
    "ensure",
    "enable",
    "manage_service",
    "manage_package",
    "package_name",
    "packages",
    "service_name",
    "port",
    "listen_address",
    "servers",
    "config_dir",
    "log_dir",
    "log_level",
    "user",
    "group",
    "version",
    "timeout",
    "max_connections",
    "workers",
    "options",
    "config",
    "settings",
    "users",
    "allowed_hosts",
    "extra_args",
    "purge",
    "domain",
    "admin_email",
    "backup_enabled",
    "retention_days",
    "limits",
    "env",
    "url",
    "repo_url",
    "ssl",
    "ssl_cert",
    "ssl_key",
    "tags",
    "weight",
    "mode",
];

const MODULES: &[&str] = &[
    "ntp",
    "chrony",
    "apache",
    "nginx",
    "postgresql",
    "mysql",
    "redis",
    "haproxy",
    "rabbitmq",
    "kafka",
    "zookeeper",
    "elasticsearch",
    "docker",
    "kubernetes",
    "consul",
    "vault",
    "prometheus",
    "grafana",
    "telegraf",
    "bind",
    "unbound",
    "postfix",
    "sudo",
    "ssh",
    "accounts",
    "firewall",
    "logrotate",
    "rsyslog",
    "filebeat",
    "java",
    "tomcat",
    "nodejs",
    "python",
    "sysctl",
    "limits",
    "selinux",
    "auditd",
    "nfs",
    "autofs",
    "cron",
];

const ROLES: &[&str] = &[
    "webserver",
    "appserver",
    "database",
    "db_replica",
    "loadbalancer",
    "cache",
    "queue",
    "search",
    "monitoring",
    "logging",
    "bastion",
    "dns",
    "mail",
    "ci_runner",
    "k8s_worker",
    "k8s_master",
    "storage",
    "backup",
    "vault_server",
    "puppetserver",
];

const SITE_CODES: &[&str] = &[
    "ams", "fra", "lon", "par", "dub", "sto", "waw", "mad", "mil", "zrh", "nyc", "iad", "sfo",
    "sea", "dal", "tor", "sao", "sin", "tyo", "syd",
];

const WORDS: &[&str] = &[
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
];

const TEAMS: &[&str] = &[
    "platform",
    "payments",
    "search",
    "identity",
    "data",
    "mobile",
    "infra",
    "security",
    "observability",
    "billing",
];

/// Keys every environment defines in common.yaml; interpolations look them up.
const ANCHOR_STR: &[&str] = &[
    "profile::base::domain",
    "profile::base::proxy_url",
    "profile::base::log_host",
    "profile::base::admin_email",
];
const ANCHOR_ARR: &[&str] = &["profile::base::dns_servers", "profile::base::ntp_servers"];

fn site_name(i: usize) -> String {
    let code = SITE_CODES[i % SITE_CODES.len()];
    format!("{code}{}", i / SITE_CODES.len() + 1)
}

fn role_name(i: usize) -> String {
    let base = ROLES[i % ROLES.len()];
    match i / ROLES.len() {
        0 => base.to_string(),
        n => format!("{base}_{n}"),
    }
}

fn module_name(i: usize) -> String {
    let base = MODULES[i % MODULES.len()];
    match i / MODULES.len() {
        0 => base.to_string(),
        n => format!("{base}{n}"),
    }
}

/// A class parameter key and the parameter it sets (which decides the value's shape).
#[derive(Clone, Debug)]
struct KeyDef {
    key: String,
    param: &'static str,
}

/// Class-parameter keys: each profile class takes a subset of the parameters; numbered
/// application profiles are added until there are `want` keys.
fn key_pool(seed: u64, want: usize) -> Vec<KeyDef> {
    let mut pool = Vec::with_capacity(want);
    let mut class_no = 0usize;
    while pool.len() < want {
        let class = match PROFILE_CLASSES.get(class_no) {
            Some(c) => format!("profile::{c}"),
            None => format!("profile::app::svc{}", class_no - PROFILE_CLASSES.len() + 1),
        };
        let mut r = Rng::derive(seed, 11, class_no as u64);
        let n = r.range(8, 24);
        let mut idx = r.distinct(PARAMS.len(), n);
        idx.sort_unstable();
        for i in idx {
            pool.push(KeyDef {
                key: format!("{class}::{}", PARAMS[i]),
                param: PARAMS[i],
            });
        }
        class_no += 1;
    }
    pool
}

// ---------------------------------------------------------------------------------------------
// Values per parameter

struct ValueGen<'a> {
    r: &'a mut Rng,
    stats: &'a mut Stats,
    /// Probability that a string value is an interpolation.
    interp: f64,
}

impl ValueGen<'_> {
    fn word(&mut self) -> String {
        self.r.pick(WORDS).to_string()
    }

    fn host(&mut self) -> String {
        format!(
            "{}{}.{}.example.com",
            self.word(),
            self.r.range(1, 9),
            site_name(self.r.below(12))
        )
    }

    fn path(&mut self, param: &str) -> String {
        let top = *self
            .r
            .pick(&["/etc", "/var/lib", "/opt", "/srv", "/var/log"]);
        format!("{top}/{}/{param}", self.word())
    }

    /// A plain string, or (at the interpolation rate) one with `%{...}` tokens.
    fn string(&mut self, plain: String) -> Val {
        self.stats.strings += 1;
        if !self.r.chance(self.interp) {
            return Val::Str(plain);
        }
        self.stats.interpolated_strings += 1;
        let s = match self.r.below(9) {
            0 => "%{facts.networking.fqdn}".to_string(),
            1 => "%{trusted.certname}".to_string(),
            2 => "/srv/%{facts.role}/data".to_string(),
            3 => "%{facts.site}.%{lookup('profile::base::domain')}".to_string(),
            4 => "%{lookup('profile::base::proxy_url')}".to_string(),
            5 => "%{hiera('profile::base::log_host')}".to_string(),
            6 => "ops+%{facts.networking.hostname}@%{lookup('profile::base::domain')}".to_string(),
            7 => "/var/log/%{facts.os.family}/%{facts.os.release.major}".to_string(),
            _ => format!("{}-%{{facts.site}}-%{{trusted.certname}}", self.word()),
        };
        Val::Quoted(s, if self.r.chance(0.7) { '"' } else { '\'' })
    }

    fn list_of(&mut self, n: usize, f: impl Fn(&mut Self) -> Val) -> Val {
        let items = (0..n).map(|_| f(self)).collect();
        let flow = self.r.chance(0.3);
        Val::Arr(items, flow)
    }

    /// A settings hash: a few entries, now and then one level of nesting.
    fn nested(&mut self, depth: usize) -> Val {
        let n = self.r.skewed(1, 6);
        let mut m = Vec::with_capacity(n);
        for (i, k) in self.r.distinct(WORDS.len(), n).into_iter().enumerate() {
            let key = format!("{}_{}", WORDS[k], i);
            let v = match self.r.below(10) {
                0..=2 => Val::Int(self.r.range(1, 10_000) as i64),
                3 => Val::Bool(self.r.chance(0.5)),
                4..=6 => {
                    let w = self.word();
                    self.string(w)
                }
                7 => {
                    let n = self.r.range(1, 3);
                    self.list_of(n, |g| Val::Str(g.word()))
                }
                _ if depth == 0 && self.r.chance(0.5) => self.nested(depth + 1),
                _ => Val::Int(self.r.range(1, 100) as i64),
            };
            m.push((key, v));
        }
        Val::Map(m)
    }

    /// A value shaped by the parameter's name, as modules' class parameters are.
    fn for_param(&mut self, param: &str) -> Val {
        match param {
            "ensure" => match self.r.below(5) {
                0 => Val::Str(format!(
                    "{}.{}.{}",
                    self.r.range(1, 9),
                    self.r.range(0, 30),
                    self.r.range(0, 99)
                )),
                _ => Val::Str(
                    self.r
                        .pick(&["present", "latest", "installed", "absent"])
                        .to_string(),
                ),
            },
            "enable" | "manage_service" | "manage_package" | "purge" | "backup_enabled" | "ssl" => {
                Val::Bool(self.r.chance(0.7))
            }
            "port" => Val::Int(self.r.range(1024, 65000) as i64),
            "timeout" => Val::Int(self.r.range(5, 600) as i64),
            "max_connections" => Val::Int(self.r.range(10, 5000) as i64),
            "workers" => Val::Int(self.r.range(1, 64) as i64),
            "retention_days" => Val::Int(self.r.range(1, 365) as i64),
            "weight" => Val::Float(self.r.range(1, 99) as f64 / 10.0),
            // quoted, as a mode must be (an unquoted 0644 is the octal defect)
            "mode" => Val::Quoted(
                format!("0{}", self.r.pick(&["644", "640", "600", "755", "750"])),
                '\'',
            ),
            "package_name" | "service_name" | "user" | "group" => {
                let w = self.word();
                Val::Str(w)
            }
            "listen_address" => Val::Str(
                self.r
                    .pick(&["0.0.0.0", "127.0.0.1", "::", "::1"])
                    .to_string(),
            ),
            "log_level" => Val::Str(
                self.r
                    .pick(&["debug", "info", "warning", "err"])
                    .to_string(),
            ),
            "version" => Val::Quoted(
                format!(
                    "{}.{}.{}",
                    self.r.range(1, 9),
                    self.r.range(0, 20),
                    self.r.range(0, 9)
                ),
                '\'',
            ),
            "config_dir" | "log_dir" | "ssl_cert" | "ssl_key" => {
                let p = self.path(param);
                self.string(p)
            }
            "domain" => {
                let s = format!("{}.example.com", self.word());
                self.string(s)
            }
            "admin_email" => {
                let s = format!("{}@example.com", self.word());
                self.string(s)
            }
            "url" | "repo_url" => {
                let s = format!("https://{}/{}/", self.host(), self.word());
                self.string(s)
            }
            "servers" | "allowed_hosts" => {
                if self.r.chance(0.04) {
                    // the whole list, taken over with its type kept
                    self.stats.strings += 1;
                    self.stats.interpolated_strings += 1;
                    let target = *self.r.pick(ANCHOR_ARR);
                    return Val::Quoted(format!("%{{alias('{target}')}}"), '"');
                }
                let n = self.r.range(1, 5);
                self.list_of(n, |g| {
                    let h = g.host();
                    g.string(h)
                })
            }
            "packages" | "extra_args" | "tags" => {
                let n = self.r.range(0, 6);
                self.list_of(n, |g| Val::Str(g.word()))
            }
            "users" => {
                let n = self.r.range(1, 4);
                let mut m = Vec::new();
                for k in self.r.distinct(WORDS.len(), n) {
                    let ngroups = self.r.range(0, 3);
                    let groups = self.list_of(ngroups, |g| Val::Str(g.word()));
                    m.push((
                        WORDS[k].to_string(),
                        Val::Map(vec![
                            ("uid".into(), Val::Int(self.r.range(1000, 9000) as i64)),
                            ("groups".into(), groups),
                            ("shell".into(), Val::Str("/bin/bash".into())),
                            ("ensure".into(), Val::Str("present".into())),
                        ]),
                    ));
                }
                Val::Map(m)
            }
            // options, config, settings, limits, env
            _ => self.nested(0),
        }
    }

    /// An eyaml value: base64 of a DER PKCS7 EnvelopedData laid out as hiera-eyaml's PKCS7
    /// encryptor writes it (one RSA-2048 recipient with an empty issuer and serial 1,
    /// AES-256-CBC content; real values start `MIIBiQYJKoZIhvcNAQcDoIIBejCCAXYCAQAxggEhMIIBHQ`),
    /// with random key, IV and ciphertext bytes. The structure is valid, so only the seeded
    /// defects stand out; nobody can decrypt it.
    fn enc(&mut self) -> Val {
        let rsa_encryption = der(
            0x06,
            &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01],
        );
        let recipient = der(
            0x30,
            &[
                der(0x02, &[0]),
                // issuerAndSerialNumber: an empty Name and serial 1
                der(0x30, &[der(0x30, &[]), der(0x02, &[1])].concat()),
                der(0x30, &[rsa_encryption, der(0x05, &[])].concat()),
                der(0x04, &random_bytes(self.r, 256)),
            ]
            .concat(),
        );
        let data = der(
            0x06,
            &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01],
        );
        let aes_256_cbc = der(
            0x06,
            &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2A],
        );
        let blocks = 1 + (self.r.next_u64() % 4) as usize;
        let content = der(
            0x30,
            &[
                data,
                der(
                    0x30,
                    &[aes_256_cbc, der(0x04, &random_bytes(self.r, 16))].concat(),
                ),
                der(0x80, &random_bytes(self.r, 16 * blocks)),
            ]
            .concat(),
        );
        let enveloped = der(
            0x30,
            &[der(0x02, &[0]), der(0x31, &recipient), content].concat(),
        );
        let top = der(
            0x30,
            &[
                der(
                    0x06,
                    &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x03],
                ),
                der(0xA0, &enveloped),
            ]
            .concat(),
        );
        let b64 = base64::engine::general_purpose::STANDARD.encode(top);
        Val::Enc(format!("ENC[PKCS7,{b64}]"), self.r.chance(0.3))
    }
}

fn random_bytes(r: &mut Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| r.next_u64() as u8).collect()
}

/// One DER element: tag, definite length, content.
fn der(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes: Vec<u8> = n
            .to_be_bytes()
            .into_iter()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

// ---------------------------------------------------------------------------------------------
// Fact templates

#[derive(Clone, Debug)]
struct FactTemplate {
    facts: serde_json::Map<String, serde_json::Value>,
    family: String,
    major: String,
}

fn os_of(facts: &serde_json::Map<String, serde_json::Value>) -> Option<(String, String)> {
    let os = facts.get("os")?;
    let family = os.get("family")?.as_str()?.to_string();
    let major = os.get("release")?.get("major")?.as_str()?.to_string();
    Some((family, major))
}

fn fact_templates(dir: &Path) -> Vec<FactTemplate> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let Ok(serde_json::Value::Object(facts)) = serde_json::from_str(&text) else {
            continue;
        };
        if let Some((family, major)) = os_of(&facts) {
            out.push(FactTemplate {
                facts,
                family,
                major,
            });
        }
    }
    if out.is_empty() {
        // Without facterdb: a minimal facter 4 shape for a few common systems.
        for (family, name, major, full) in [
            ("RedHat", "RedHat", "9", "9.4"),
            ("RedHat", "Rocky", "8", "8.10"),
            ("Debian", "Debian", "12", "12.5"),
            ("Debian", "Ubuntu", "22.04", "22.04"),
            ("Suse", "SLES", "15", "15.5"),
        ] {
            let facts = serde_json::json!({
                "facterversion": "4.5.0",
                "kernel": "Linux",
                "os": {
                    "architecture": "x86_64",
                    "family": family,
                    "hardware": "x86_64",
                    "name": name,
                    "release": { "full": full, "major": major },
                    "selinux": { "enabled": false }
                },
                "networking": {
                    "domain": "example.com",
                    "fqdn": "foo.example.com",
                    "hostname": "foo",
                    "ip": "10.0.0.10"
                },
                "processors": { "count": 2 },
                "memory": { "system": { "total_bytes": 4_294_967_296u64 } }
            });
            if let serde_json::Value::Object(facts) = facts {
                out.push(FactTemplate {
                    facts,
                    family: family.into(),
                    major: major.into(),
                });
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The generator

/// Seeded defects and where they are (1-based lines), for `DEFECTS.tsv`.
struct Defect {
    kind: &'static str,
    path: String,
    line: usize,
    note: String,
}

/// One node of the synthetic fleet.
struct NodeInfo {
    certname: String,
    role: usize,
    site: usize,
    template: usize,
}

struct Plan {
    roles: usize,
    sites: usize,
    teams: usize,
    modules: usize,
    nodes: usize,
    common_keys: usize,
    /// Defects of each kind.
    defects_each: usize,
}

fn plan(files: usize, os_files: usize, families: usize) -> Plan {
    let roles = (files * 3 / 100).max(8);
    let teams = (files / 100).clamp(3, TEAMS.len() * 10);
    let sites = (((files as f64).sqrt() / 4.0) as usize).max(3);
    let modules = (files / 60).max(5);
    // env hiera.yaml + common.yaml + secrets/common.eyaml
    let fixed = 3 + roles + teams + os_files + sites * families + modules * 4;
    // nodes: one data file each, plus an eyaml file for 1 in 25
    let nodes = (files.saturating_sub(fixed) * 25 / 26).max(10);
    Plan {
        roles,
        sites,
        teams,
        modules,
        nodes,
        common_keys: (files / 7).clamp(200, 2000),
        defects_each: (files / 750).max(1),
    }
}

struct Gen<'a> {
    cfg: &'a Config,
    out: &'a Path,
    stats: Stats,
    defects: Vec<Defect>,
}

impl Gen<'_> {
    fn write(&mut self, rel: &str, text: &str, counts_as_hiera: bool) -> io::Result<()> {
        let path = self.out.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text)?;
        if counts_as_hiera {
            self.stats.hiera_files += 1;
            self.stats.data_bytes += text.len() as u64;
        }
        Ok(())
    }

    fn defect(&mut self, kind: &'static str, path: &str, line: usize, note: impl Into<String>) {
        self.defects.push(Defect {
            kind,
            path: path.to_string(),
            line,
            note: note.into(),
        });
    }

    fn rng(&self, salt: u64, n: usize) -> Rng {
        Rng::derive(self.cfg.seed, salt, n as u64)
    }
}

fn node_info(seed: u64, j: usize, plan: &Plan, templates: usize) -> NodeInfo {
    let mut r = Rng::derive(seed, 3, j as u64);
    let role = r.below(plan.roles);
    let site = r.below(plan.sites);
    let short: String = role_name(role).chars().filter(|c| *c != '_').collect();
    NodeInfo {
        certname: format!("{short}{j:05}.{}.example.com", site_name(site)),
        role,
        site,
        template: j % templates,
    }
}

const ENV_HIERA_YAML: &str = r#"---
# Hiera 5 configuration of the synthetic control repo (generated by examples/gen_corpus).
version: 5
defaults:
  datadir: data
  data_hash: yaml_data
hierarchy:
  - name: "Per-node secrets (eyaml)"
    lookup_key: eyaml_lookup_key
    paths:
      - "secrets/nodes/%{trusted.certname}.eyaml"
      - "secrets/common.eyaml"
    options:
      pkcs7_private_key: /etc/puppetlabs/puppet/eyaml/private_key.pkcs7.pem
      pkcs7_public_key: /etc/puppetlabs/puppet/eyaml/public_key.pkcs7.pem
  - name: "Per-node data"
    path: "nodes/%{trusted.certname}.yaml"
  - name: "Per-node data (JSON, exported from the CMDB)"
    data_hash: json_data
    path: "nodes/%{trusted.certname}.json"
  - name: "Per-role data"
    path: "roles/%{facts.role}.yaml"
  - name: "Per-site, per-OS-family data"
    path: "sites/%{facts.site}/%{facts.os.family}.yaml"
  - name: "Per-OS release"
    path: "os/%{facts.os.family}/%{facts.os.release.major}.yaml"
  - name: "Team data"
    glob: "teams/*.yaml"
  - name: "Common data"
    path: "common.yaml"
"#;

const MODULE_HIERA_YAML: &str = r#"---
version: 5
defaults:
  datadir: data
  data_hash: yaml_data
hierarchy:
  - name: "OS family"
    path: "os/%{facts.os.family}.yaml"
  - name: "common"
    path: "common.yaml"
"#;

/// Writes the corpus into `out` (created; existing files with the same names are replaced).
pub fn generate(cfg: &Config, out: &Path) -> io::Result<Stats> {
    std::fs::create_dir_all(out)?;
    let templates = fact_templates(&cfg.facterdb);
    let os_pairs: BTreeSet<(String, String)> = templates
        .iter()
        .map(|t| (t.family.clone(), t.major.clone()))
        .collect();
    let families: BTreeSet<String> = templates.iter().map(|t| t.family.clone()).collect();
    let families: Vec<String> = families.into_iter().collect();
    let plan = plan(cfg.files, os_pairs.len(), families.len());
    let pool = key_pool(cfg.seed, plan.common_keys.max(600) + 200);
    let mut g = Gen {
        cfg,
        out,
        stats: Stats::default(),
        defects: Vec::new(),
    };
    g.stats.roles = plan.roles;
    g.stats.sites = plan.sites;
    g.stats.modules = plan.modules;
    g.stats.nodes = plan.nodes;

    g.write(
        "environment.conf",
        "# generated by examples/gen_corpus\nmodulepath = modules:$basemodulepath\n",
        false,
    )?;
    g.write("hiera.yaml", ENV_HIERA_YAML, true)?;

    // Defect placement, decided up front from its own stream.
    let mut dr = Rng::derive(cfg.seed, 99, 0);
    let n = plan.defects_each;
    let yaml_nodes: Vec<usize> = (0..plan.nodes).filter(|j| j % 20 != 7).collect();
    let dup_nodes: Vec<usize> = (0..n).map(|_| *dr.pick(&yaml_nodes)).collect();
    let date_nodes: Vec<usize> = (0..n).map(|_| *dr.pick(&yaml_nodes)).collect();
    let on_roles: Vec<usize> = (0..n).map(|_| dr.below(plan.roles)).collect();
    let octal_roles: Vec<usize> = (0..n).map(|_| dr.below(plan.roles)).collect();
    let alias_roles: Vec<usize> = (0..n).map(|_| dr.below(plan.roles)).collect();
    let missing_roles: Vec<usize> = (0..n).map(|_| dr.below(plan.roles)).collect();
    let ns_modules: Vec<usize> = (0..n).map(|_| dr.below(plan.modules)).collect();
    // A bad pattern fails every lookup that consults these lookup_options (Puppet compiles them
    // all), so it goes where it hurts only its module's keys, as it would in a real repo.
    let regex_modules: Vec<usize> = (0..n).map(|_| dr.below(plan.modules)).collect();

    write_common(&mut g, &pool, &plan)?;
    for i in 0..plan.roles {
        let seeded = |v: &[usize]| v.iter().filter(|x| **x == i).count();
        let d = RoleDefects {
            on: seeded(&on_roles),
            octal: seeded(&octal_roles),
            alias: seeded(&alias_roles),
            missing: seeded(&missing_roles),
        };
        write_role(&mut g, &pool, i, &d)?;
    }
    for s in 0..plan.sites {
        for f in &families {
            write_site(&mut g, &pool, s, f)?;
        }
    }
    for (k, (family, major)) in os_pairs.iter().enumerate() {
        write_os(&mut g, &pool, k, family, major)?;
    }
    for t in 0..plan.teams {
        write_team(&mut g, &pool, t)?;
    }
    write_secrets_common(&mut g, &pool)?;
    for j in 0..plan.nodes {
        let info = node_info(cfg.seed, j, &plan, templates.len());
        let dups = dup_nodes.iter().filter(|x| **x == j).count();
        let dates = date_nodes.iter().filter(|x| **x == j).count();
        write_node(&mut g, &pool, j, &info, dups, dates)?;
    }
    for m in 0..plan.modules {
        let d = ModuleDefects {
            outside: ns_modules.iter().filter(|x| **x == m).count(),
            bad_regex: regex_modules.iter().filter(|x| **x == m).count(),
        };
        write_module(&mut g, m, plan.modules, &families, &d)?;
    }
    write_facts(&mut g, &plan, &templates)?;
    write_lookup_keys(&mut g, &pool, &plan)?;
    write_defects(&mut g)?;
    Ok(g.stats)
}

fn header(lines: &mut Lines, what: &str) {
    lines.push("---");
    lines.push(format!("# {what}"));
}

fn write_common(g: &mut Gen, pool: &[KeyDef], plan: &Plan) -> io::Result<()> {
    let rel = "data/common.yaml";
    let mut r = g.rng(1, 0);
    let mut l = Lines::default();
    header(&mut l, "Defaults for every node. Keep sorted by class.");
    l.push("lookup_options:");
    for (k, v) in [
        ("classes", "    merge: unique"),
        ("profile::base::packages", "    merge: unique"),
        ("profile::firewall::options", "    merge: hash"),
        (
            "profile::users::users",
            "    merge:\n      strategy: deep\n      knockout_prefix: '--'\n      merge_hash_arrays: true",
        ),
        ("'^profile::.*::config$'", "    merge: hash"),
        (
            "'^profile::app::svc\\d+::(options|settings)$'",
            "    merge:\n      strategy: deep\n      sort_merged_arrays: true",
        ),
        ("'^profile::db::.*::users$'", "    merge: deep"),
    ] {
        l.push(format!("  {k}:"));
        for line in v.lines() {
            l.push(line);
        }
    }
    l.push("");
    l.push("classes:");
    for c in [
        "profile::base",
        "profile::ntp",
        "profile::ssh",
        "profile::users",
    ] {
        l.push(format!("  - {c}"));
    }
    l.push("profile::base::domain: example.com");
    l.push("profile::base::proxy_url: 'http://proxy.example.com:3128'");
    l.push("profile::base::log_host: \"logs.%{facts.site}.example.com\"");
    l.push("profile::base::admin_email: ops@example.com");
    l.push("profile::base::dns_servers:");
    l.push("  - '10.0.0.53'");
    l.push("  - '10.0.1.53'");
    l.push("profile::base::ntp_servers: ['0.pool.ntp.org', '1.pool.ntp.org']");
    let mut vg = ValueGen {
        r: &mut r,
        stats: &mut g.stats,
        interp: 0.10,
    };
    let mut last_class = String::new();
    let mut keys = 10;
    for kd in pool.iter().take(plan.common_keys) {
        if ANCHOR_STR.contains(&kd.key.as_str()) || ANCHOR_ARR.contains(&kd.key.as_str()) {
            continue;
        }
        let class = kd.key.rsplit_once("::").map(|(c, _)| c).unwrap_or("");
        if class != last_class {
            l.push("");
            l.push(format!("# {class}"));
            last_class = class.to_string();
        }
        let v = vg.for_param(kd.param);
        l.entry(0, &kd.key, &v);
        keys += 1;
    }
    l.push("");
    for i in 0..plan.defects_each {
        let a = format!("profile::loop{i}::a");
        let b = format!("profile::loop{i}::b");
        let line = l.push(format!("{a}: \"%{{lookup('{b}')}}\""));
        l.push(format!("{b}: \"prefix-%{{lookup('{a}')}}\""));
        keys += 2;
        g.defect(
            "interpolation-loop",
            rel,
            line,
            format!("{a} -> {b} -> {a}"),
        );
    }
    g.stats.top_level_keys += keys;
    g.write(rel, &l.text(), true)
}

#[derive(Default)]
struct RoleDefects {
    on: usize,
    octal: usize,
    alias: usize,
    missing: usize,
}

fn sample_entries(
    l: &mut Lines,
    vg: &mut ValueGen,
    pool: &[KeyDef],
    range: std::ops::Range<usize>,
    n: usize,
) -> usize {
    let mut idx = vg.r.distinct(range.len(), n);
    idx.sort_unstable();
    for i in &idx {
        let kd = &pool[range.start + i];
        let v = vg.for_param(kd.param);
        l.entry(0, &kd.key, &v);
    }
    idx.len()
}

fn write_role(g: &mut Gen, pool: &[KeyDef], i: usize, d: &RoleDefects) -> io::Result<()> {
    let name = role_name(i);
    let rel = format!("data/roles/{name}.yaml");
    let mut r = g.rng(2, i);
    let mut l = Lines::default();
    header(&mut l, &format!("Role {name}"));
    let mut keys = 1;
    l.push("classes:");
    for c in r.distinct(PROFILE_CLASSES.len(), 4) {
        l.push(format!("  - profile::{}", PROFILE_CLASSES[c]));
    }
    if r.chance(0.15) {
        l.push("lookup_options:");
        l.push(format!("  '^profile::{name}::.*$':"));
        l.push("    merge: deep");
        keys += 1;
    }
    let n = r.skewed(20, 150);
    let mut vg = ValueGen {
        r: &mut r,
        stats: &mut g.stats,
        interp: 0.10,
    };
    keys += sample_entries(&mut l, &mut vg, pool, 0..pool.len(), n);
    for k in 0..d.on {
        let line = l.push(format!("profile::legacy{k}::manage_repo: on"));
        g.defect(
            "yaml11-boolean",
            &rel,
            line,
            "unquoted `on` is true in YAML 1.1",
        );
    }
    for k in 0..d.octal {
        let line = l.push(format!("profile::legacy{k}::file_mode: 0644"));
        g.defect(
            "octal-number",
            &rel,
            line,
            "unquoted 0644 is the integer 420",
        );
    }
    for k in 0..d.alias {
        let line = l.push(format!(
            "profile::legacy{k}::fqdn_alias: \"www.%{{alias('profile::base::domain')}}\""
        ));
        g.defect(
            "alias-not-entire-string",
            &rel,
            line,
            "alias() must be the whole string",
        );
    }
    for k in 0..d.missing {
        let line = l.push(format!(
            "profile::legacy{k}::upstream: \"%{{lookup('profile::nowhere{k}::upstream')}}\""
        ));
        g.defect(
            "lookup-of-missing-key",
            &rel,
            line,
            format!("profile::nowhere{k}::upstream is defined nowhere"),
        );
    }
    g.stats.top_level_keys += keys + d.on + d.octal + d.alias + d.missing;
    g.write(&rel, &l.text(), true)
}

fn write_site(g: &mut Gen, pool: &[KeyDef], s: usize, family: &str) -> io::Result<()> {
    let site = site_name(s);
    let rel = format!("data/sites/{site}/{family}.yaml");
    let mut r = g.rng(4, s * 64 + family.len() * 7 + family.as_bytes()[0] as usize);
    let mut l = Lines::default();
    header(&mut l, &format!("Site {site}, {family} systems"));
    l.push("profile::base::dns_servers:");
    let o = r.range(1, 200);
    l.push(format!("  - '10.{o}.0.53'"));
    l.push(format!("  - '10.{o}.1.53'"));
    l.push(format!(
        "profile::base::proxy_url: 'http://proxy.{site}.example.com:3128'"
    ));
    let n = r.skewed(10, 60);
    let mut vg = ValueGen {
        r: &mut r,
        stats: &mut g.stats,
        interp: 0.10,
    };
    let keys = 2 + sample_entries(&mut l, &mut vg, pool, 0..pool.len().min(400), n);
    g.stats.top_level_keys += keys;
    g.write(&rel, &l.text(), true)
}

fn write_os(g: &mut Gen, pool: &[KeyDef], k: usize, family: &str, major: &str) -> io::Result<()> {
    let rel = format!("data/os/{family}/{major}.yaml");
    let mut r = g.rng(5, k);
    let mut l = Lines::default();
    header(&mut l, &format!("{family} {major}"));
    let n = r.skewed(10, 50);
    let mut vg = ValueGen {
        r: &mut r,
        stats: &mut g.stats,
        interp: 0.05,
    };
    g.stats.top_level_keys += sample_entries(&mut l, &mut vg, pool, 0..pool.len().min(400), n);
    g.write(&rel, &l.text(), true)
}

fn write_team(g: &mut Gen, pool: &[KeyDef], t: usize) -> io::Result<()> {
    let team = match t / TEAMS.len() {
        0 => TEAMS[t].to_string(),
        n => format!("{}{n}", TEAMS[t % TEAMS.len()]),
    };
    let rel = format!("data/teams/{team}.yaml");
    let mut r = g.rng(6, t);
    let mut l = Lines::default();
    header(&mut l, &format!("Owned by team {team}"));
    let n = r.skewed(20, 80);
    let mut vg = ValueGen {
        r: &mut r,
        stats: &mut g.stats,
        interp: 0.10,
    };
    g.stats.top_level_keys += sample_entries(&mut l, &mut vg, pool, 0..pool.len(), n);
    g.write(&rel, &l.text(), true)
}

fn secret_key(pool: &[KeyDef], r: &mut Rng) -> String {
    let kd = r.pick(pool);
    let class = kd
        .key
        .rsplit_once("::")
        .map(|(c, _)| c)
        .unwrap_or("profile");
    let what = *r.pick(&["password", "api_token", "secret_key", "tls_key", "bind_pw"]);
    format!("{class}::{what}")
}

fn write_secrets_common(g: &mut Gen, pool: &[KeyDef]) -> io::Result<()> {
    let rel = "data/secrets/common.eyaml";
    let mut r = g.rng(7, 0);
    let mut l = Lines::default();
    header(&mut l, "Secrets shared by every node (hiera-eyaml, PKCS7)");
    let n = r.skewed(20, 100);
    let mut seen = HashSet::new();
    let mut vg = ValueGen {
        r: &mut r,
        stats: &mut g.stats,
        interp: 0.0,
    };
    for _ in 0..n {
        let k = secret_key(pool, vg.r);
        if seen.insert(k.clone()) {
            let v = vg.enc();
            l.entry(0, &k, &v);
        }
    }
    g.stats.top_level_keys += seen.len();
    g.write(rel, &l.text(), true)
}

fn write_node(
    g: &mut Gen,
    pool: &[KeyDef],
    j: usize,
    info: &NodeInfo,
    dups: usize,
    dates: usize,
) -> io::Result<()> {
    let mut r = g.rng(8, j);
    let json = j % 20 == 7;
    let mut entries: Vec<(String, Val)> = Vec::new();
    // per-node network configuration: nested hashes, as CMDB-fed node files have
    let mut ifaces = Vec::new();
    for i in 0..r.range(1, 3) {
        ifaces.push((
            format!("eth{i}"),
            Val::Map(vec![
                (
                    "ipaddress".into(),
                    Val::Str(format!(
                        "10.{}.{}.{}",
                        info.site,
                        j / 250 % 250,
                        j % 250 + 2
                    )),
                ),
                ("netmask".into(), Val::Str("255.255.255.0".into())),
                ("mtu".into(), Val::Int(*r.pick(&[1500, 9000]))),
                ("onboot".into(), Val::Bool(true)),
            ]),
        ));
    }
    entries.push(("profile::network::interfaces".into(), Val::Map(ifaces)));
    let n = r.skewed(5, 30);
    let hot = pool.len().min(300);
    let mut idx = r.distinct(hot, n.saturating_sub(1));
    idx.sort_unstable();
    let mut vg = ValueGen {
        r: &mut r,
        stats: &mut g.stats,
        interp: 0.12,
    };
    for i in idx {
        let kd = &pool[i];
        if kd.key == "profile::network::interfaces" {
            continue;
        }
        entries.push((kd.key.clone(), vg.for_param(kd.param)));
    }
    g.stats.top_level_keys += entries.len();
    if json {
        let rel = format!("data/nodes/{}.json", info.certname);
        g.stats.node_files_json += 1;
        let obj: serde_json::Map<String, serde_json::Value> = entries
            .iter()
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect();
        let text = serde_json::to_string_pretty(&serde_json::Value::Object(obj))
            .map_err(io::Error::other)?;
        g.write(&rel, &(text + "\n"), true)?;
    } else {
        let rel = format!("data/nodes/{}.yaml", info.certname);
        let mut l = Lines::default();
        header(
            &mut l,
            &format!("{} (role {})", info.certname, role_name(info.role)),
        );
        for (k, v) in &entries {
            l.entry(0, k, v);
        }
        for d in 0..dups {
            let (k, _) = &entries[d % entries.len()];
            let line = l.entry(0, k, &Val::Str("overridden".into()));
            g.defect(
                "duplicate-key",
                &rel,
                line,
                format!("`{k}` is defined twice; Psych keeps the last"),
            );
        }
        for d in 0..dates {
            let line = l.push(format!("profile::base::decommission_date{d}: 2031-03-31"));
            g.defect(
                "unquoted-date",
                &rel,
                line,
                "Psych reads a Date, which Puppet's safe_load rejects",
            );
        }
        g.write(&rel, &l.text(), true)?;
    }
    if j % 25 == 3 {
        let rel = format!("data/secrets/nodes/{}.eyaml", info.certname);
        let mut r = g.rng(9, j);
        let mut l = Lines::default();
        header(&mut l, &format!("Secrets of {}", info.certname));
        let mut seen = HashSet::new();
        let mut vg = ValueGen {
            r: &mut r,
            stats: &mut g.stats,
            interp: 0.0,
        };
        for _ in 0..vg.r.range(2, 8) {
            let k = secret_key(pool, vg.r);
            if seen.insert(k.clone()) {
                let v = vg.enc();
                l.entry(0, &k, &v);
            }
        }
        g.stats.top_level_keys += seen.len();
        g.write(&rel, &l.text(), true)?;
    }
    Ok(())
}

struct ModuleDefects {
    outside: usize,
    bad_regex: usize,
}

fn write_module(
    g: &mut Gen,
    m: usize,
    modules: usize,
    families: &[String],
    d: &ModuleDefects,
) -> io::Result<()> {
    let name = module_name(m);
    let base = format!("modules/{name}");
    let mut r = g.rng(10, m);
    let metadata = serde_json::json!({
        "name": format!("acme-{name}"),
        "version": format!("{}.{}.{}", r.range(0, 9), r.range(0, 20), r.range(0, 9)),
        "author": "acme",
        "summary": format!("Manages {name}"),
        "license": "Apache-2.0",
        "source": format!("https://git.example.com/puppet/{name}"),
        "dependencies": [],
        "operatingsystem_support": [],
    });
    let text = serde_json::to_string_pretty(&metadata).map_err(io::Error::other)? + "\n";
    g.write(&format!("{base}/metadata.json"), &text, false)?;
    g.write(&format!("{base}/hiera.yaml"), MODULE_HIERA_YAML, true)?;

    let params: Vec<&str> = {
        let k = r.range(10, PARAMS.len());
        let mut idx = r.distinct(PARAMS.len(), k);
        idx.sort_unstable();
        idx.into_iter().map(|i| PARAMS[i]).collect()
    };
    let rel = format!("{base}/data/common.yaml");
    let mut l = Lines::default();
    header(&mut l, &format!("Defaults of module {name}"));
    l.push("lookup_options:");
    l.push(format!("  {name}::packages:"));
    l.push("    merge: unique");
    l.push(format!("  '^{name}::(config|options|settings)$':"));
    l.push("    merge:");
    l.push("      strategy: deep");
    l.push("      merge_hash_arrays: true");
    for i in 0..d.bad_regex {
        let line = l.push(format!("  '^{name}::(broken{i}::.*$':"));
        l.push("    merge: deep");
        g.defect(
            "bad-regex",
            &rel,
            line,
            "lookup_options pattern with an unclosed group",
        );
    }
    let mut vg = ValueGen {
        r: &mut r,
        stats: &mut g.stats,
        interp: 0.05,
    };
    for p in &params {
        let v = vg.for_param(p);
        l.entry(0, &format!("{name}::{p}"), &v);
    }
    for k in 0..d.outside {
        let other = module_name((m + 1 + k) % modules.max(2));
        let line = l.push(format!("{other}::outside_namespace{k}: true"));
        g.defect(
            "key-outside-module-namespace",
            &rel,
            line,
            format!("module {name} sets a key of {other}"),
        );
    }
    g.stats.top_level_keys += params.len() + 1 + d.outside;
    g.write(&rel, &l.text(), true)?;

    for (fi, family) in families
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 == m % 3)
        .take(2)
    {
        let rel = format!("{base}/data/os/{family}.yaml");
        let mut r = g.rng(12, m * 16 + fi);
        let mut l = Lines::default();
        header(&mut l, &format!("{name} on {family}"));
        let mut vg = ValueGen {
            r: &mut r,
            stats: &mut g.stats,
            interp: 0.0,
        };
        let n = vg.r.range(3, params.len().min(20));
        let mut idx = vg.r.distinct(params.len(), n);
        idx.sort_unstable();
        for i in &idx {
            let v = vg.for_param(params[*i]);
            l.entry(0, &format!("{name}::{}", params[*i]), &v);
        }
        g.stats.top_level_keys += idx.len();
        g.write(&rel, &l.text(), true)?;
    }
    Ok(())
}

fn write_facts(g: &mut Gen, plan: &Plan, templates: &[FactTemplate]) -> io::Result<()> {
    use serde_json::{json, Value as J};
    let dir = g.out.join("facts");
    std::fs::create_dir_all(&dir)?;
    for i in 0..g.cfg.facts {
        // 9 in 10 fact sets are nodes that have a node file; the rest are nodes without one
        let matched = i < plan.nodes && i % 10 != 9;
        let j = if matched { i } else { plan.nodes + i };
        let mut info = node_info(g.cfg.seed, j, plan, templates.len());
        if !matched {
            info.certname = format!("new{i:05}.{}.example.com", site_name(info.site));
        } else {
            g.stats.fact_sets_matching_a_node += 1;
        }
        let t = &templates[info.template];
        let mut facts = t.facts.clone();
        let (hostname, domain) = info
            .certname
            .split_once('.')
            .map(|(h, d)| (h.to_string(), d.to_string()))
            .unwrap_or_else(|| (info.certname.clone(), String::new()));
        if let Some(J::Object(net)) = facts.get_mut("networking") {
            net.insert("fqdn".into(), J::String(info.certname.clone()));
            net.insert("hostname".into(), J::String(hostname.clone()));
            net.insert("domain".into(), J::String(domain.clone()));
            net.insert(
                "ip".into(),
                J::String(format!(
                    "10.{}.{}.{}",
                    info.site,
                    j / 250 % 250,
                    j % 250 + 2
                )),
            );
        }
        let role = role_name(info.role);
        let site = site_name(info.site);
        facts.insert("role".into(), J::String(role.clone()));
        facts.insert("site".into(), J::String(site.clone()));
        facts.insert(
            "trusted".into(),
            json!({
                "certname": info.certname,
                "authenticated": "remote",
                "domain": domain,
                "hostname": hostname,
                "extensions": { "pp_role": role, "pp_datacenter": site },
                "external": {}
            }),
        );
        let text =
            serde_json::to_string_pretty(&J::Object(facts)).map_err(io::Error::other)? + "\n";
        std::fs::write(dir.join(format!("{}.json", info.certname)), text)?;
        g.stats.fact_sets += 1;
    }
    Ok(())
}

fn write_lookup_keys(g: &mut Gen, pool: &[KeyDef], plan: &Plan) -> io::Result<()> {
    let mut text = String::new();
    for k in ANCHOR_STR.iter().chain(ANCHOR_ARR) {
        let _ = writeln!(text, "{k}");
    }
    for kd in pool.iter().take(plan.common_keys.min(1000)) {
        if !ANCHOR_STR.contains(&kd.key.as_str()) && !ANCHOR_ARR.contains(&kd.key.as_str()) {
            let _ = writeln!(text, "{}", kd.key);
        }
    }
    for m in 0..plan.modules.min(50) {
        let _ = writeln!(text, "{}::ensure", module_name(m));
    }
    let _ = writeln!(text, "classes");
    g.write("lookup-keys.txt", &text, false)
}

fn write_defects(g: &mut Gen) -> io::Result<()> {
    let mut text = String::from("# kind\tpath\tline\tnote\n");
    g.defects
        .sort_by(|a, b| (&a.path, a.line, a.kind).cmp(&(&b.path, b.line, b.kind)));
    for d in &g.defects {
        let _ = writeln!(text, "{}\t{}\t{}\t{}", d.kind, d.path, d.line, d.note);
    }
    g.stats.defects = g.defects.len();
    g.write("DEFECTS.tsv", &text, false)
}

/// Returns `base/<cache name>`, generating it first unless a complete copy is there.
pub fn ensure_cached(cfg: &Config, base: &Path) -> io::Result<PathBuf> {
    let dir = base.join(cfg.cache_name());
    if dir.join(".complete").is_file() {
        return Ok(dir);
    }
    let tmp = base.join(format!("{}.tmp-{}", cfg.cache_name(), std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp)?;
    }
    let stats = generate(cfg, &tmp)?;
    std::fs::write(tmp.join(".complete"), format!("{stats:#?}\n"))?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    match std::fs::rename(&tmp, &dir) {
        Ok(()) => Ok(dir),
        // another process finished first
        Err(_) if dir.join(".complete").is_file() => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(dir)
        }
        Err(e) => Err(e),
    }
}
