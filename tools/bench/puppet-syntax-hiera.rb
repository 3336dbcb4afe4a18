#!/usr/bin/env ruby
# Runs puppet-syntax's Hiera check on a list of files: the core of its `syntax:hiera` rake task
# (what puppetlabs_spec_helper's `rake syntax` runs), calling the installed gem's own
# PuppetSyntax::Hiera#check (lib/puppet-syntax/hiera.rb), one YAML.load_file per file plus the
# key-name and eyaml checks.
#
# usage: ruby puppet-syntax-hiera.rb FILE_LIST
#   FILE_LIST: one path a line (the rake task expands its hieradata_paths globs into such a list)
# Prints the gem's messages; exits 1 when there are any, like the rake task.
require 'puppet-syntax'

# The key-name check is on by default in puppetlabs_spec_helper since
# puppetlabs/puppetlabs_spec_helper#441 (2024), so the benchmark runs it too.
PuppetSyntax.check_hiera_keys = true

list = ARGV.fetch(0) { abort 'usage: puppet-syntax-hiera.rb FILE_LIST' }
files = File.readlines(list, chomp: true).reject(&:empty?)
errors = PuppetSyntax::Hiera.new.check(files)
puts errors
exit(errors.empty? ? 0 : 1)
