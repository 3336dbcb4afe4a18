#!/usr/bin/env ruby
# frozen_string_literal: true
#
# Records what Psych (Puppet's YAML loader) makes of each *.yaml file in a directory, reading it
# as Puppet's yaml_data does (`EnvironmentContext#cached_file_data`: Puppet::FileSystem.read
# with 'utf-8', which keeps a byte order mark, then YAML.safe_load(content, permitted_classes:
# [Symbol], aliases: true)). Until session 27 this read with 'bom|utf-8' (what
# `Puppet::Util::Yaml.safe_load_file` does, but Hiera does not use it), which hid that libyaml
# counts a leading mark as a column.
#
# For a failure, the exception class and message are kept, and for a Psych::SyntaxError also
# the line and column Psych reports (libyaml's context mark, 1-based).
#
# Usage: ruby tools/psych/record-files.rb fixtures/yaml/malformed > fixtures/yaml/malformed/psych.json
require 'yaml'
require 'json'

dir = ARGV.fetch(0)
rows = Dir.glob(File.join(dir, '*.yaml')).sort.map do |path|
  row = { 'file' => File.basename(path) }
  begin
    text = File.read(path, encoding: 'utf-8')
    data = YAML.safe_load(text, permitted_classes: [Symbol], aliases: true)
    row['class'] = data.class.name
    row['inspect'] = data.inspect
  rescue Exception => e # rubocop:disable Lint/RescueException
    err = { 'class' => e.class.name, 'message' => e.message.lines.first.chomp }
    if e.is_a?(Psych::SyntaxError)
      err['line'] = e.line
      err['column'] = e.column
    end
    row['error'] = err
  end
  row
end
puts JSON.pretty_generate(
  'recorded_with' => "ruby #{RUBY_VERSION}, psych #{Psych::VERSION}, libyaml #{Psych::LIBYAML_VERSION}",
  'how' => "YAML.safe_load(File.read(file, encoding: 'utf-8'), permitted_classes: [Symbol], aliases: true)",
  'rows' => rows
)
