from base import case, L, each_merge, H3, H1, MOD_H

E = "  - name: \"Common\"\n    path: \"common.yaml\"\n"
CONFIGS = [
    ('version6', "version: 6\n"),
    ('versionstr', "version: \"5\"\nhierarchy:\n" + E),
    ('versionabc', "version: abc\n"),
    ('noversion', "hierarchy:\n" + E),
    ('unknowntop', "version: 5\nfoo: 1\n"),
    ('unknownentry', "version: 5\nhierarchy:\n  - name: x\n    paht: common.yaml\n"),
    ('noname', "version: 5\nhierarchy:\n  - path: common.yaml\n"),
    ('nameint', "version: 5\nhierarchy:\n  - name: 5\n    path: common.yaml\n"),
    ('pathsempty', "version: 5\nhierarchy:\n  - name: x\n    paths: []\n"),
    ('mappedtwo', "version: 5\nhierarchy:\n  - name: x\n    mapped_paths: [a, b]\n"),
    ('patharray', "version: 5\nhierarchy:\n  - name: x\n    path: [common.yaml]\n"),
    ('hierhash', "version: 5\nhierarchy:\n  name: x\n  path: common.yaml\n"),
    ('optunderscore', "version: 5\nhierarchy:\n  - name: x\n    path: common.yaml\n    options: {_x: 1}\n"),
    ('opttrailingdash', "version: 5\nhierarchy:\n  - name: x\n    path: common.yaml\n    options: {a-: 1}\n"),
    ('optcolon', "version: 5\nhierarchy:\n  - name: x\n    path: common.yaml\n    options: {'a:b': 1}\n"),
    ('optsym', "version: 5\nhierarchy:\n  - name: x\n    path: common.yaml\n    options:\n      a: :sym\n"),
    ('datadirempty', "version: 5\ndefaults: {datadir: \"\"}\n"),
    ('defaultspath', "version: 5\ndefaults: {path: x}\n"),
    ('topdatadir', "version: 5\ndatadir: data\n"),
    ('nofunc', "version: 5\ndefaults: {datadir: data}\nhierarchy:\n" + E),
    ('defaultsempty', "version: 5\ndefaults: {}\nhierarchy:\n" + E),
    ('twofuncs', "version: 5\nhierarchy:\n  - name: x\n    data_hash: yaml_data\n    lookup_key: eyaml_lookup_key\n    path: common.yaml\n"),
    ('twofuncsdefaults', "version: 5\ndefaults: {data_hash: yaml_data, data_dig: foo}\n"),
    ('twolocs', "version: 5\nhierarchy:\n  - name: x\n    path: common.yaml\n    glob: '*.yaml'\n"),
    ('optpath', "version: 5\nhierarchy:\n  - name: x\n    path: common.yaml\n    options: {path: x}\n"),
    ('defoptsuri', "version: 5\ndefaults: {data_hash: yaml_data, options: {uri: x}}\n"),
    ('hiera3backend', "version: 5\nhierarchy:\n  - name: x\n    hiera3_backend: custom\n    path: common.yaml\n"),
    ('hiera3yaml', "version: 5\nhierarchy:\n  - name: x\n    hiera3_backend: yaml\n    path: common.yaml\n"),
    ('dupnames', "version: 5\nhierarchy:\n  - name: Common\n    path: common.yaml\n  - name: Other\n    path: other.yaml\n  - name: Common\n    path: x.yaml\n"),
    ('unknownfunc', "version: 5\nhierarchy:\n  - name: x\n    data_hash: nonesuch_txt_data\n    path: common.yaml\n"),
    ('unknownlookupkey', "version: 5\nhierarchy:\n  - name: x\n    lookup_key: nonesuch_lookup\n    path: common.yaml\n"),
    ('unknowndatadig', "version: 5\nhierarchy:\n  - name: x\n    data_dig: nonesuch_dig\n    path: common.yaml\n"),
    ('v4unknownbackend', "version: 4\nhierarchy:\n  - name: common\n    backend: nonesuch\n"),
    ('v4json', "version: 4\nhierarchy:\n  - name: common\n    backend: json\n"),
    ('emptyhierarchy', "version: 5\nhierarchy: []\n"),
    ('nullhierarchy', "version: 5\nhierarchy:\n"),
    ('planhierarchy', "version: 5\nplan_hierarchy:\n" + E),
    ('defaulthier', "version: 5\nhierarchy: []\ndefault_hierarchy:\n" + E),
    ('badyaml', "version: 5\nhierarchy: [\n"),
    ('listfile', "- version: 5\n"),
    ('badurisyntax', "version: 5\nhierarchy:\n  - name: x\n    lookup_key: eyaml_lookup_key\n    uri: 'http://exa mple.com'\n"),
    ('urieyaml', "version: 5\nhierarchy:\n  - name: x\n    lookup_key: eyaml_lookup_key\n    uri: 'http://example.com'\n"),
    ('mappedbadexpr', "version: 5\nhierarchy:\n  - name: x\n    mapped_paths: ['facts..x', v, '%{v}.yaml']\n"),
    ('symkeys', "---\n:version: 5\n:hierarchy:\n  - :name: x\n    :path: common.yaml\n"),
]
files = {'hiera.yaml': H1}
lookups = []
for n, text in CONFIGS:
    files['modules/c%s/hiera.yaml' % n] = text
    files['modules/c%s/data/common.yaml' % n] = "---\nc%s::k: found\n" % n
    lookups.append(L('c%s::k' % n))
