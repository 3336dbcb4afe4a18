//! H301 `legacy-fact`: legacy facts (`%{::osfamily}`), which Puppet 8 no longer sets, and
//! facts read as top-scope or unqualified variables (`%{::role}`, `%{role}`).

use std::collections::BTreeSet;

use crate::diag::Diagnostic;
use crate::interp::{split_key, Segment, Token, TokenKind};
use crate::project::{LoadedFile, Project};
use crate::rules::interp_sites::{config_sites, undefined_effect, Site};
use crate::rules::{Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H301",
    name: "legacy-fact",
    category: Suspicious,
    summary: "a legacy fact (`%{::osfamily}`), gone in Puppet 8, or a fact read as a top-scope variable",
});

pub struct LegacyFact;

/// Legacy facts with a fixed name and their structured replacement: Facter 4.3's `legacy`
/// fact group (`facter/config.rb`) and the `ALIASES` of the structured facts that resolve them
/// (`facter/facts/<os>/**.rb`, e.g. `os/family.rb`: `FACT_NAME = 'os.family'`,
/// `ALIASES = 'osfamily'`).
const LEGACY: &[(&str, &str)] = &[
    ("architecture", "os.architecture"),
    ("augeasversion", "augeas.version"),
    ("bios_release_date", "dmi.bios.release_date"),
    ("bios_vendor", "dmi.bios.vendor"),
    ("bios_version", "dmi.bios.version"),
    ("blockdevices", "disks"),
    ("boardassettag", "dmi.board.asset_tag"),
    ("boardmanufacturer", "dmi.board.manufacturer"),
    ("boardproductname", "dmi.board.product"),
    ("boardserialnumber", "dmi.board.serial_number"),
    ("chassisassettag", "dmi.chassis.asset_tag"),
    ("chassistype", "dmi.chassis.type"),
    ("dhcp_servers", "networking.dhcp"),
    ("domain", "networking.domain"),
    ("fqdn", "networking.fqdn"),
    ("gid", "identity.group"),
    ("hardwareisa", "processors.isa"),
    ("hardwaremodel", "os.hardware"),
    ("hostname", "networking.hostname"),
    ("id", "identity.user"),
    ("interfaces", "networking.interfaces"),
    ("ipaddress", "networking.ip"),
    ("ipaddress6", "networking.ip6"),
    ("lsbdistcodename", "os.distro.codename"),
    ("lsbdistdescription", "os.distro.description"),
    ("lsbdistid", "os.distro.id"),
    ("lsbdistrelease", "os.distro.release.full"),
    ("lsbmajdistrelease", "os.distro.release.major"),
    ("lsbminordistrelease", "os.distro.release.minor"),
    ("lsbrelease", "os.distro.specification"),
    ("macaddress", "networking.mac"),
    ("macosx_buildversion", "os.macosx.build"),
    ("macosx_productname", "os.macosx.product"),
    ("macosx_productversion", "os.macosx.version.full"),
    ("macosx_productversion_major", "os.macosx.version.major"),
    ("macosx_productversion_minor", "os.macosx.version.minor"),
    ("macosx_productversion_patch", "os.macosx.version.patch"),
    ("manufacturer", "dmi.manufacturer"),
    ("memoryfree", "memory.system.available"),
    ("memoryfree_mb", "memory.system.available_bytes"),
    ("memorysize", "memory.system.total"),
    ("memorysize_mb", "memory.system.total_bytes"),
    ("netmask", "networking.netmask"),
    ("netmask6", "networking.netmask6"),
    ("network", "networking.network"),
    ("network6", "networking.network6"),
    ("operatingsystem", "os.name"),
    ("operatingsystemmajrelease", "os.release.major"),
    ("operatingsystemrelease", "os.release.full"),
    ("osfamily", "os.family"),
    ("physicalprocessorcount", "processors.physicalcount"),
    ("processorcount", "processors.count"),
    ("productname", "dmi.product.name"),
    ("rubyplatform", "ruby.platform"),
    ("rubysitedir", "ruby.sitedir"),
    ("rubyversion", "ruby.version"),
    ("scope6", "networking.scope6"),
    ("selinux", "os.selinux.enabled"),
    ("selinux_config_mode", "os.selinux.config_mode"),
    ("selinux_config_policy", "os.selinux.config_policy"),
    ("selinux_current_mode", "os.selinux.current_mode"),
    ("selinux_enforced", "os.selinux.enforced"),
    ("selinux_policyversion", "os.selinux.policy_version"),
    ("serialnumber", "dmi.product.serial_number"),
    ("sp_boot_mode", "system_profiler.boot_mode"),
    ("sp_boot_rom_version", "system_profiler.boot_rom_version"),
    ("sp_boot_volume", "system_profiler.boot_volume"),
    ("sp_cpu_type", "system_profiler.processor_name"),
    (
        "sp_current_processor_speed",
        "system_profiler.processor_speed",
    ),
    ("sp_kernel_version", "system_profiler.kernel_version"),
    ("sp_l2_cache_core", "system_profiler.l2_cache_per_core"),
    ("sp_l3_cache", "system_profiler.l3_cache"),
    ("sp_local_host_name", "system_profiler.computer_name"),
    ("sp_machine_model", "system_profiler.model_identifier"),
    ("sp_machine_name", "system_profiler.model_name"),
    ("sp_number_processors", "system_profiler.cores"),
    ("sp_os_version", "system_profiler.system_version"),
    ("sp_packages", "system_profiler.processors"),
    ("sp_physical_memory", "system_profiler.memory"),
    ("sp_platform_uuid", "system_profiler.hardware_uuid"),
    ("sp_secure_vm", "system_profiler.secure_virtual_memory"),
    ("sp_serial_number", "system_profiler.serial_number"),
    ("sp_smc_version_system", "system_profiler.smc_version"),
    ("sp_uptime", "system_profiler.uptime"),
    ("sp_user_name", "system_profiler.username"),
    ("swapencrypted", "memory.swap.encrypted"),
    ("swapfree", "memory.swap.available"),
    ("swapfree_mb", "memory.swap.available_bytes"),
    ("swapsize", "memory.swap.total"),
    ("swapsize_mb", "memory.swap.total_bytes"),
    ("system32", "os.windows.system32"),
    ("uptime", "system_uptime.uptime"),
    ("uptime_days", "system_uptime.days"),
    ("uptime_hours", "system_uptime.hours"),
    ("uptime_seconds", "system_uptime.seconds"),
    ("uuid", "dmi.product.uuid"),
    ("windows_display_version", "os.windows.display_version"),
    ("windows_edition_id", "os.windows.edition_id"),
    ("windows_installation_type", "os.windows.installation_type"),
    ("windows_product_name", "os.windows.product_name"),
    ("windows_release_id", "os.windows.release_id"),
    ("xendomains", "xen.domains"),
    ("zonename", "solaris_zones.current"),
    ("zones", "solaris_zones.zones"),
];

