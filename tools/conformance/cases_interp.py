from base import case, L, each_merge, H3, H1, MOD_H

IF = {'dotted.fact': 'dv', 'with space': 'ws', 'interp_fact': '%{facts.role}-x', 'r1': '%{r2}', 'r2': '%{r1}',
      'empty_fact': '', 'bool_fact': False, 'int_fact': 42, 'nil_hash': {'inner': None}}

case('interp/scope-variables', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
plain_var: "%{role}"
top_var: "%{::role}"
facts_dig: "%{facts.os.family}"
facts_top_dig: "%{::facts.os.family}"
facts_deep: "%{facts.os.release.major}"
facts_int: "%{facts.processors.count}"
facts_hash: "%{facts.os.release}"
facts_array: "%{facts.datacenters}"
facts_array_idx: "%{facts.datacenters.1}"
facts_array_neg: "%{facts.datacenters.-1}"
facts_array_oob: "%{facts.datacenters.5}"
trusted_cn: "%{trusted.certname}"
trusted_ext: "%{trusted.extensions.pp_role}"
trusted_oid: "%{trusted.extensions.'1.3.6.1.4.1.34380.1.2.1'}"
trusted_auth: "%{trusted.authenticated}"
trusted_domain: "%{trusted.domain}-%{trusted.hostname}"
server_fact: "%{server_facts.servername}"
server_env: "%{server_facts.environment}"
env_var: "%{environment}"
env_top: "%{::environment}"
module_name: "[%{module_name}]"
caller: "[%{caller_module_name}]"
quoted_fact: "%{facts.'dotted.fact'}"
dquoted_fact: '%{facts."dotted.fact"}'
space_fact: "%{facts.'with space'}"
ws_token: "%{ facts.role }"
ws_around_dot: "%{facts . role}"
several: "%{facts.role}/%{facts.site}/%{facts.tier}"
reinterp_fact: "%{facts.interp_fact}"
empty_fact: "<%{facts.empty_fact}>"
bool_fact: "%{facts.bool_fact}"
int_fact: "%{facts.int_fact}"
nil_inner: "<%{facts.nil_hash.inner}>"
nil_inner_deeper: "<%{facts.nil_hash.inner.x}>"
fqdn_legacy: "%{::fqdn}"
networking_fqdn: "%{facts.networking.fqdn}"
string_dig: "%{facts.os.family.x}"
int_dig: "%{facts.processors.count.x}"
array_name_dig: "%{facts.datacenters.x}"
clientcert: "%{clientcert}"
hostname: "%{::hostname}"
numeric_var: "%{0}"
""",
}, [L(k) for k in ['plain_var', 'top_var', 'facts_dig', 'facts_top_dig', 'facts_deep', 'facts_int', 'facts_hash', 'facts_array',
                   'facts_array_idx', 'facts_array_neg', 'facts_array_oob', 'trusted_cn', 'trusted_ext', 'trusted_oid', 'trusted_auth',
                   'trusted_domain', 'server_fact', 'server_env', 'env_var', 'env_top', 'module_name', 'caller', 'quoted_fact', 'dquoted_fact',
                   'space_fact', 'ws_token', 'ws_around_dot', 'several', 'reinterp_fact', 'empty_fact', 'bool_fact', 'int_fact', 'nil_inner',
                   'nil_inner_deeper', 'fqdn_legacy', 'networking_fqdn', 'string_dig', 'int_dig', 'array_name_dig', 'clientcert', 'hostname',
                   'numeric_var']] + [L('facts_dig', explain=True)],
  facts=IF, readme='every scope-variable interpolation form: %{var}, %{::var}, facts/trusted/server_facts digging, quoting, whitespace (reference §5.2, §5.6).')

case('interp/undefined-variables', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
undef_plain: "<%{nope}>"
undef_top: "<%{::nope}>"
undef_sub: "<%{nope.sub}>"
missing_fact_sub: "<%{facts.nope}>"
missing_fact_deeper: "<%{facts.nope.deeper}>"
missing_trusted_ext: "<%{trusted.extensions.nope}>"
missing_server_fact: "<%{server_facts.nope}>"
two_undef: "<%{nope}|%{nope2}>"
undef_in_array: ["%{nope3}", ok]
undef_in_key: {"k-%{nope4}": v}
scope_method_undef: "<%{scope('nope5')}>"
lookup_missing: "<%{lookup('no_such_key')}>"
hiera_missing: "<%{hiera('no_such_key')}>"
alias_missing: "%{alias('no_such_key')}"
""",
}, [L(k) for k in ['undef_plain', 'undef_top', 'undef_sub', 'missing_fact_sub', 'missing_fact_deeper', 'missing_trusted_ext',
                   'missing_server_fact', 'two_undef', 'undef_in_array', 'undef_in_key', 'scope_method_undef', 'lookup_missing',
                   'hiera_missing', 'alias_missing']] + [L('undef_plain', explain=True)],
  facts=IF, readme='undefined variables: warning + empty string with strict=warning, ArgumentError with strict=error; missing sub-keys are silent (reference §5.6, §11).')

