#!/usr/bin/env ruby
# Records what Puppet 7.23 says about one hiera.yaml case (fixtures/hiera-config/<case>/).
#
# usage: record-config-case.rb CASE_DIR
#
# CASE_DIR holds hiera.yaml (and data files) plus expected.json, whose input fields are read:
#   "layer":  "global" | "environment" | "module:<name>"   (where hiera.yaml is installed)
#   "key":    the key to look up (default "x"; module cases look up "<name>::x")
#   "strict": optional Puppet[:strict] ("off" | "warning" | "error"; default: Puppet 7 default)
# and whose "puppet" field is replaced by what Puppet did:
#   {"outcome": "value"|"not_found"|"error", "value": V, "error": full message,
#    "warnings": [messages]}
# Paths are normalised: the directory holding hiera.yaml becomes "<root>".
require 'json'
require 'tmpdir'
require 'fileutils'

case_dir = ARGV[0] or abort('usage: record-config-case.rb CASE_DIR')
case_dir = File.expand_path(case_dir)
spec_path = File.join(case_dir, 'expected.json')
spec = JSON.parse(File.read(spec_path))
layer = spec.fetch('layer', 'environment')
key = spec.fetch('key', 'x')

tmp = Dir.mktmpdir('config-case-')
at_exit { FileUtils.rm_rf(tmp) }
tmp = File.realpath(tmp)
codedir = File.join(tmp, 'code')
envdir = File.join(codedir, 'environments', 'production')
FileUtils.mkdir_p(File.join(envdir, 'modules'))
global_root = File.join(tmp, 'conf')
FileUtils.mkdir_p(global_root)

root =
  case layer
  when 'global' then global_root
  when 'environment' then envdir
  when /\Amodule:(\w+)\z/ then File.join(envdir, 'modules', $1)
  else abort("unknown layer #{layer}")
  end
FileUtils.mkdir_p(root)
Dir.children(case_dir).each do |c|
  next if c == 'expected.json'
  FileUtils.cp_r(File.join(case_dir, c), root)
end

require 'puppet'
settings = ['--codedir', codedir, '--environment', 'production',
            '--vardir', File.join(tmp, 'var'), '--confdir', global_root,
            '--hiera_config', File.join(global_root, 'hiera.yaml'),
            '--basemodulepath', File.join(codedir, 'modules'),
            '--log_level', 'warning']
settings += ['--strict', spec['strict']] if spec['strict']
Puppet.initialize_settings(settings)

warnings = []
sink = Object.new
sink.define_singleton_method(:<<) do |msg|
  warnings << msg.message.to_s if [:warning, :err, :alert, :emerg, :crit].include?(msg.level)
end
Puppet::Util::Log.newdestination(Puppet::Test::LogCollector.new(sink))

norm = lambda do |s|
  s.to_s.gsub(root, '<root>').gsub(tmp, '<tmp>')
end

# The facts every case sees (the Rust tests do not need them: they only matter for which
# levels Puppet reaches, e.g. mapped_paths over facts.roles).
FACTS = { 'role' => 'web', 'roles' => %w[web db], 'osfamily' => 'Debian', 'os' => { 'family' => 'Debian' } }

result = {}
env = Puppet.lookup(:environments).get!('production')
node = Puppet::Node.new('node.example.com')
node.environment = env
node.fact_merge(Puppet::Node::Facts.new('node.example.com', Marshal.load(Marshal.dump(FACTS))))
trusted = Puppet::Context::TrustedInformation.new('remote', 'node.example.com', {}, {})
Puppet.override(trusted_information: trusted, current_environment: env) do
  Puppet[:code] = 'undef'
  compiler = Puppet::Parser::Compiler.new(node)
  compiler.compile do |catalog|
    scope = compiler.topscope
    inv = Puppet::Pops::Lookup::Invocation.new(scope, {}, {}, nil)
    begin
      found = true
      v = Puppet::Pops::Lookup.lookup(key, nil, nil, true, nil, inv) { |_| found = false; nil }
      result = found ? { 'outcome' => 'value', 'value' => v } : { 'outcome' => 'not_found' }
    rescue Exception => e
      result = { 'outcome' => 'error', 'error' => norm.call(e.message), 'error_class' => e.class.name }
    end
    catalog
  end
end
result['warnings'] = warnings.map { |w| norm.call(w) }
spec['puppet'] = result
File.write(spec_path, JSON.pretty_generate(spec) + "\n")
puts "#{File.basename(case_dir)}: #{result['outcome']} #{result['error'] && result['error'].lines.first.to_s.strip}"