/// Per-interface legacy facts (`ipaddress_eth0`) and their `networking.interfaces.<name>` key.
const PER_INTERFACE: &[(&str, &str)] = &[
    ("ipaddress6_", "ip6"),
    ("ipaddress_", "ip"),
    ("macaddress_", "mac"),
    ("mtu_", "mtu"),
    ("netmask6_", "netmask6"),
    ("netmask_", "netmask"),
    ("network6_", "network6"),
    ("network_", "network"),
    ("scope6_", "scope6"),
];

/// The structured fact that replaces a legacy fact, as a dotted path under `facts`; `None` when
/// `name` is not a legacy fact. The patterns are Facter's (`blockdevice_*_size`,
/// `processor[0-9]+`, `ssh*key`, `sshfp_*`, `zone_*_*`, `ldom_*`).
pub fn structured(name: &str) -> Option<String> {
    if let Ok(i) = LEGACY.binary_search_by(|(k, _)| (*k).cmp(name)) {
        return Some(LEGACY[i].1.to_string());
    }
    for (prefix, leaf) in PER_INTERFACE {
        if let Some(iface) = name.strip_prefix(prefix).filter(|s| !s.is_empty()) {
            return Some(format!("networking.interfaces.{}.{leaf}", segment(iface)));
        }
    }
    if let Some(rest) = name.strip_prefix("blockdevice_") {
        for (suffix, leaf) in [
            ("_model", "model"),
            ("_size", "size_bytes"),
            ("_vendor", "vendor"),
        ] {
            if let Some(dev) = rest.strip_suffix(suffix).filter(|s| !s.is_empty()) {
                return Some(format!("disks.{}.{leaf}", segment(dev)));
            }
        }
    }
    if let Some(n) = name.strip_prefix("processor") {
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            return Some(format!("processors.models.{n}"));
        }
    }
    if let Some(kind) = name
        .strip_prefix("ssh")
        .and_then(|r| r.strip_suffix("key"))
        .filter(|k| matches!(*k, "dsa" | "rsa" | "ecdsa" | "ed25519"))
    {
        return Some(format!("ssh.{kind}.key"));
    }
    if let Some(kind) = name
        .strip_prefix("sshfp_")
        .filter(|k| matches!(*k, "dsa" | "rsa" | "ecdsa" | "ed25519"))
    {
        return Some(format!("ssh.{kind}.fingerprints"));
    }
    if let Some(rest) = name.strip_prefix("zone_") {
        for leaf in ["brand", "id", "iptype", "name", "path", "status", "uuid"] {
            if let Some(zone) = rest
                .strip_suffix(leaf)
                .and_then(|z| z.strip_suffix('_'))
                .filter(|z| !z.is_empty())
            {
                return Some(format!("solaris_zones.zones.{}.{leaf}", segment(zone)));
            }
        }
    }
    if let Some(rest) = name.strip_prefix("ldom_").filter(|r| !r.is_empty()) {
        return Some(format!("ldom.{rest}"));
    }
    None
}

