from base import case, L, each_merge, H3, H1, MOD_H

case('locations/globs', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Star"
    glob: "star/*.yaml"
  - name: "Recursive"
    glob: "rec/**/*.yaml"
  - name: "Braces"
    glob: "br/{%{facts.role},%{facts.site}}.yaml"
  - name: "Globs list"
    globs: ["gl/z*.yaml", "gl/a*.yaml"]
  - name: "No match"
    glob: "nothing/*.yaml"
  - name: "Directory match"
    glob: "dirs/*"
  - name: "Question"
    glob: "q/?.yaml"
""",
    'data/star/b.yaml': "---\norder: [star_b]\nstar: b\n",
    'data/star/a.yaml': "---\norder: [star_a]\nstar: a\n",
    'data/star/C.yaml': "---\norder: [star_C]\n",
    'data/star/.hidden.yaml': "---\norder: [star_hidden]\nhidden: yes\n",
    'data/star/notyaml.txt': "order: [txt]\n",
    'data/rec/top.yaml': "---\norder: [rec_top]\n",
    'data/rec/sub/deeper/x.yaml': "---\norder: [rec_deep]\nrec_deep_only: found\n",
    'data/rec/sub/a.yaml': "---\norder: [rec_sub_a]\n",
    'data/br/web.yaml': "---\norder: [br_web]\n",
    'data/br/ams.yaml': "---\norder: [br_ams]\n",
    'data/gl/zeta.yaml': "---\norder: [gl_zeta]\n",
    'data/gl/alpha.yaml': "---\norder: [gl_alpha]\n",
    'data/dirs/adir.yaml/placeholder.yaml': "---\norder: [in_dir]\n",
    'data/dirs/file.yaml': "---\norder: [dirs_file]\n",
    'data/q/1.yaml': "---\norder: [q1]\n",
    'data/q/10.yaml': "---\norder: [q10]\n",
}, [L('order', 'unique'), L('order'), L('star'), L('hidden'), L('rec_deep_only'), L('order', 'deep'), L('order', 'unique', explain=True)],
  readme='glob ordering (sorted on Ruby 3.1), **, {a,b}, dotfiles, globs list, directories rejected (reference §1.5).')

case('locations/mapped-paths', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Array"
    mapped_paths: [facts.datacenters, dc, "dc/%{dc}.yaml"]
  - name: "Hash"
    mapped_paths: [facts.services, svc, "svc/%{svc.0}-%{svc.1}.yaml"]
  - name: "String"
    mapped_paths: [facts.site, s, "site/%{s}.yaml"]
  - name: "Missing"
    mapped_paths: [facts.nosuchfact, m, "m/%{m}.yaml"]
  - name: "Empty"
    mapped_paths: [facts.empty_list, e, "e/%{e}.yaml"]
  - name: "Trusted"
    mapped_paths: [trusted.extensions.pp_datacenter, t, "t/%{t}.yaml"]
""",
    'data/dc/ams1.yaml': "---\nk: [dc_ams1]\ndc_key: ams1\n",
    'data/dc/fra2.yaml': "---\nk: [dc_fra2]\ndc_key: fra2\n",
    'data/svc/http-80.yaml': "---\nk: [svc_http]\n",
    'data/svc/ssh-22.yaml': "---\nk: [svc_ssh]\n",
    'data/site/ams.yaml': "---\nk: [site_ams]\n",
    'data/m/.yaml': "---\nk: [m_empty]\n",
    'data/e/.yaml': "---\nk: [e_empty]\n",
    'data/t/ams1.yaml': "---\nk: [t_ams1]\n",
}, [L('k', 'unique'), L('k'), L('dc_key'), L('dc_key', 'unique'), L('k', 'unique', explain=True)],
  facts={'services': {'http': 80, 'ssh': 22}, 'empty_list': []},
  readme='mapped_paths over array, hash, string, missing and empty scope values (reference §1.5).')

case('locations/paths-datadir-interpolation', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Per-node trusted"
    path: "nodes/%{trusted.certname}.yaml"
  - name: "Extension"
    path: "ext/%{trusted.extensions.pp_role}.yaml"
  - name: "Own datadir"
    datadir: "other_%{facts.tier}"
    path: "common.yaml"
  - name: "OS"
    paths: ["os/%{facts.os.family}/%{facts.os.release.major}.yaml", "os/%{facts.os.family}.yaml"]
  - name: "Server fact"
    path: "server/%{server_facts.servername}.yaml"
  - name: "Missing file"
    path: "does/not/exist.yaml"
  - name: "No extension"
    path: "noext"
  - name: "Top var"
    path: "top/%{::site}.yaml"
  - name: "Env"
    path: "env/%{::environment}.yaml"
""",
    'data/nodes/web01.example.com.yaml': "---\nk: [node]\n",
    'data/ext/web.yaml': "---\nk: [ext]\n",
    'other_prod/common.yaml': "---\nk: [other_datadir]\n",
    'data/os/Debian/12.yaml': "---\nk: [debian12]\n",
    'data/os/Debian.yaml': "---\nk: [debian]\n",
    'data/server/puppet.example.com.yaml': "---\nk: [server]\n",
    'data/noext': "---\nk: [noext]\n",
    'data/top/ams.yaml': "---\nk: [top]\n",
    'data/env/production.yaml': "---\nk: [env]\n",
}, [L('k', 'unique'), L('k'), L('k', 'unique', explain=True)],
  readme='path/paths/datadir interpolation with facts, trusted, server_facts and top-scope vars; missing files skipped; no extension added (reference §1.3, §1.5).')

case('locations/undefined-variable-in-path', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Undefined"
    path: "x/%{nosuchvar}.yaml"
  - name: "Undefined fact sub-key"
    path: "y/%{facts.nosuch}.yaml"
  - name: "Common"
    path: "common.yaml"
""",
    'data/x/.yaml': "---\nk: [x_empty]\n",
    'data/y/.yaml': "---\nk: [y_empty]\n",
    'data/common.yaml': "---\nk: [common]\n",
}, [L('k', 'unique'), L('k')],
  readme='undefined variable in a hierarchy path: warning and empty with strict=warning, error with strict=error on 7.23 (reference §5.6, §11).')

