#!/usr/bin/env ruby
# frozen_string_literal: true
#
# Records what Psych (the YAML loader Puppet uses) makes of plain scalars, for the table test in
# tests/loader_yaml.rs. Each input `s` is loaded as Puppet's yaml_data loads a file:
#
#   YAML.safe_load("v: #{s}", permitted_classes: [Symbol], aliases: true)
#
# and the value of `v` is recorded as its class and inspect (and to_s for symbols), or the
# exception class and message.
#
# Usage: ruby tools/psych/record-scalars.rb > fixtures/psych/scalars.json
require 'yaml'
require 'json'

INPUTS = [
  # booleans: every case variant Psych's /i regexes accept, and near misses
  'true', 'True', 'TRUE', 'tRuE', 'false', 'False', 'FALSE', 'fAlSe',
  'yes', 'Yes', 'YES', 'yEs', 'no', 'No', 'NO', 'nO',
  'on', 'On', 'ON', 'oN', 'off', 'Off', 'OFF', 'oFf',
  'y', 'Y', 'n', 'N', 'yes!', 'truee', 'of', 'o', 't', 'f', 'nope', 'yess', 'onn', 'offf',
  # nulls
  '~', 'null', 'Null', 'NULL', 'nUlL', '', '~~', 'nil', 'None', '"~"',
  # integers: decimal, signs, separators
  '0', '1', '-1', '+1', '+12', '-0', '+0', '42', '1_000', '1,000', '1,000,000', '1__000',
  '1_', '_1', '1,', ',1', '1,,0', '1_0_0', '-1_000', '+1,000', '12_345_678',
  '9223372036854775807', '-9223372036854775808', '9223372036854775808', '99999999999999999999',
  # integers: radix forms
  '0755', '0o17', '0o755', '017', '08', '09', '00', '000', '0_7', '0,7', '-017', '+017', '0_',
  '0x1F', '0x1f', '0X1F', '-0x1F', '+0x1F', '0x', '0x_', '0x1_F', '0x1,F', '0xG', '0xfffffffffffffffff',
  '0b101', '0B101', '-0b101', '+0b101', '0b', '0b_', '0b1_0', '0b102', '0b1,1',
  # sexagesimal
  '1:20', '12:30:00', '1:2', '1:60', '1:59', '1:5:5', '1:20:30:40', '-1:30', '+1:30', '1_0:20',
  '190:20:30', '1:20.5', '1:30.', '12:30:00.5', '1:30.5_5', '-1:30.5', '1:2:3.25', '1:60.5',
  ':30', '1:', '1::2', '1:2a',
  # floats
  '1.0', '1.5', '-1.5', '+1.5', '.5', '-.5', '+.5', '12.', '-12.', '1.', '0.1', '3.14159',
  '1_000.5', '1,000.5', '1.0e+3', '1.0e-3', '1.0E+3', '1.0e3', '1e3', '1e+3', '1E3', '1.e+3',
  '.e+3', '+.e+3', '1.0e+', '1.5e+10', '1.0e+20', '1.0e-5', '1.0e+999', '123456789012345678.0',
  '1.2.3', '1._5', '1_.5', '0.1_2', '.', '-.', '+.', '..', '1..2', '00.5', '1,.5',
  # specials
  '.inf', '.Inf', '.INF', '.iNf', '+.inf', '-.inf', '-.Inf', '-.INF', '.nan', '.NaN', '.NAN',
  'inf', '-inf', 'nan', 'NaN', '.infinity', '+.nan', '-.nan',
  # dates and times
  '2001-12-14', '2001-12-14t21:59:43.10-05:00', '2001-12-14 21:59:43.10 -5', '2001-12-15T02:59:43.1Z',
  '2001-12-15 2:59:43.10', '2002-12-14', '2001-1-1', '2001-01-01', '2001-13-01', '2001-12-32',
  '2001-02-30', '2001-12-31', '2001-12-3', '2001-12-03', '201-12-14', '20011-12-14', '2001-012-14',
  '2001-12-14 21:59', '2001-12-14T21:59:43', '2001-12-14t21:59:43', '2001-12-14  21:59:43',
  '2001-12-14 21:59:43Z', '2001-12-14 21:59:43 Z', '2001-12-14 21:59:43+05:30', '2001-12-14 21:59:43+0530',
  '2001-12-14 21:59:43+5', '2001-12-14 21:59:43.', '2001-12-14 21:59:43.123456789',
  '-2001-12-14 21:59:43', '-2001-12-14', '2001-12-14x', '2001/12/14', '14-12-2001', '2001-12-14 25:00:00',
  '2001-12-14T21:59:43+05:3', '1:00:00Z',
  # symbols
  ':a', ':abc', ':"a b"', ":'a b'", '::a', ':1', ':a:b', ':"a"b', ':"::x"', ':"', ':""', ":'",
  ':yes', ':-', ':@a', ':a?', ':A', ':é', ':', ':"a"b"',
  # strings that look special
  '<<', '=', '!', '@', '-a', '-', '--', '.a', 'a.b', '1a', 'a1', '1 2', '1-2', '1.0.0', 'v1.0',
  '0.0.0.0', '192.168.0.1', '10.0.0.0/8', '1e', '1E5', '0e0', '1.0e0', '0xZZ', '1.0f', '1d', '1/2',
  '$foo', '%foo', '^a', '(a)', '{}', '[]', 'a,b', 'a b c', 'hello world', 'foo::bar', '::foo',
  'a: b', 'a :b', "a 'b'", 'a "b"', '~/path', '/etc/hosts', 'C:\\temp', 'é', 'ébc', '中文', '😀',
  '😀😀', 'ª', 'Ⅻ', '_', '_a', '__', 'a_b', 'TRUE!', 'Y_', 'n/a', 'N/A', 'nul', 'nulll', 'on1',
  # trailing spaces, tabs and comments in values
  '1 ', 'true  ', 'a # comment', 'a#b', '1 # one', '1,000 ', "a\tb", "1\t",
  # multi-line plain scalars (folded: a blank line becomes a newline)
  "a\n  b", "a\n\n  b", "1\n\n  2", "n\n\n  null", "y\n\n  on", "~\n\n  ~", "yes\n\n  x",
  "on\n\n  on", "null\n\n  n", "o\n\n  no", "1\n  2", "1:2\n  3",
  # tagged scalars
  '!!str 1', '!!str true', '!!str ~', '!!int 12', '!!int "12"', '!!int abc', '!!int 0o17',
  '!!float 1', '!!float "1.5"', '!!float 1e3', '!!float abc', '!!float ~', '!!float 0x1A',
  '!!float 1_000', '!!float true', '!!float :a', '!!bool yes', '!!null ""', '!!binary aGVsbG8=',
  '!binary aGVsbG8=', "!!binary |\n  aGVs\n  bG8=", '!!binary "aGVs bG8"', '!!binary aGVsbG8',
  '!foo 1', '!foo "1"', '! 1', '! "1"', '! a', "!<tag:yaml.org,2002:str> 1", '!str 1',
  '!ruby/string 1', '!ruby/string:Foo 1', '!ruby/sym foo', '!ruby/symbol foo', '!ruby/symbol "a b"',
  '!ruby/object:Foo 1', '!ruby/object:BigDecimal 1', '!ruby/object:DateTime 2001-12-14',
  '!ruby/object:Complex 1', '!ruby/object:Rational 1', '!ruby/regexp /a/', '!ruby/range 1..2',
  '!ruby/class Foo', '!ruby/class ""', '!ruby/module Kernel', '!ruby/encoding UTF-8',
  '!ruby/encoding Nope', '!!timestamp 2001-12-14', '!!str 2001-12-14', '"2001-12-14"',
  "'2001-12-14'", '"1"', "'true'", '"~"', "'<<'",
  # set, omap, seq and map tags on collections
  '!!set {a: 1}', '!set {a: 1}', '!!omap [{a: 1}, {b: 2}]', '!!omap [{a: 1}, {a: 2}]',
  '!!omap {a: 1}', '!!omap [a]', '!!omap [{a: 1, b: 2}]', '!!omap [[1, 2]]', '!!omap [{}]',
  '!!seq [1]', '!!map {a: 1}', '!foo {a: 1}', '!foo [1]', '!ruby/object:Foo {a: 1}',
  '!ruby/object {a: 1}', '!ruby/object:Hash {a: 1}', '!ruby/struct:Foo {a: 1}', '!ruby/struct {a: 1}',
  '!ruby/array:Foo [1]', '!seq:Foo [1]', '!ruby/array: [1]', '!ruby/range {begin: 1}',
  '!ruby/exception {message: x}', '!ruby/exception:Foo {}', '!ruby/hash:Foo {}', '!map:Foo {}',
  '!ruby/hash-with-ivars {elements: {a: 1}}', '!ruby/marshalable:Foo {}', '!!str {str: x}',
  '!!str {}', '!ruby/object:Foo [1]', '!ruby/object:Foo 2001-12-14',
].freeze

def describe(value)
  h = { 'class' => value.class.name, 'inspect' => value.inspect }
  h['to_s'] = value.to_s if value.is_a?(Symbol)
  if value.is_a?(String) && value.encoding == Encoding::BINARY
    h['bytes'] = value.bytes
  end
  h
end

rows = INPUTS.map do |s|
  row = { 'input' => s }
  begin
    data = YAML.safe_load("v: #{s}", permitted_classes: [Symbol], aliases: true)
    if data.is_a?(Hash) && data.key?('v')
      row['result'] = describe(data['v'])
    else
      row['result'] = { 'document' => describe(data) }
    end
  rescue Exception => e # rubocop:disable Lint/RescueException
    row['error'] = { 'class' => e.class.name, 'message' => e.message }
  end
  row
end

puts JSON.pretty_generate(
  'recorded_with' => "ruby #{RUBY_VERSION}, psych #{Psych::VERSION}, libyaml #{Psych::LIBYAML_VERSION}",
  'how' => 'YAML.safe_load("v: #{input}", permitted_classes: [Symbol], aliases: true) and the value of v',
  'rows' => rows
)