/// A dotted-key segment: quoted when it holds a dot (an interface named `eth0.100`).
fn segment(s: &str) -> String {
    if s.contains('.') {
        format!("'{s}'")
    } else {
        s.to_string()
    }
}

/// Top-scope variables Puppet itself sets (not facts), and the hashes facts are read through.
fn is_puppet_variable(name: &str) -> bool {
    matches!(
        name,
        "facts"
            | "trusted"
            | "server_facts"
            | "environment"
            | "module_name"
            | "caller_module_name"
            | "clientcert"
            | "clientversion"
            | "clientnoop"
            | "agent_specified_environment"
            | "servername"
            | "serverip"
            | "serverversion"
    ) || name.bytes().all(|b| b.is_ascii_digit())
}

/// How a token reads a variable.
#[derive(Debug, PartialEq, Eq)]
enum Read {
    /// `facts.<name>...` or `::facts.<name>...`.
    Fact { name: String, rest: Vec<String> },
    /// `::<name>...`.
    TopScope { name: String, rest: Vec<String> },
    /// `<name>...` (dynamic scope).
    Unqualified { name: String, rest: Vec<String> },
}

fn read_of(expr: &str) -> Option<Read> {
    let segs = split_key(expr).ok()?;
    let mut it = segs.into_iter();
    let root = match it.next()? {
        Segment::Str(s) => s,
        Segment::Int(_) => return None,
    };
    let rest: Vec<String> = it.map(|s| s.to_string()).collect();
    let (top, bare) = match root.strip_prefix("::") {
        Some(b) => (true, b.to_string()),
        None => (false, root),
    };
    if bare.is_empty() || bare.contains("::") {
        // A class variable (`apache::port`): not a fact.
        return None;
    }
    if bare == "facts" {
        let mut rest = rest.into_iter();
        let name = rest.next()?;
        return Some(Read::Fact {
            name,
            rest: rest.collect(),
        });
    }
    Some(if top {
        Read::TopScope { name: bare, rest }
    } else {
        Read::Unqualified { name: bare, rest }
    })
}

