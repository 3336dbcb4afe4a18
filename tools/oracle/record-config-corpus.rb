#!/usr/bin/env ruby
# Records Puppet 7.23's validation of many small hiera.yaml texts, in one process, without
# lookups: fixtures/hiera-config/corpus.json. It exercises the struct assertion (every key of
# the v5/v4/v3 schemas against values of every shape) and the validation-time semantic checks.
#
# usage: record-config-corpus.rb OUT.json
#
# Each case runs what HieraConfig.create does up to validation: Puppet::Util::Yaml.safe_load,
# the not-a-hash fallback, the version dispatch, and HieraConfigV<n>.new with an owner of the
# layer's provider class (validate_config only asks `owner.is_a?`). Provider creation (duplicate
# names, interpolation) needs lookups and is covered by the fixture cases instead.
require 'json'
require 'tmpdir'
require 'puppet'

out = ARGV[0] or abort('usage: record-config-corpus.rb OUT.json')
tmp = Dir.mktmpdir('config-corpus-')
at_exit { FileUtils.rm_rf(tmp) }
Puppet.initialize_settings(['--confdir', File.join(tmp, 'conf'), '--vardir', File.join(tmp, 'var'),
                            '--codedir', File.join(tmp, 'code')])
warnings = []
sink = Object.new
sink.define_singleton_method(:<<) { |m| warnings << m.message.to_s if m.level == :warning }
Puppet::Util::Log.newdestination(Puppet::Test::LogCollector.new(sink))

L = Puppet::Pops::Lookup
VALUES = {
  'int' => '5', 'empty_string' => '""', 'string' => 'x', 'list' => '[x]', 'empty_list' => '[]',
  'hash' => '{a: 1}', 'empty_hash' => '{}', 'null' => '~', 'bool' => 'true', 'symbol' => ':sym',
  'float' => '1.5', 'list_empty_string' => '[""]', 'list_int' => '[1]', 'list3' => '[a, b, c]',
  'list_mixed' => '["a", 5, ""]', 'list_hash' => '[{a: 1}]', 'nonstring_key_hash' => '{1: 2}'
}.freeze
V5_ENTRY_KEYS = %w[name options data_hash lookup_key hiera3_backend v4_data_hash data_dig path paths
                   glob globs uri uris mapped_paths datadir].freeze

cases = []
add = ->(layer, yaml, note) { cases << { 'layer' => layer, 'note' => note, 'yaml' => yaml } }

# v5 entry keys x value shapes (the rest of the entry valid).
V5_ENTRY_KEYS.each do |k|
  VALUES.each do |vn, v|
    base = k == 'name' ? {} : { 'name' => 'L' }
    fn = %w[data_hash lookup_key hiera3_backend v4_data_hash data_dig].include?(k) ? '' : "    data_hash: yaml_data\n"
    body = base.map { |bk, bv| "    #{bk}: #{bv}\n" }.join
    yaml = "version: 5\nhierarchy:\n  - #{k}: #{v}\n#{body}#{fn}"
    add.call('environment', yaml, "entry #{k} = #{vn}")
  end
end
# defaults keys x value shapes.
%w[data_hash lookup_key data_dig datadir options hiera3_backend path].each do |k|
  VALUES.each do |vn, v|
    add.call('environment', "version: 5\ndefaults:\n  #{k}: #{v}\n", "defaults #{k} = #{vn}")
  end
end
# top-level keys x value shapes.
%w[defaults hierarchy plan_hierarchy default_hierarchy datadir backends].each do |k|
  VALUES.each do |vn, v|
    add.call('module:m', "version: 5\n#{k}: #{v}\n", "top #{k} = #{vn}")
  end
end
# version shapes.
['5', '"5"', '5.0', '5.9', '" 5"', '"5abc"', '4', '3', '6', '0', '-5', '"abc"', '~', 'false', ':five', '[5]',
 '{a: 1}', 'true', '.nan', '.inf', '1_0', '"1_0"', '05'].each do |v|
  add.call('environment', "version: #{v}\n", "version #{v}")