case('interp/methods', {
    'hiera.yaml': H3,
    'data/nodes/web01.example.com.yaml': "---\nlayered: node\nlayered_arr: [node]\n",
    'data/role/web.yaml': "---\nlayered: role\nlayered_arr: [role]\nlookup_options:\n  layered_arr: {merge: unique}\n",
    'data/common.yaml': r"""---
str: hello
arr: [a, b]
hsh: {k: v, n: 1}
int: 42
flt: 1.5
bool_f: false
nil_v: ~
lookup_str: "%{lookup('str')} world"
hiera_str: "%{hiera('str')} world"
lookup_arr: "%{lookup('arr')}"
lookup_hsh: "%{lookup('hsh')}"
lookup_int: "%{lookup('int')}"
lookup_nil: "<%{lookup('nil_v')}>"
lookup_bool: "%{lookup('bool_f')}"
lookup_dotted: "%{lookup('hsh.k')}"
lookup_arr_idx: "%{lookup('arr.1')}"
lookup_layered: "%{lookup('layered')}"
lookup_merged: "%{lookup('layered_arr')}"
alias_str: "%{alias('str')}"
alias_arr: "%{alias('arr')}"
alias_hsh: "%{alias('hsh')}"
alias_int: "%{alias('int')}"
alias_flt: "%{alias('flt')}"
alias_bool: "%{alias('bool_f')}"
alias_nil: "%{alias('nil_v')}"
alias_spaces: "%{ alias('arr') }"
alias_dq: '%{alias("arr")}'
alias_dotted: "%{alias('hsh.n')}"
alias_merged: "%{alias('layered_arr')}"
alias_nested: {inner: "%{alias('arr')}", list: ["%{alias('hsh')}"]}
literal_pct: "100%{literal('%')}"
literal_brace: "%{literal('%')}{facts.role}"
literal_text: "%{literal('abc')}"
scope_fact: "%{scope('facts.role')}"
scope_top: "%{scope('::role')}"
scope_dq: '%{scope("trusted.certname")}'
chain_a: "%{lookup('chain_b')}+a"
chain_b: "%{lookup('chain_c')}+b"
chain_c: "%{facts.role}"
alias_of_chain: "%{alias('chain_a')}"
alias_of_alias: "%{alias('alias_arr')}"
lookup_of_alias: "%{lookup('alias_arr')}"
in_key: {"%{lookup('str')}": 1, "%{facts.site}": 2}
""",
}, [L(k) for k in ['lookup_str', 'hiera_str', 'lookup_arr', 'lookup_hsh', 'lookup_int', 'lookup_nil', 'lookup_bool', 'lookup_dotted',
                   'lookup_arr_idx', 'lookup_layered', 'lookup_merged', 'alias_str', 'alias_arr', 'alias_hsh', 'alias_int', 'alias_flt',
                   'alias_bool', 'alias_nil', 'alias_spaces', 'alias_dq', 'alias_dotted', 'alias_merged', 'alias_nested', 'literal_pct',
                   'literal_brace', 'literal_text', 'scope_fact', 'scope_top', 'scope_dq', 'chain_a', 'alias_of_chain', 'alias_of_alias',
                   'lookup_of_alias', 'in_key']] + [L('alias_merged', 'first'), L('lookup_merged', 'first'), L('alias_nested.list.0.k'), L('alias_arr', explain=True), L('chain_a', explain=True)],
  readme='interpolation methods lookup/hiera/alias/literal/scope, typed alias values, sub-lookups honour lookup_options (reference §5.3-§5.4).')