/// `facts.a.b` written as a dotted expression.
fn facts_path(path: &str, rest: &[String]) -> String {
    let mut s = format!("facts.{path}");
    for r in rest {
        s.push('.');
        s.push_str(&segment(r));
    }
    s
}

fn check_token(
    file: &LoadedFile,
    site: &Site,
    t: &Token,
    expr: &str,
    facts: Option<&BTreeSet<String>>,
    sink: &mut Sink,
) {
    let Some(read) = read_of(expr) else {
        return;
    };
    let span = site.span_of(&file.source, t.range.clone());
    let text = &site.value[t.range.clone()];
    let (name, rest) = match &read {
        Read::Fact { name, rest }
        | Read::TopScope { name, rest }
        | Read::Unqualified { name, rest } => (name.as_str(), rest.as_slice()),
    };
    if matches!(read, Read::Unqualified { .. }) && site.local_var.as_deref() == Some(name) {
        // The variable `mapped_paths` binds for its template.
        return;
    }
    if let Some(path) = structured(name) {
        let replacement = facts_path(&path, rest);
        let (how, effect) = match read {
            Read::Fact { .. } => (
                "",
                format!("`facts.{name}` is then missing and Puppet interpolates an empty string, silently"),
            ),
            Read::TopScope { .. } => (
                " as a top-scope variable",
                format!("the variable is then undefined: {}", undefined_effect(&format!("::{name}"), site.place())),
            ),
            Read::Unqualified { .. } => (
                " as an unqualified variable",
                format!("the variable is then undefined: {}", undefined_effect(name, site.place())),
            ),
        };
        let mut d = Diagnostic::new(
            &META,
            &file.source,
            span,
            format!("`{text}` reads the legacy fact `{name}`{how}, which Puppet 8 does not set"),
        )
        .note("Puppet 8 agents no longer send legacy facts (`include_legacy_facts` is false by default; Puppet 7 still sends them)");
        // What an undefined `mapped_paths[0]` does is not recorded: no claim there.
        if site.role != Some(crate::config::StringRole::MappedPathsScope) {
            d = d.note(effect);
        }
        let help = if site.role == Some(crate::config::StringRole::MappedPathsScope) {
            format!("help: use the structured fact: `{replacement}`")
        } else {
            format!("help: use the structured fact: `%{{{replacement}}}`")
        };
        sink.report(d.note(help));
        return;
    }
    if matches!(read, Read::Fact { .. }) || is_puppet_variable(name) {
        return;
    }
    // Not a variable name (`lookup(a)`, `%{x`): `interpolation-syntax-error` (H201) says why.
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return;
    }
    // A name no fact set has is not a fact: leave it to `undefined-variable` (H302).
    let is_fact = facts.map(|f| f.contains(name));
    if is_fact == Some(false) {
        return;
    }
    let replacement = facts_path(name, rest);
    let d = match read {
        Read::TopScope { .. } => Diagnostic::new(
            &META,
            &file.source,
            span,
            format!("`{text}` reads `{name}` as a top-scope variable, not as a fact"),
        )
        .note(match is_fact {
            Some(_) => format!("`{name}` is a fact of the fact sets: `%{{facts.{name}}}` reads it from `$facts`, which only facts set"),
            None => format!("if `{name}` is a fact, `facts.{name}` says so; a top-scope variable of that name (an ENC parameter, `site.pp`) is read the same way"),
        })
        .note(format!("help: write `%{{{replacement}}}`")),
        _ => {
            let top = {
                let mut s = format!("::{name}");
                for r in rest {
                    s.push('.');
                    s.push_str(&segment(r));
                }
                s
            };
            Diagnostic::new(
                &META,
                &file.source,
                span,
                format!("`{text}` reads `{name}` as an unqualified variable, resolved in the calling scope"),
            )
            .note(format!("a local or class variable named `${name}` in the class whose lookup reaches this string shadows the fact (reference §5.6)"))
            .note(format!("help: write `%{{{replacement}}}` for the fact, or `%{{{top}}}` for a top-scope variable"))
        }
    };
    sink.report(d);
}

