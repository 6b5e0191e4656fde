# fsmove's compile with a node's facts (`fsmove check --facts FILE`), run in the sandbox by the
# root's own Ruby. Embedded in the fsmove binary (cmake/embedded_script.cc.in); tested on its own
# by tests/exec/merge_facts_test.py.
#
#   ruby merge_facts.rb SHOWN FACTS_FILE -- FACTS_ARGV... -- CATALOG_ARGV...
#
# 1. Reads FACTS_FILE (SHOWN is its name as the user gave it, for messages): JSON or YAML, as
#    `puppet facts show` (the facts alone), `puppet facts find` or a Puppet server's yaml cache
#    (name and values), PuppetDB (name and facts) or Foreman's API (results of one host, its
#    facts flattened with "::") give them.
# 2. Refuses facts that cannot be true of this root: another kernel or OS family.
# 3. Runs FACTS_ARGV (`puppet facts find NODE --render-as json` with the compile's settings: the
#    sandbox's own facts, the module's custom facts among them), puts the file's facts over them
#    (a fact the file names replaces the sandbox's whole), and saves the result where Puppet's
#    json facts terminus reads it.
# 4. Runs CATALOG_ARGV (`puppet catalog find ... NODE`) with that terminus; its output is the
#    catalog, its exit status this script's.
#
# Its own errors are Puppet-style "Error: " lines on stderr and exit status 3.
require 'json'
require 'psych'
require 'date'
require 'tmpdir'
require 'fileutils'

MAX_BYTES = 16 * 1024 * 1024
FACTS_WRAPPERS = %w[name values facts timestamp expiration certname environment producer_timestamp producer].freeze

def refuse(shown, message)
  warn "Error: --facts #{shown}: #{message}"
  exit 3
end

# The line of a JSON parse error: Ruby's json names the text where it stopped, not the line.
def json_error_line(text, error)
  excerpt = error.message[/unexpected token at '(.*)'/m, 1]
  return nil if excerpt.nil?
  return text.count("\n") + 1 if excerpt.empty? # at the end of the text
  at = text.index(excerpt[0, 24])
  at ? text[0, at].count("\n") + 1 : nil
end