case('interp/escapes-and-empty-tokens', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
x: XV
double_pct: "%%{x}"
empty_token: "a%{}b"
sq_empty: "a%{''}b"
dq_empty: 'a%{""}b'
colons: "a%{::}b"
sq_colons: "a%{'::'}b"
dq_colons: 'a%{"::"}b'
escape_idiom: "%%{}{x}"
space_empty: "a%{ }b"
unterminated: "abc%{x"
extra_brace: "%{x}}"
literal_escape: "%{literal('%')}{x}"
percent_alone: "100% sure"
pct_brace_no_close: "%{"
nested_braces: "%{%{x}}"
no_pct: "{x}"
""",
}, [L(k) for k in ['double_pct', 'empty_token', 'sq_empty', 'dq_empty', 'colons', 'sq_colons', 'dq_colons', 'escape_idiom', 'space_empty',
                   'unterminated', 'extra_brace', 'literal_escape', 'percent_alone', 'pct_brace_no_close', 'nested_braces', 'no_pct']],
  readme='%% and empty-token escapes, unterminated and nested tokens (reference §5.2).')

case('interp/syntax-errors', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
a: A
spaced_args: "%{lookup( 'a' )}"
empty_literal: "%{literal('')}"
method_then_dot: "%{lookup('a').x}"
mixed_quotes: "%{'the.key\"}"
double_dot: "%{a..b}"
trailing_dot: "%{a.}"
leading_dot: "%{.a}"
empty_quotes_seg: "%{facts.''}"
partly_quoted: "%{'pa'key}"
unknown_method: "%{what('x')}"
capital_method: "%{Lookup('a')}"
unquoted_arg: "%{lookup(a)}"
two_args: "%{lookup('a', 'b')}"
alias_mid: "x %{alias('a')}"
alias_with_text_after: "%{alias('a')}!"
alias_two: "%{alias('a')}%{alias('a')}"
alias_spaces_outside: " %{alias('a')}"
alias_in_array: ["%{alias('a')} tail"]
empty_method: "%{('a')}"
""",
}, [L(k) for k in ['spaced_args', 'empty_literal', 'method_then_dot', 'mixed_quotes', 'double_dot', 'trailing_dot', 'leading_dot',
                   'empty_quotes_seg', 'partly_quoted', 'unknown_method', 'capital_method', 'unquoted_arg', 'two_args', 'alias_mid',
                   'alias_with_text_after', 'alias_two', 'alias_spaces_outside', 'alias_in_array', 'empty_method']],
  readme='interpolation syntax errors, unknown methods, alias not the entire string (reference §5.2-§5.3).')

