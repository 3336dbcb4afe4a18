#!/usr/bin/env ruby
# Conformance recorder: runs the real Puppet lookup engine over one case directory and writes the expected file.
# Extended copy of /work/shared/oracle/lookup-batch.rb (same node construction).
#
# usage: record.rb CASE_DIR OUT_FILE        (ORACLE_STRICT=error for the strict recording)
#
# CASE_DIR holds env/ (the environment directory), facts.json and lookups.jsonl (see tools/oracle/README.md).
# The environment is copied to <tmp>/code/environments/production; codedir = <tmp>/code, confdir/vardir are private
# empty dirs under <tmp> (global layer = Puppet's default config over an empty dir, i.e. empty). The process chdirs
# into the copied environment so relative file options (eyaml key paths) resolve against it.
# Every string in the output (error, warnings, explain) has the environment path replaced by <ENV> and the
# temp root by <TMP>, so files are byte-stable across runs.
#
# Each lookup line is run in isolation: the environment cache is cleared, a fresh node/compiler/topscope is built
# and warn-once state is reset, so a line's result and warnings never depend on earlier lines.
require 'puppet'
require 'json'
require 'tmpdir'
require 'fileutils'

case_dir, out_file = ARGV
unless case_dir && out_file
  warn 'usage: record.rb CASE_DIR OUT_FILE'
  exit 2
end
case_dir = File.expand_path(case_dir)
out_file = File.expand_path(out_file)
envname = 'production'

tmp = File.realpath(Dir.mktmpdir('oracle-'))
at_exit { FileUtils.rm_rf(tmp) }
codedir = File.join(tmp, 'code')
envdir = File.join(codedir, 'environments', envname)
FileUtils.mkdir_p(File.dirname(envdir))
FileUtils.cp_r(File.join(case_dir, 'env'), envdir)
Dir.chdir(envdir)

settings = ['--codedir', codedir, '--environment', envname,
            '--vardir', File.join(tmp, 'var'), '--confdir', File.join(tmp, 'conf'),
            '--basemodulepath', File.join(codedir, 'modules'),
            '--log_level', 'warning']
settings += ['--strict', ENV['ORACLE_STRICT']] if ENV['ORACLE_STRICT'] && !ENV['ORACLE_STRICT'].empty?
Puppet.initialize_settings(settings)

def scrub_paths(s, envdir, tmp)
  return s unless s.is_a?(String)
  s.gsub(envdir, '<ENV>').gsub(tmp, '<TMP>')
end

$captured = []
sink = Object.new
def sink.<<(msg)
  return unless [:warning, :err, :alert, :emerg, :crit].include?(msg.level)
  $captured << msg.message.to_s
end
Puppet::Util::Log.newdestination(Puppet::Test::LogCollector.new(sink))

raw = JSON.parse(File.read(File.join(case_dir, 'facts.json')))
raise 'facts.json does not hold a hash' unless raw.is_a?(Hash)
trusted_in = raw['trusted'].is_a?(Hash) ? raw['trusted'] : {}
server_facts = raw['server_facts'].is_a?(Hash) ? raw['server_facts'] : nil
facts = raw.reject { |k, _| k == 'trusted' || k == 'server_facts' }
certname = trusted_in['certname'] || facts['clientcert'] || (facts['networking'].is_a?(Hash) && facts['networking']['fqdn']) || facts['fqdn'] || 'oracle.example.com'

lookups = File.readlines(File.join(case_dir, 'lookups.jsonl'), chomp: true).reject { |l| l.strip.empty? }.map do |l|
  h = JSON.parse(l)
  raise "lookup line without key: #{l}" unless h.is_a?(Hash) && h.include?('key')
  h
end

# JSON-friendly rendering; non-string hash keys as Ruby inspect (as lookup-batch.rb). Non-finite floats have no JSON
# form: they are rendered as the strings "Infinity", "-Infinity", "NaN" (ruby_inspect keeps the truth).
def plain(v)
  case v
  when Hash then v.each_with_object({}) { |(k, x), h| h[k.is_a?(String) ? k : k.inspect] = plain(x) }
  when Array then v.map { |x| plain(x) }
  when Symbol then v.to_s
  when String then v.valid_encoding? ? v : v.dup.force_encoding('UTF-8').scrub
  when Float then v.finite? ? v : v.to_s
  when nil, true, false, Integer then v
  else v.to_s
  end
end

def one_lookup(spec, envname, certname, facts, server_facts, trusted_in)
  key = spec['key']
  merge = spec['merge']
  has_default = spec.include?('default')
  default = spec['default']
  explain = spec['explain'] == true

  Puppet.lookup(:environments).clear_all
  env = Puppet.lookup(:environments).get!(envname)
  node = Puppet::Node.new(certname)
  node.environment = env
  node.fact_merge(Puppet::Node::Facts.new(certname, facts.dup))
  node.add_server_facts(server_facts) if server_facts
  trusted = Puppet::Context::TrustedInformation.new(trusted_in.fetch('authenticated', 'remote'), certname,
                                                    trusted_in['extensions'] || {}, trusted_in['external'] || {})
  result = nil
  Puppet.override(trusted_information: trusted, current_environment: env) do
    Puppet[:code] = 'undef'
    compiler = Puppet::Parser::Compiler.new(node)
    compiler.compile do |catalog|
      scope = compiler.topscope
      explainer = explain ? Puppet::Pops::Lookup::Explainer.new(false, false) : nil
      inv = Puppet::Pops::Lookup::Invocation.new(scope, {}, {}, explainer)
      $captured = []
      $unique_warnings = {}
      Puppet::Util::Warnings.clear_warnings
      begin
        found = true
        v = Puppet::Pops::Lookup.lookup(key, nil, nil, false, merge, inv) { |_| found = false; default }
        result = if found
                   { 'key' => key, 'value' => plain(v), 'ruby_inspect' => v.inspect }
                 elsif has_default
                   { 'key' => key, 'value' => plain(v), 'ruby_inspect' => v.inspect, 'defaulted' => true }
                 else
                   { 'key' => key, 'not_found' => true }
                 end
      # ScriptError: e.g. LoadError for an ENC[GPG,...] value; SystemStackError: recursive YAML data (an alias
      # inside its own anchor) sends symkeys_to_string into endless recursion.
      rescue Puppet::Error, StandardError, ScriptError, SystemStackError => e
        inv.report_text { e.message } if explain && e.is_a?(Puppet::DataBinding::LookupError)
        result = { 'key' => key, 'error' => e.message, 'error_class' => e.class.name }
      end
      result['warnings'] = $captured.dup unless $captured.empty?
      result['explain'] = inv.explainer.explain if explain
      catalog
    end
  end
  result
end

lines = lookups.map do |spec|
  r = one_lookup(spec, envname, certname, facts, server_facts, trusted_in)
  %w[error explain].each { |f| r[f] = scrub_paths(r[f], envdir, tmp) if r.include?(f) }
  r['warnings'] = r['warnings'].map { |w| scrub_paths(w, envdir, tmp) } if r['warnings']
  JSON.generate(r)
end
File.write(out_file, lines.join("\n") + "\n")