end
# option names and values.
['a', 'a:b', 'ab', 'a-b_c', 'Z9', '_x', 'b-', '1a', '"a b"', '"a:"', '"ab:c"', 'a_', '"é"', '"a.b"'].each do |n|
  add.call('environment', "version: 5\nhierarchy:\n  - name: L\n    lookup_key: f\n    options:\n      #{n}: 1\n", "option name #{n}")
end
['1', 'x', '~', ':s', '[1, [2, {a: :s}]]', '{k: v}', "{'': 1}", '{1: 2}', '[:s, :t]', '{a: [{b: :s}]}', '1.5', '[]', '{}'].each do |v|
  add.call('environment', "version: 5\nhierarchy:\n  - name: L\n    lookup_key: f\n    options:\n      o: #{v}\n", "option value #{v}")
end
# semantic checks, in every layer.
{
  'no function, defaults datadir only' => "version: 5\ndefaults:\n  datadir: d\nhierarchy:\n  - name: A\n    path: a.yaml\n",
  'no function, defaults empty' => "version: 5\ndefaults: {}\nhierarchy:\n  - name: A\n    path: a.yaml\n",
  'no function, defaults null' => "version: 5\ndefaults: ~\nhierarchy:\n  - name: A\n    path: a.yaml\n",
  'two functions' => "version: 5\nhierarchy:\n  - name: A\n    data_hash: a\n    data_dig: b\n",
  'three functions incl v4' => "version: 5\nhierarchy:\n  - name: A\n    v4_data_hash: a\n    lookup_key: b\n    hiera3_backend: c\n",
  'two functions in defaults' => "version: 5\ndefaults:\n  lookup_key: a\n  data_hash: b\n",
  'two locations' => "version: 5\nhierarchy:\n  - name: A\n    uri: a\n    mapped_paths: [a, b, c]\n",
  'reserved path' => "version: 5\nhierarchy:\n  - name: A\n    lookup_key: f\n    options: {path: x, uri: y}\n",
  'reserved uri in defaults' => "version: 5\ndefaults:\n  lookup_key: f\n  options: {uri: y, path: x}\n",
  'hiera3_backend custom' => "version: 5\nhierarchy:\n  - name: A\n    hiera3_backend: consul\n",
  'hiera3_backend json' => "version: 5\nhierarchy:\n  - name: A\n    hiera3_backend: json\n    path: x\n",
  'hiera3_backend hocon quoted' => "version: 5\nhierarchy:\n  - name: A\n    hiera3_backend: 'hocon'\n",
  'default_hierarchy' => "version: 5\ndefault_hierarchy:\n  - name: A\n    path: a.yaml\n",
  'default_hierarchy bad entry' => "version: 5\ndefault_hierarchy:\n  - name: A\n    data_hash: a\n    lookup_key: b\n",
  'plan_hierarchy bad entry' => "version: 5\nplan_hierarchy:\n  - name: A\n    path: a\n    glob: b\n",
  'v4 ok' => "version: 4\n",
  'v4 full' => "version: 4\ndatadir: d\nhierarchy:\n  - name: a\n    backend: yaml\n    paths: [x, y]\n",
  'v4 bad' => "version: 4\ndatadir: ''\nhierarchy:\n  - {name: a, backend: 5, path: [x], paths: [''], foo: 1}\n  - {}\n",
  'v4 options' => "version: 4\nhierarchy:\n  - {name: a, backend: yaml, options: {}}\n",
  'v3 flow symbol (YAML error)' => ":yaml: {:datadir: d}\n",
  'v3 ok' => ":backends: [yaml, eyaml]\n:yaml:\n  :datadir: d\n:eyaml:\n  :datadir: d\n  :pkcs7_private_key: k\n:hierarchy: [a, b]\n",
  'v3 backend config not hash' => ":backends: yaml\n:yaml: d\n",
  'v3 backend config bad key' => ":backends: yaml\n:yaml: {'': d}\n",
  'v3 unknown key' => ":backends: yaml\n:datadir: d\n",
  'v3 logger' => ":logger: ''\n",
  'v3 hierarchy empty string' => ":hierarchy: ''\n",
  'v3 hierarchy list of hash' => ":hierarchy: [{a: 1}, b]\n",
  'v3 merge_behavior int' => ":merge_behavior: 5\n",
  'v3 dmo not hash' => ":deep_merge_options: x\n",
  'v3 dmo key' => ":deep_merge_options: {'': true, a: false, b: x}\n",
  'v3 version string' => "version: '3'\n:backends: yaml\n",
  'v3 backends nested' => ":backends: [[yaml, json]]\n",
  'v3 backends empty list' => ":backends: []\n",
  'not a hash list' => "- a\n",
  'not a hash scalar' => "hello\n",
  'not a hash empty' => "",
  'not a hash comment' => "# nothing\n",
  'not a hash false' => "--- false\n",
  'symbol keys' => ":version: 5\n:hierarchy:\n  - :name: A\n    :path: a.yaml\n",
  'string and symbol version' => "version: ~\n:version: 5\n",
  'duplicate key last wins' => "version: 5\nhierarchy: 5\nhierarchy: []\n",
  'merge key entry' => "version: 5\nx: &b {data_hash: yaml_data}\nhierarchy:\n  - <<: *b\n    name: A\n    path: a\n"
}.each do |note, yaml|
  %w[global environment module:m].each { |layer| add.call(layer, yaml, note) }