case('interp/recursion', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
self: "%{lookup('self')}"
p: "%{lookup('q')}"
q: "%{lookup('p')}"
alias_self: "%{alias('alias_self')}"
hiera_self: "%{hiera('hiera_self')}"
three_a: "%{lookup('three_b')}"
three_b: "%{alias('three_c')}"
three_c: "x%{hiera('three_a')}"
scope_loop: "%{r1}"
same_name_ok: "-- %{role} --"
role: "data-role"
lookup_then_self: "%{lookup('role')} %{lookup('lookup_then_self')}"
dotted_self: {k: "%{lookup('dotted_self.k')}"}
nested_self: {a: ["%{lookup('nested_self')}"]}
twice_ok: "%{lookup('role')}%{lookup('role')}"
""",
}, [L(k) for k in ['self', 'p', 'q', 'alias_self', 'hiera_self', 'three_a', 'three_b', 'scope_loop', 'same_name_ok', 'lookup_then_self',
                   'dotted_self', 'dotted_self.k', 'nested_self', 'twice_ok']] + [L('p', explain=True)],
  facts=IF, readme='recursion detection: exact stacks for lookup/alias/hiera/scope cycles (reference §5.7).')

case('interp/reinterpolation-quirk', {
    'hiera.yaml': H1,
    'data/common.yaml': r"""---
x: XV
lit: "%{literal('%')}{x}"
via_lookup: "%{lookup('lit')}"
via_alias: "%{alias('lit')}"
via_hiera: "%{hiera('lit')}"
lit_lookup: "%{literal('%')}{lookup('x')}"
via_lookup2: "[%{lookup('lit_lookup')}]"
fact_with_token: "%{facts.interp_fact}"
scope_with_token: "%{scope('facts.interp_fact')}"
""",
}, [L(k) for k in ['lit', 'via_lookup', 'via_alias', 'via_hiera', 'lit_lookup', 'via_lookup2', 'fact_with_token', 'scope_with_token']],
  facts=IF, readme='non-alias token results are interpolated again; alias results are not (reference §5.5).')

case('interp/keys-and-nested-values', {
    'hiera.yaml': H3,
    'data/role/web.yaml': "---\nkeyed: {\"%{facts.role}_extra\": role}\n",
    'data/common.yaml': r"""---
keyed:
  "%{facts.role}": common
  "%{facts.site}_%{facts.tier}": both
  plain: "%{facts.site}"
deep_nested: {a: [{b: "%{trusted.certname}"}, "%{facts.os.name}"]}
int_keys: {1: "%{facts.role}", 2.5: x}
lookup_options:
  "%{facts.role}_merged": {merge: unique}
web_merged: [common]
""",
    'data/nodes/web01.example.com.yaml': "---\nweb_merged: [node]\n",
}, [L('keyed'), L('keyed', 'hash'), L('keyed', 'deep'), L('keyed.web'), L('keyed.ams_prod'), L('deep_nested'), L('deep_nested.a.0.b'),
    L('int_keys'), L('int_keys.1'), L('web_merged'), L('keyed.%{facts.role}')],
  readme='hash keys are interpolated, including lookup_options keys (reference §5.1).')

case('interp/lint-evidence', {
    'hiera.yaml': H3,
    'data/common.yaml': r"""---
a: A
hsh: {k: v}
syntax_in_text: "pre %{a..b} post"
syntax_in_nested_key: {"%{a..b}": v}
"root_%{nope}": root keys are not interpolated
unknown_in_nested_key: {"%{lokup('a')}": v}
unknown_in_text: "x %{lokup('a')} y"
unknown_then_alias: "%{lokup('a')}%{alias('a')}"
lookup_bad_key: "%{lookup('a..b')}"
scope_bad_key: "<%{scope('a..b')}>"
unterminated_method: "%{lookup('a')"
unquoted_method_arg: "%{lookup(a)}"
lookup_module_key: "%{lookup('lintmod::only')}"
lookup_missing_sub: "<%{lookup('hsh.nope')}>"
lookup_missing: "<%{lookup('nowhere')}>"
alias_missing_in_list: ["%{alias('nowhere')}"]
to_role_db_only: "<%{lookup('db_only')}>"
cross_a: "%{lookup('cross_b')}"
db_loop_a: "%{lookup('db_loop_b')}"
overridden_loop: "%{lookup('overridden_loop')}"
loop_after_error: "%{lokup('a')}%{lookup('loop_after_error')}"
legacy_osfamily: "%{::osfamily}"
legacy_unqualified: "%{operatingsystem}"
legacy_in_facts: "<%{facts.osfamily}>"
structured_family: "%{facts.os.family}"
toplevel_custom: "%{::site}"
block_literal: |
  first %{facts.role}
  second %{lookup('a')}
folded_dq: "one
  %{facts.role} \u00e9 %{lookup('a')}"
""",
    'data/role/web.yaml': "---\ncross_b: \"%{lookup('cross_a')}\"\n",
    'data/role/db.yaml': "---\ndb_only: db\ndb_loop_b: \"%{lookup('db_loop_a')}\"\n",
    'data/nodes/web01.example.com.yaml': "---\noverridden_loop: node value\n",
    'modules/lintmod/hiera.yaml': MOD_H,
    'modules/lintmod/data/common.yaml': "---\nlintmod::only: from the module\n",
}, [L(k) for k in ['syntax_in_text', 'syntax_in_nested_key', 'root_%{nope}', 'unknown_in_nested_key', 'unknown_in_text',
                   'unknown_then_alias', 'lookup_bad_key', 'scope_bad_key', 'unterminated_method', 'unquoted_method_arg',
                   'lookup_module_key', 'lookup_missing_sub', 'lookup_missing', 'alias_missing_in_list', 'to_role_db_only',
                   'cross_a', 'cross_b', 'db_loop_a', 'overridden_loop', 'loop_after_error', 'legacy_osfamily',
                   'legacy_unqualified', 'legacy_in_facts', 'structured_family', 'toplevel_custom', 'block_literal',
                   'folded_dq']],
  readme='evidence for the interpolation rules (H201-H205, H301-H302): syntax errors with surrounding text and in nested keys, '
         'root keys not interpolated, unknown methods, bad lookup keys, module keys, missing keys, loops that depend on the '
         'files a node reads, legacy facts absent from Facter 4 fact sets, tokens in block and folded scalars.')