def parse_facts(shown, text)
  if text.lstrip.start_with?('{', '[')
    begin
      return JSON.parse(text, max_nesting: 100)
    rescue JSON::ParserError => e
      line = json_error_line(text, e)
      refuse(shown, "#{line ? "line #{line}: " : ''}not valid JSON (#{e.message.lines.first.to_s.strip.sub(/\A\d+: /, "")[0, 60]})")
    end
  end
  # A Puppet server's yaml cache tags its document as a Ruby object: the mapping is read as is.
  text = text.sub(%r{\A(---\s*)!ruby/object:Puppet::Node::Facts}, '\1')
  begin
    Psych.safe_load(text, permitted_classes: [Symbol, Time, Date], aliases: false, filename: shown)
  rescue Psych::SyntaxError => e
    refuse(shown, "line #{e.line}, column #{e.column}: not valid YAML (#{e.problem})")
  rescue Psych::DisallowedClass, Psych::BadAlias => e
    refuse(shown, "not plain YAML data: #{e.message}")
  end
end

# Foreman flattens structured facts: "os::family" => "Debian" is { "os" => { "family" => ... } }.
def unflatten(facts)
  out = {}
  facts.each do |key, value|
    parts = key.to_s.split('::')
    next if parts.empty? || parts.any?(&:empty?)
    leaf = parts.pop
    node = parts.reduce(out) do |h, part|
      h[part] = {} unless h[part].is_a?(Hash)
      h[part]
    end
    node[leaf] = value unless node[leaf].is_a?(Hash)
  end
  out
end

# The facts of the file, whatever tool wrote it.
def facts_of(shown, data)
  refuse(shown, "expected a mapping of facts, found #{data.class.name.downcase}") unless data.is_a?(Hash)
  if data['values'].is_a?(Hash) && (data.keys - FACTS_WRAPPERS).empty?
    data['values']
  elsif data['facts'].is_a?(Hash) && (data.keys - FACTS_WRAPPERS).empty?
    data['facts']
  elsif data['results'].is_a?(Hash) && data.key?('total')
    hosts = data['results']
    refuse(shown, "Foreman's results hold #{hosts.size} hosts: export one host's facts") unless hosts.size == 1
    unflatten(hosts.values.first || {})
  else
    data
  end
end

def fact(facts, *path)
  path.reduce(facts) { |v, k| v.is_a?(Hash) ? v[k] : nil }
end

# Facts that cannot be true of the root the catalog is applied on.
def check_root(shown, user, own)
  system = "#{fact(own, 'os', 'name')} #{fact(own, 'os', 'release', 'major')}"
  [%w[kernel], %w[os family], %w[osfamily]].each do |path|
    theirs = fact(user, *path)
    ours = path == %w[kernel] ? fact(own, 'kernel') : fact(own, 'os', 'family')
    next if theirs.nil? || ours.nil? || theirs.to_s.casecmp?(ours.to_s)
    refuse(shown, "#{path.join('.')} is #{theirs}, but the catalog is applied on #{system} (#{ours}): " \
                  "a catalog compiled for #{theirs} names packages, services and paths this root " \
                  "does not have. Give the facts of a #{ours} node: fsmove's roots are Debian")
  end
  theirs = fact(user, 'os', 'release', 'major')
  ours = fact(own, 'os', 'release', 'major')
  return if theirs.nil? || ours.nil? || theirs.to_s == ours.to_s
  warn "Warning: --facts #{shown}: os.release.major is #{theirs}, the root's is #{ours}: the catalog " \
       "is compiled for #{theirs} and applied on #{ours}"
end

shown, path = ARGV.shift(2)
first = ARGV.index('--')
second = first && ARGV[(first + 1)..].index('--')
abort 'usage: merge_facts.rb SHOWN FACTS_FILE -- FACTS_ARGV... -- CATALOG_ARGV...' if shown.nil? || second.nil?
facts_argv = ARGV[(first + 1), second]
catalog_argv = ARGV[(first + second + 2)..]
node = catalog_argv.last

text = begin
  File.open(path, 'rb') { |f| f.read(MAX_BYTES + 1) } || ''
rescue SystemCallError => e
  refuse(shown, "cannot read it: #{e.message}")
end
refuse(shown, "larger than #{MAX_BYTES / 1024 / 1024} MiB") if text.bytesize > MAX_BYTES
text.force_encoding(Encoding::UTF_8)
refuse(shown, 'not UTF-8 text') unless text.valid_encoding?
user = facts_of(shown, parse_facts(shown, text))
refuse(shown, 'it holds no facts') if user.empty?

own_json = IO.popen(facts_argv, 'r', &:read)
unless $?.success?
  warn "Error: the sandbox's own facts: `#{facts_argv[0, 3].join(' ')}` exited with #{$?.exitstatus}"
  exit 3
end
own = begin
  JSON.parse(own_json)
rescue JSON::ParserError
  warn "Error: the sandbox's own facts: `#{facts_argv[0, 3].join(' ')}` printed no JSON"
  exit 3
end
own_values = own['values'].is_a?(Hash) ? own['values'] : own
check_root(shown, user, own_values)

merged = own_values.merge(user.reject { |k, _| k == 'trusted' })
datadir = Dir.mktmpdir('fsmove-facts')
begin
  FileUtils.mkdir_p(File.join(datadir, 'facts'))
  File.write(File.join(datadir, 'facts', "#{node}.json"),
             JSON.generate({ 'name' => node, 'values' => merged }))
  warn "Notice: fsmove: #{user.size} facts of #{shown} over the sandbox's #{own_values.size}"
  pid = Process.spawn(*catalog_argv, '--facts_terminus', 'json', '--client_datadir', datadir)
  Process.wait(pid)
  exit($?.exitstatus || 1)
ensure
  FileUtils.rm_rf(datadir)
end
