#!/usr/bin/env ruby
# frozen_string_literal: true
#
# Records what Psych (Puppet's YAML loader) makes of whole documents that use anchors, aliases,
# merge keys, duplicate keys, several documents and empty streams, for tests/loader_yaml.rs.
# Each document is loaded as Puppet's yaml_data does:
#
#   YAML.safe_load(text, permitted_classes: [Symbol], aliases: true)
#
# Usage: ruby tools/psych/record-structures.rb > fixtures/psych/structures.json
require 'yaml'
require 'json'

CASES = {
  'alias_scalar' => "a: &x 1\nb: *x\n",
  'alias_mapping' => "base: &b {k: 1, j: 2}\ncopy: *b\n",
  'alias_sequence_flow' => "s: &s [1, 2]\nt: [*s, *s]\n",
  'merge_single' => "base: &b {a: 1, b: 2}\nm:\n  <<: *b\n  c: 3\n",
  'merge_explicit_after_wins' => "base: &b {a: 1, b: 2}\nm:\n  <<: *b\n  a: 9\n",
  'merge_explicit_before_loses' => "base: &b {a: 1, b: 2}\nm:\n  a: 9\n  <<: *b\n",
  'merge_sequence_order' => "x: &x {a: 1, b: 1}\ny: &y {b: 2, c: 2}\nm:\n  <<: [*x, *y]\n",
  'merge_sequence_then_explicit' => "x: &x {a: 1}\ny: &y {b: 2}\nm:\n  z: 0\n  <<: [*x, *y]\n  a: 9\n",
  'merge_inline_mapping' => "m:\n  <<: {a: 1, b: 2}\n  b: 3\n",
  'merge_alias_to_scalar' => "s: &s 1\nm:\n  <<: *s\n  a: 2\n",
  'merge_sequence_with_scalar' => "x: &x {a: 1}\nm:\n  <<: [*x, 2]\n  b: 3\n",
  'merge_plain_scalar' => "m:\n  <<: 1\n",
  'merge_alias_to_sequence' => "s: &s [{a: 1}]\nm:\n  <<: *s\n",
  'merge_quoted_key' => "x: &x {a: 1}\nm:\n  \"<<\": *x\n",
  'merge_single_quoted_key' => "x: &x {a: 1}\nm:\n  '<<': *x\n",
  'merge_str_tagged_key' => "x: &x {a: 1}\nm:\n  !!str <<: *x\n",
  'merge_twice' => "x: &x {a: 1, b: 1}\ny: &y {b: 2}\nm:\n  <<: *x\n  <<: *y\n",
  'merge_nested' => "x: &x {a: 1}\ny: &y\n  <<: *x\n  b: 2\nm:\n  <<: *y\n  c: 3\n",
  'merge_flow' => "x: &x {a: 1, b: 2}\nm: {<<: *x, b: 3}\n",
  'merge_sequence_inline_and_alias' => "x: &x {a: 1}\nm:\n  <<: [*x, {a: 2, b: 2}]\n",
  'merge_with_duplicates_inside' => "x: &x {a: 1, b: 2, a: 3}\nm:\n  <<: *x\n",
  'merge_in_sequence_item' => "x: &x {a: 1}\nl:\n  - <<: *x\n    b: 2\n  - c: 3\n",
  'merge_explicit_before_and_after' => "x: &x {a: 1, b: 1}\nm:\n  b: 0\n  <<: *x\n  a: 2\n",
  'merge_root' => "<<: {a: 1}\nb: 2\n",
  'duplicate_keys' => "a: 1\nb: 2\na: 3\n",
  'duplicate_keys_three' => "a: 1\nb: 2\na: 3\nc: 4\na: 5\n",
  'duplicate_typed_keys' => "1: int\n\"1\": str\n1.0: float\n1: int2\n",
  'duplicate_null_keys' => "~: a\nnull: b\n",
  'duplicate_bool_keys' => "yes: a\ntrue: b\non: c\n",
  'duplicate_nested' => "m:\n  a: 1\n  a: 2\nm:\n  b: 3\n",
  'duplicate_flow' => "{a: 1, a: 2}\n",
  'anchor_redefined' => "a: &x 1\nb: &x 2\nc: *x\n",
  'alias_as_key' => "k: &k key\n*k : v\n",
  'anchor_on_key' => "&k a: 1\nb: *k\n",
  'complex_key' => "? [a, b]\n: v\n",
  'recursive_alias' => "a: &a [1, *a]\n",
  'second_document' => "a: 1\n---\nb: 2\n",
  'second_document_broken' => "a: 1\n---\n- [unclosed\n",
  'explicit_end_then_document' => "a: 1\n...\n---\nb: 2\n",
  'empty' => '',
  'only_comments' => "# just a comment\n# another\n",
  'only_document_start' => "---\n",
  'only_tilde' => "~\n",
  'document_start_tilde' => "--- ~\n",
  'only_document_end' => "...\n",
  'blank_lines' => "\n\n  \n",
  'top_level_sequence' => "- a\n- b\n",
  'top_level_scalar' => "hello\n",
  'symbol_keys' => ":a: 1\n:b: :c\n",
  'null_values' => "a:\nb: ~\nc: null\n",
  'omap_sequence' => "m: !!omap\n  - a: 1\n  - b: 2\n  - a: 3\n",
  'binary_value' => "b: !!binary |\n  aGVsbG8gd29y\n  bGQ=\n",
  'date_after_syntax_ok' => "a: 1\nd: 2001-12-14\n",
  'date_in_second_document' => "a: 1\n---\nd: 2001-12-14\n",
  'folded_and_literal' => "f: >\n  a\n  b\n\n  c\nl: |-\n  x\n  y\n",
  'multiline_plain' => "p: a\n  b\n\n  c\n",
  'quoted_escapes' => "d: \"a\\tb\\u00e9\\n\"\ns: 'it''s'\n",
  'crlf' => "a: 1\r\nb: [x, y]\r\n",
  'tabs_in_value' => "a: x\ty\n",
}.freeze

def record(text)
  data = YAML.safe_load(text, permitted_classes: [Symbol], aliases: true)
  { 'class' => data.class.name, 'inspect' => data.inspect }
rescue Exception => e # rubocop:disable Lint/RescueException
  { 'error' => { 'class' => e.class.name, 'message' => e.message.lines.first.chomp } }
end

rows = CASES.map { |name, text| { 'name' => name, 'yaml' => text }.merge(record(text)) }
puts JSON.pretty_generate(
  'recorded_with' => "ruby #{RUBY_VERSION}, psych #{Psych::VERSION}, libyaml #{Psych::LIBYAML_VERSION}",
  'how' => 'YAML.safe_load(yaml, permitted_classes: [Symbol], aliases: true)',
  'rows' => rows
)