fn check_site(file: &LoadedFile, site: &Site, facts: Option<&BTreeSet<String>>, sink: &mut Sink) {
    if site.role == Some(crate::config::StringRole::MappedPathsScope) {
        // `mapped_paths[0]` is a variable expression, not a `%{}` string.
        let t = Token {
            range: 0..site.value.len(),
            expr_range: 0..site.value.len(),
            expr: site.value.trim().to_string(),
            kind: TokenKind::Variable,
        };
        check_token(file, site, &t, &t.expr, facts, sink);
        return;
    }
    for t in site.tokens() {
        let expr = match t.scope_key() {
            Some(e) => e.to_string(),
            None => continue,
        };
        check_token(file, site, t, &expr, facts, sink);
    }
}

impl Rule for LegacyFact {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_interpolations(&self) -> bool {
        true
    }

    fn check_data_file<'a>(&self, project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        // The fact names of every fact set, when there are any: a name that no fact set has is
        // a top-scope variable from somewhere else (an ENC parameter, `site.pp`), not a fact.
        let facts = project.fact_names();
        for site in sink.data_sites(file).iter() {
            if !site.copied {
                check_site(file, site, facts, sink);
            }
        }
    }

    fn check_hiera_config(&self, project: &Project, file: &LoadedFile, sink: &mut Sink) {
        let facts = project.fact_names();
        for site in config_sites(file) {
            check_site(file, &site, facts, sink);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_for_binary_search() {
        assert!(LEGACY.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn mapping() {
        assert_eq!(structured("osfamily").as_deref(), Some("os.family"));
        assert_eq!(structured("operatingsystem").as_deref(), Some("os.name"));
        assert_eq!(
            structured("operatingsystemmajrelease").as_deref(),
            Some("os.release.major")
        );
        assert_eq!(structured("fqdn").as_deref(), Some("networking.fqdn"));
        assert_eq!(
            structured("memorysize").as_deref(),
            Some("memory.system.total")
        );
        assert_eq!(
            structured("ipaddress_eth0").as_deref(),
            Some("networking.interfaces.eth0.ip")
        );
        assert_eq!(
            structured("ipaddress6_eth0").as_deref(),
            Some("networking.interfaces.eth0.ip6")
        );
        assert_eq!(
            structured("macaddress_eth0.100").as_deref(),
            Some("networking.interfaces.'eth0.100'.mac")
        );
        assert_eq!(
            structured("blockdevice_sda_size").as_deref(),
            Some("disks.sda.size_bytes")
        );
        assert_eq!(
            structured("processor0").as_deref(),
            Some("processors.models.0")
        );
        assert_eq!(structured("sshrsakey").as_deref(), Some("ssh.rsa.key"));
        assert_eq!(
            structured("sshfp_ed25519").as_deref(),
            Some("ssh.ed25519.fingerprints")
        );
        assert_eq!(
            structured("zone_global_status").as_deref(),
            Some("solaris_zones.zones.global.status")
        );
        // Facter 4 core facts, not legacy ones.
        for core in [
            "kernel",
            "kernelrelease",
            "kernelversion",
            "kernelmajversion",
            "is_virtual",
            "virtual",
            "timezone",
            "role",
            "processors",
            "ipaddress_",
        ] {
            assert_eq!(structured(core), None, "{core}");
        }
    }

    #[test]
    fn reads() {
        assert_eq!(
            read_of("::osfamily"),
            Some(Read::TopScope {
                name: "osfamily".into(),
                rest: vec![]
            })
        );
        assert_eq!(
            read_of("::facts.os.family"),
            Some(Read::Fact {
                name: "os".into(),
                rest: vec!["family".into()]
            })
        );
        assert_eq!(
            read_of("facts . role"),
            Some(Read::Fact {
                name: "role".into(),
                rest: vec![]
            })
        );
        assert_eq!(read_of("apache::port"), None);
        assert_eq!(read_of("a..b"), None);
    }
}
