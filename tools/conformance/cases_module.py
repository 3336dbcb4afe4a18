from base import case, L, each_merge, H3, H1, MOD_H

META = '{"name": "acme-%s", "version": "1.0.0", "author": "acme", "license": "Apache-2.0", "summary": "x", "source": "x", "dependencies": []%s}\n'

case('module/routing-and-namespace', {
    'hiera.yaml': H1,
    'data/common.yaml': "---\nplain: env\nmod::env_only: env\nmod::both: env\n\"mod::a.b\": env-quoted\n",
    'modules/mod/hiera.yaml': MOD_H,
    'modules/mod/metadata.json': META % ('mod', ''),
    'modules/mod/data/common.yaml': """---
mod::x: {y: 1, z: [a, b]}
mod::both: module
mod::only: module
"mod::a.b": mod-quoted
mod::sub::deep: deeper
"mod::": empty-tail
plain: in-module
other::key: foreign
Mod::upper: upper
""",
    'modules/other/hiera.yaml': MOD_H,
    'modules/other/data/common.yaml': "---\nother::key: other-module\n",
}, [L(k) for k in ['mod::x', 'mod::x.y', 'mod::x.z.1', 'mod::both', 'mod::only', 'mod::env_only', '"mod::a.b"', 'mod::a.b',
                   'mod::sub::deep', 'mod::', '::mod::only', 'Mod::upper', 'MOD::only', 'plain', 'other::key', 'nomod::x', 'mod:only',
                   'mod::only.missing']] + [L('mod::only', explain=True), L('::mod::only', explain=True), L('nomod::x', explain=True)],
  readme='keys route to the module named by the first :: segment; case-sensitive; ::mod quirk; keys outside the namespace (reference §2.3-§2.4).')

case('module/lookup-options-namespace', {
    'hiera.yaml': H1,
    'data/common.yaml': "---\ngood::h: {env: 1}\n",
    'modules/good/hiera.yaml': MOD_H,
    'modules/good/data/common.yaml': """---
lookup_options:
  good::h: {merge: hash}
  "^good::pat_": {merge: unique}
good::h: {mod: 1}
good::pat_x: [m]
""",
    'modules/badlit/hiera.yaml': MOD_H,
    'modules/badlit/data/common.yaml': "---\nlookup_options:\n  other_key: {merge: hash}\nbadlit::k: v\n",
    'modules/badpat/hiera.yaml': MOD_H,
    'modules/badpat/data/common.yaml': "---\nlookup_options:\n  \"^.*_a\": {merge: hash}\nbadpat::k: v\n",
    'modules/badpat2/hiera.yaml': MOD_H,
    'modules/badpat2/data/common.yaml': "---\nlookup_options:\n  \"^(badpat2)::x\": {merge: hash}\nbadpat2::k: v\n",
    'modules/badpat3/hiera.yaml': MOD_H,
    'modules/badpat3/data/common.yaml': "---\nlookup_options:\n  \"^badpat3\\\\:\\\\:x\": {merge: hash}\nbadpat3::k: v\n",
    'modules/okpat/hiera.yaml': MOD_H,
    'modules/okpat/data/common.yaml': "---\nlookup_options:\n  \"^okpat::.*\": {merge: unique}\nokpat::k: [v]\n",
    'modules/nonhash/hiera.yaml': MOD_H,
    'modules/nonhash/data/common.yaml': "---\nlookup_options: [a]\nnonhash::k: v\n",
    'modules/nullopts/hiera.yaml': MOD_H,
    'modules/nullopts/data/common.yaml': "---\nlookup_options:\nnullopts::k: v\n",
}, [L('good::h'), L('good::pat_x'), L('badlit::k'), L('badpat::k'), L('badpat2::k'), L('badpat3::k'), L('okpat::k'), L('nonhash::k'),
    L('nullopts::k'), L('badlit::k', 'first'), L('good::h', explain=True)],
  readme='module lookup_options must use the module prefix, literal and pattern (reference §2.5).')