case('locations/undefined-variable-in-datadir', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Datadir"
    datadir: "dd%{nosuchvar}"
    path: "common.yaml"
""",
    'dd/common.yaml': "---\nk: dd\n",
}, [L('k')], readme='undefined variable in datadir (reference §1.4, §5.6).')

case('locations/method-in-path', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Method"
    path: "%{lookup('x')}.yaml"
""",
    'data/common.yaml': "---\nx: common\n",
}, [L('x')], readme='method interpolation in hiera.yaml is not allowed (reference §1.4).')

case('locations/scope-method-in-options', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Opts"
    path: "common.yaml"
    options:
      thing: "%{literal('x')}"
""",
    'data/common.yaml': "---\nx: common\n",
}, [L('x')], readme='literal() in hiera.yaml options is rejected (reference §5.1).')

case('locations/uri-with-yaml-data', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Uri"
    uri: "http://example.com/%{facts.role}"
""",
}, [L('x')], readme='uri location with yaml_data gives the missing-path ArgumentError (reference §1.4).')

case('locations/no-location-key', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Nothing"
""",
}, [L('x')], readme='a hierarchy entry without location calls the function without a path (reference §1.4).')

case('locations/any-extension', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Raw"
    path: "raw/%{trusted.certname}.txt"
  - name: "Common"
    path: "common.yaml"
""",
    'data/raw/web01.example.com.txt': 'sysctl: "from txt"\nonly_txt: 1\n',
    'data/common.yaml': 'lookup_options:\n  sysctl:\n    merge: hash\nsysctl:\n  net.ipv4.ip_forward: 0\n',
}, [L('only_txt'), L('sysctl'), L('sysctl', 'first')],
    readme='yaml_data reads a path whatever its extension (a .txt file the scanner does not load): '
           'its values are found and merged (reference §1.5; merge-type-mismatch fixture unloaded-location).')

case('locations/interpolated-values', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Re-interpolated"
    path: "re/%{facts.interp_fact}.yaml"
  - name: "Percent, no interpolation"
    path: "pct/%{facts.pct_fact}.yaml"
  - name: "Top scope"
    path: "top/%{::role}.yaml"
  - name: "Integer"
    path: "int/%{facts.int_fact}.yaml"
  - name: "Certname"
    path: "nodes/%{trusted.certname}.yaml"
  - name: "Common"
    path: "common.yaml"
""",
    'data/re/web-x.yaml': "---\norder: [re_interpolated]\nre: interpolated\n",
    'data/re/%{facts.role}-x.yaml': "---\norder: [re_literal]\nre: literal\n",
    'data/pct/50%-off.yaml': "---\norder: [pct]\n",
    'data/top/web.yaml': "---\norder: [top]\n",
    'data/int/42.yaml': "---\norder: [int]\n",
    'data/nodes/web01.example.com.yaml': "---\norder: [node]\n",
    'data/common.yaml': "---\norder: [common]\n",
}, [L('order', 'unique'), L('re'), L('order', 'unique', explain=True)],
    facts={'pct_fact': '50%-off', 'interp_fact': '%{facts.role}-x', 'int_fact': 42},
    readme='Variables in hierarchy paths: a value that holds `%{` is interpolated again (the fact '
           '`interp_fact` is `%{facts.role}-x`), a `%` alone is kept, top-scope, Integer and '
           'certname values (reference §1.4, §5.3; the fast path of `track_scope_read_settled`).')

case('locations/recursive-variable', {
    'hiera.yaml': """version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: "Loop"
    path: "loop/%{facts.r1}.yaml"
  - name: "Common"
    path: "common.yaml"
""",
    'data/common.yaml': "---\nkey: common\n",
}, [L('key')],
    facts={'r1': '%{r2}', 'r2': '%{r1}'},
    readme='A hierarchy path whose variable interpolates to itself (`r1` is `%{r2}`, `r2` is '
           '`%{r1}`): every lookup fails with the recursion (reference §5.5).')
