#!/usr/bin/env ruby
# frozen_string_literal: true
#
# Reads a JSON list of YAML texts on stdin and records what Psych (Puppet's YAML loader) makes of
# each, as Puppet's yaml_data reads a file: YAML.safe_load(text, permitted_classes: [Symbol],
# aliases: true). Output: {"rows": [{"yaml", "inspect"} or {"yaml", "error": {"class",
# "message"}}]}.
require 'yaml'
require 'json'

texts = JSON.parse($stdin.read)
rows = texts.map do |text|
  row = { 'yaml' => text }
  begin
    row['inspect'] = YAML.safe_load(text, permitted_classes: [Symbol], aliases: true).inspect
  rescue Exception => e # rubocop:disable Lint/RescueException
    row['error'] = { 'class' => e.class.name, 'message' => e.message.lines.first.chomp }
  end
  row
end
puts JSON.pretty_generate(
  'recorded_with' => "ruby #{RUBY_VERSION}, psych #{Psych::VERSION}, libyaml #{Psych::LIBYAML_VERSION}",
  'how' => "tools/psych/#{ARGV[0] || 'mutate-corpus'}.py | ruby tools/psych/record-corpus.rb #{ARGV[0]}".strip,
  'rows' => rows
)