lookups += [L('cdupnames::k', explain=True), L('cv4json::k', explain=True)]
case('config/module-hiera-yaml-errors', files, lookups,
     readme='one module per faulty (or unusual) hiera.yaml; each error is recorded when a lookup touches that module layer (reference §1.1-§1.4, §1.6).')

case('config/env-default-hierarchy', {
    'hiera.yaml': "version: 5\nhierarchy:\n" + E + "default_hierarchy:\n" + E,
    'data/common.yaml': "---\nk: v\n",
}, [L('k')], readme="default_hierarchy outside the module layer (reference §1.4).")

case('config/env-hiera3-backend', {
    'hiera.yaml': "version: 5\nhierarchy:\n  - name: x\n    hiera3_backend: custom\n    path: common.yaml\n",
    'data/common.yaml': "---\nk: v\n",
}, [L('k')], readme="hiera3_backend outside the global layer (reference §1.4).")

case('config/env-v3', {
    'hiera.yaml': "---\n:backends:\n  - yaml\n:hierarchy:\n  - common\n:yaml:\n  :datadir: data\n",
    'data/common.yaml': "---\nk: v\n",
}, [L('k'), L('other')], readme='a v3 hiera.yaml in the environment is ignored with a warning (error with strict=error) (reference §1.6).')

case('config/env-v3-duplicate-backend', {
    'hiera.yaml': "---\n:backends:\n  - yaml\n  - yaml\n:hierarchy:\n  - common\n",
    'data/common.yaml': "---\nk: v\n",
}, [L('k')], readme='v3 duplicate backend (reference §1.6).')

case('config/env-v4', {
    'hiera.yaml': "---\nversion: 4\ndatadir: data\nhierarchy:\n  - name: \"%{facts.role}\"\n    backend: yaml\n  - name: common\n    backend: json\n  - name: multi\n    backend: yaml\n    paths: [one, two]\n",
    'data/web.yaml': "---\nk: [role]\n",
    'data/common.json': "{\"k\": [\"json\"], \"j\": 1}\n",
    'data/one.yaml': "---\nk: [one]\n",
    'data/two.yaml': "---\nk: [two]\n",
}, [L('k'), L('k', 'unique'), L('j'), L('k', 'unique', explain=True)],
  readme='v4 environment hiera.yaml: interpolated name as path, backend extensions, paths (reference §1.6).')

case('config/env-empty-hiera-yaml', {
    'hiera.yaml': "",
    'data/common.yaml': "---\nk: v\n",
    'hieradata/common.yaml': "---\nk: hieradata\n",
}, [L('k')], readme='empty env hiera.yaml falls back to the v3 default config, which is ignored in an environment (reference §1.1, §1.6).')

case('config/env-no-hiera-yaml', {
    'data/common.yaml': "---\nk: v\n",
}, [L('k'), L('k', explain=True)], readme='no env hiera.yaml: no environment layer (reference §2.2).')

case('config/env-conf-data-provider-hiera', {
    'environment.conf': "environment_data_provider = hiera\n",
    'data/common.yaml': "---\nk: v\n",
}, [L('k'), L('k', explain=True)], readme='environment.conf environment_data_provider=hiera gives the default v5 config (reference §2.2).')

case('config/env-conf-data-provider-with-hiera-yaml', {
    'environment.conf': "environment_data_provider = none\n",
    'hiera.yaml': H1,
    'data/common.yaml': "---\nk: v\n",
}, [L('k')], readme='a v5 hiera.yaml makes environment_data_provider irrelevant (reference §2.2).')

case('config/env-version-only', {
    'hiera.yaml': "version: 5\n",
    'data/common.yaml': "---\nk: v\n",
}, [L('k'), L('k', explain=True)], readme='version: 5 alone means one Common level with data/common.yaml (reference §1.3).')

case('config/env-hiera-yaml-bom', {
    'hiera.yaml': "\ufeffversion: 5\nhierarchy:\n  - name: nodes\n    path: nodes/%{trusted.certname}.yaml\n  - name: site\n    path: site.yaml\n",
    'data/nodes/web01.example.com.yaml': "---\nk: node\nonly_node: n\n",
    'data/site.yaml': "---\nk: site\nonly_site: s\n",
    'data/common.yaml': "---\nk: common\nonly_common: c\n",
}, [L('k'), L('only_node'), L('only_site'), L('only_common'), L('k', explain=True)],
  readme='a hiera.yaml saved with a byte order mark: libyaml counts the mark as a column, so Psych reads only `version: 5` and the environment gets the default hierarchy, data/common.yaml (reference §1.3, §6.1).')

case('config/env-options-defaults-not-merged', {
    'hiera.yaml': "version: 5\ndefaults:\n  data_hash: yaml_data\n  datadir: data\n  options: {a: 1}\nhierarchy:\n  - name: x\n    path: common.yaml\n    options: {b: 2}\n",
    'data/common.yaml': "---\nk: v\n",
}, [L('k')], readme='hierarchy options on a yaml_data level: any extra option key makes yaml_data fail with the missing-path ArgumentError (contradicts the idea that extra options are ignored; reference §1.3, §1.4).')