case('module/providers-without-hiera-yaml', {
    'hiera.yaml': H1,
    'data/common.yaml': "---\nbare::k: env\n",
    'modules/bare/data/common.yaml': "---\nbare::k: module\nbare::only: module\n",
    'modules/metahiera/metadata.json': META % ('metahiera', ', "data_provider": "hiera"'),
    'modules/metahiera/data/common.yaml': "---\nmetahiera::k: from-default-config\n",
    'modules/metanone/metadata.json': META % ('metanone', ', "data_provider": "none"'),
    'modules/metanone/data/common.yaml': "---\nmetanone::k: unreachable\n",
    'modules/metafunc/metadata.json': META % ('metafunc', ', "data_provider": "function"'),
    'modules/metabogus/metadata.json': META % ('metabogus', ', "data_provider": "bogus"'),
    'modules/metabogus/data/common.yaml': "---\nmetabogus::k: x\n",
    'modules/v4mod/hiera.yaml': "---\nversion: 4\ndatadir: data\nhierarchy:\n  - name: common\n    backend: yaml\n",
    'modules/v4mod/data/common.yaml': "---\nv4mod::k: v4-value\n",
    'modules/v3mod/hiera.yaml': "---\n:backends: [yaml]\n:hierarchy: [common]\n",
    'modules/v3mod/data/common.yaml': "---\nv3mod::k: v3-value\n",
    'modules/emptyhiera/hiera.yaml': "",
    'modules/emptyhiera/data/common.yaml': "---\nemptyhiera::k: x\n",
    'modules/v5bare/hiera.yaml': "version: 5\n",
    'modules/v5bare/data/common.yaml': "---\nv5bare::k: default-hierarchy\n",
}, [L(k) for k in ['bare::k', 'bare::only', 'metahiera::k', 'metanone::k', 'metafunc::k', 'metabogus::k', 'v4mod::k', 'v3mod::k',
                   'emptyhiera::k', 'v5bare::k']] + [L('metahiera::k', explain=True), L('bare::only', explain=True)],
  readme='module layer presence: no hiera.yaml, metadata.json data_provider hiera/none/function, v3/v4/empty module hiera.yaml (reference §2.2, §1.6).')

case('module/nonstring-top-level-key', {
    'hiera.yaml': H1,
    'modules/numkey/hiera.yaml': MOD_H,
    'modules/numkey/data/common.yaml': "---\n1: x\nnumkey::k: v\n",
    'modules/symkey/hiera.yaml': MOD_H,
    'modules/symkey/data/common.yaml': "---\n:symkey::k: from-symbol-key\n",
    'modules/goodkeys/hiera.yaml': MOD_H,
    'modules/goodkeys/data/common.yaml': "---\ngoodkeys::g:\n  6: int\n  -4: neg\n  2.7: flt\n  '6': str\n  :sym: symbol\n",
}, [L('numkey::k'), L('symkey::k'), L('goodkeys::g'), L('goodkeys::g.6'), L('goodkeys::g.-4'), L("goodkeys::g.'6'"), L('goodkeys::g.2.7'),
    L('goodkeys::g.sym')],
  readme='non-string keys in module data: Integer top key crashes the namespace filter, symbol keys become strings (reference §2.4, §6.1).')

case('module/default-hierarchy-and-convert-to', {
    'hiera.yaml': H1,
    'data/common.yaml': "---\ndh::merged: [env]\n",
    'modules/dh/hiera.yaml': """version: 5
hierarchy:
  - name: "Regular"
    path: "regular.yaml"
default_hierarchy:
  - name: "Defaults"
    path: "defaults.yaml"
  - name: "More defaults"
    path: "defaults2.yaml"
""",
    'modules/dh/data/regular.yaml': """---
lookup_options:
  dh::conv: {convert_to: Array}
  dh::conv_true: {convert_to: [Array, true]}
  dh::merged: {merge: unique}
dh::regular: regular
dh::merged: [regular]
""",
    'modules/dh/data/defaults.yaml': """---
lookup_options:
  dh::dflt_merge: {merge: deep}
dh::regular: default-unused
dh::only_default: from-default
dh::conv: single
dh::conv_true: ~
dh::merged: [default]
dh::dflt_merge: {a: {x: 1}}
""",
    'modules/dh/data/defaults2.yaml': "---\ndh::dflt_merge: {a: {y: 2}}\ndh::only_default2: d2\n",
}, [L('dh::regular'), L('dh::only_default'), L('dh::only_default2'), L('dh::conv'), L('dh::conv_true'), L('dh::merged'),
    L('dh::merged', 'deep'), L('dh::dflt_merge'), L('dh::dflt_merge', 'first'), L('dh::only_default', 'unique'), L('dh::nope'),
    L('dh::only_default', explain=True)],
  readme='module default_hierarchy: used only when nothing else found, own lookup_options, explicit merge ignored, convert_to (reference §2.6).')

