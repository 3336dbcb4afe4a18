#!/usr/bin/env ruby
# Puppet 7's own lookup rate, first pass and repeated, for tools/realrepos/rate.sh.
#
# usage: puppet-rate.rb CODEDIR ENVIRONMENT FACTS.json KEYS_FILE PASSES
#
# Sets Puppet up as /work/shared/oracle/lookup-batch.rb does (private confdir and vardir, the
# facts as node facts and top-scope variables, trusted data, one compiler and its top scope),
# then looks every key up PASSES times, each lookup in a new Invocation, and prints one JSON
# line: {"keys": N, "first_s": S, "again_s": [S, ...]}.
#
# The first pass is what lookup-batch.rb times: it reads and parses hiera.yaml and every data
# file the node's hierarchies name. Later passes find them in Puppet's caches (the lookup
# adapter's data providers, the environment's file data cache), which is the state of a Puppet
# server compiling one more node of an environment it has served: the like-for-like partner of
# hieralint's "warm" figure (engines that hold the files).
require 'puppet'
require 'json'
require 'tmpdir'

codedir, envname, facts_file, keys_file, passes = ARGV
abort 'usage: puppet-rate.rb CODEDIR ENVIRONMENT FACTS.json KEYS_FILE PASSES' unless passes
codedir = File.expand_path(codedir)
dir = Dir.mktmpdir('puppet-rate-')
at_exit { FileUtils.rm_rf(dir) }
Puppet.initialize_settings(['--codedir', codedir, '--environment', envname,
                            '--vardir', File.join(dir, 'var'), '--confdir', File.join(dir, 'conf'),
                            '--basemodulepath', File.join(codedir, 'modules'),
                            '--log_level', 'err'])
raw = JSON.parse(File.read(facts_file))
trusted_in = raw['trusted'].is_a?(Hash) ? raw['trusted'] : {}
facts = raw.reject { |k, _| %w[trusted server_facts].include?(k) }
name = trusted_in['certname'] || facts['clientcert'] ||
       (facts['networking'].is_a?(Hash) && facts['networking']['fqdn']) || facts['fqdn'] ||
       'oracle.example.com'
keys = File.readlines(keys_file, chomp: true).reject(&:empty?)

env = Puppet.lookup(:environments).get!(envname)
node = Puppet::Node.new(name)
node.environment = env
node.fact_merge(Puppet::Node::Facts.new(name, facts))
trusted = Puppet::Context::TrustedInformation.new(trusted_in.fetch('authenticated', 'remote'), name,
                                                  trusted_in['extensions'] || {}, trusted_in['external'] || {})
clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
times = []
Puppet.override(trusted_information: trusted, current_environment: env) do
  Puppet[:code] = 'undef'
  compiler = Puppet::Parser::Compiler.new(node)
  compiler.compile do |catalog|
    scope = compiler.topscope
    passes.to_i.times do
      t = clock.call
      keys.each do |key|
        inv = Puppet::Pops::Lookup::Invocation.new(scope, {}, {}, nil)
        begin
          Puppet::Pops::Lookup.lookup(key, nil, nil, true, nil, inv) { |_| nil }
        rescue Puppet::Error, StandardError
          nil
        end
      end
      times << clock.call - t
    end
    catalog
  end
end
puts JSON.generate({ 'keys' => keys.size, 'first_s' => times.first, 'again_s' => times.drop(1) })