end

def owner_for(layer)
  case layer
  when 'global' then L::GlobalDataProvider.allocate
  when 'environment' then L::EnvironmentDataProvider.allocate
  else L::ModuleDataProvider.allocate
  end
end

results = cases.each_with_index.map do |c, i|
  dir = File.join(tmp, "c#{i}")
  FileUtils.mkdir_p(dir)
  path = Pathname(File.join(dir, 'hiera.yaml'))
  File.write(path, c['yaml'])
  warnings.clear
  Puppet::Util::Log.close_all rescue nil
  Puppet::Util::Log.newdestination(Puppet::Test::LogCollector.new(sink))
  Puppet.settings[:strict] = :warning
  $unique_warnings = {}
  res = {}
  begin
    parsed = Puppet::Util::Yaml.safe_load(File.read(path), [Symbol], path.to_s)
    unless parsed.is_a?(Hash)
      Puppet.warning("#{path}: File exists but does not contain a valid YAML hash. Falling back to Hiera version 3 default config")
      parsed = L::HieraConfigV3::DEFAULT_CONFIG_HASH
    end
    version = parsed['version'] || parsed[:version]
    version = version.nil? ? 3 : version.to_i
    klass = { 5 => L::HieraConfigV5, 4 => L::HieraConfigV4, 3 => L::HieraConfigV3 }[version]
    if klass.nil?
      issue = Puppet::Pops::Issues::HIERA_UNSUPPORTED_VERSION
      raise Puppet::DataBinding::LookupError.new(issue.format(version: version), path, nil, nil, nil, issue.issue_code)
    end
    klass.new(path.parent, path, parsed, owner_for(c['layer']))
    res['outcome'] = 'ok'
  rescue Exception => e
    res['outcome'] = 'error'
    res['error'] = e.message.gsub(dir, '<root>')
    res['error_class'] = e.class.name
  end
  res['warnings'] = warnings.map { |w| w.gsub(dir, '<root>') }
  c.merge('puppet' => res)
end
File.write(out, JSON.pretty_generate(results) + "\n")
puts "#{results.size} cases, #{results.count { |r| r['puppet']['outcome'] == 'error' }} errors"