# Puppet::Module#load_metadata: a metadata.json that is a non-empty Hash must hold a truthy
# source, author, version, license and dependencies (not nil; dependencies an Array), or it raises MissingMetadata, which the
# environment logs and the module is not loaded (found by tools/difftest,
# findings/module-metadata-incomplete). An empty object, or no file, is fine.
case('module/metadata-completeness', {
    'hiera.yaml': H1,
    'data/common.yaml': "---\nenvkey: env\n",
    'modules/full/hiera.yaml': MOD_H,
    'modules/full/metadata.json': META % ('full', ''),
    'modules/full/data/common.yaml': "---\nfull::x: from-full\n",
    'modules/nosource/hiera.yaml': MOD_H,
    'modules/nosource/metadata.json': '{"name": "acme-nosource", "version": "1.0.0", "author": "a", "license": "x", "dependencies": []}\n',
    'modules/nosource/data/common.yaml': "---\nnosource::x: from-nosource\n",
    'modules/nulllicense/hiera.yaml': MOD_H,
    'modules/nulllicense/metadata.json': '{"name": "acme-nulllicense", "version": "1.0.0", "author": "a", "license": null, "source": "s", "dependencies": []}\n',
    'modules/nulllicense/data/common.yaml': "---\nnulllicense::x: from-nulllicense\n",
    'modules/falseauthor/hiera.yaml': MOD_H,
    'modules/falseauthor/metadata.json': '{"name": "acme-falseauthor", "version": "1.0.0", "author": false, "license": "x", "source": "s", "dependencies": []}\n',
    'modules/falseauthor/data/common.yaml': "---\nfalseauthor::x: from-falseauthor\n",
    'modules/emptystrings/hiera.yaml': MOD_H,
    'modules/emptystrings/metadata.json': '{"name": "acme-emptystrings", "version": "", "author": "", "license": "", "source": "", "dependencies": []}\n',
    'modules/emptystrings/data/common.yaml': "---\nemptystrings::x: from-emptystrings\n",
    'modules/depsstring/hiera.yaml': MOD_H,
    'modules/depsstring/metadata.json': '{"name": "acme-depsstring", "version": "1", "author": "a", "license": "x", "source": "s", "dependencies": "none"}\n',
    'modules/depsstring/data/common.yaml': "---\ndepsstring::x: from-depsstring\n",
    'modules/badjson/hiera.yaml': MOD_H,
    'modules/badjson/metadata.json': '{"name": "acme-badjson",\n',
    'modules/badjson/data/common.yaml': "---\nbadjson::x: from-badjson\n",
    'modules/emptyobject/hiera.yaml': MOD_H,
    'modules/emptyobject/metadata.json': '{}\n',
    'modules/emptyobject/data/common.yaml': "---\nemptyobject::x: from-emptyobject\n",
    'modules/nometa/hiera.yaml': MOD_H,
    'modules/nometa/data/common.yaml': "---\nnometa::x: from-nometa\n",
}, [L(k) for k in ['full::x', 'nosource::x', 'nulllicense::x', 'falseauthor::x', 'emptystrings::x', 'depsstring::x', 'badjson::x', 'emptyobject::x',
                   'nometa::x', 'envkey']] + [L('nosource::x', explain=True)],
  readme='a module whose non-empty metadata.json lacks source, author, version, license or dependencies (null counts as missing; dependencies must be an Array) is not loaded (Puppet::Module#load_metadata; reference §2.2).')
