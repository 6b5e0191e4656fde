# Every autorequire rule of Puppet's core types, each with a case that must fire
# and a case that must not (unmanaged, numeric, not at a line start, manual edge present).
file { '/tmp/fsmove-ar': ensure => directory }
file { '/tmp/fsmove-ar/a/b': ensure => file }              # /tmp/fsmove-ar/a unmanaged: requires /tmp/fsmove-ar
file { '/tmp/fsmove-ar/d': ensure => directory }
file { '/tmp/fsmove-ar/d/e/': ensure => directory }        # trailing slash title
file { '/tmp/fsmove-ar/d/e/f': ensure => file }
file { '/tmp/fsmove-ar/link': ensure => link, target => '/tmp/fsmove-ar/d/e/f' }
file { '/tmp/fsmove-ar/owned':
  ensure => file,
  owner  => 'fsmove-user',
  group  => 'fsmove-group',
}
file { '/tmp/fsmove-ar/numeric': ensure => file, owner => '4242', group => 4243 }
file { '/tmp/fsmove-ar/reverse': ensure => directory, require => File['/tmp/fsmove-ar/reverse/child'] }
file { '/tmp/fsmove-ar/reverse/child': ensure => file }    # manual edge child -> parent: autorequire skipped
group { 'fsmove-group': ensure => present, gid => 4300 }
group { 'fsmove-other': ensure => present }
user { 'fsmove-user': ensure => present, gid => 'fsmove-group', groups => ['fsmove-other'] }
user { 'fsmove-numeric': ensure => present, gid => 4300 }
user { 'fsmove-role': ensure => present }
file { '/tmp/fsmove-ar/bin': ensure => directory }
file { '/tmp/fsmove-ar/bin/tool': ensure => file }
file { '/tmp/fsmove-ar/bin/second-line': ensure => file }
file { '/tmp/fsmove-ar/bin/flag-arg': ensure => file }     # after a flag: not autorequired
file { '/tmp/fsmove-ar/bin/quoted tool': ensure => file }
file { '/tmp/fsmove-ar/bin/onlyif-check': ensure => file }
file { '/tmp/fsmove-ar/bin/onlyif-arg': ensure => file }   # argument of test: not autorequired
file { '/tmp/fsmove-ar/bin/unless-check': ensure => file }
file { '/tmp/fsmove-ar/bin/array-arg': ensure => file }    # second array element: not autorequired
exec { 'cmd-path':
  command => "/tmp/fsmove-ar/bin/tool --flag /tmp/fsmove-ar/bin/flag-arg\n/tmp/fsmove-ar/bin/second-line",
  cwd     => '/tmp/fsmove-ar/d',
  user    => 'fsmove-user',
  onlyif  => ['/tmp/fsmove-ar/bin/onlyif-check -x', 'test -f /tmp/fsmove-ar/bin/onlyif-arg'],
  unless  => '/tmp/fsmove-ar/bin/unless-check',
  path    => '/bin:/usr/bin',
}
exec { 'cmd-quoted':
  command => '"/tmp/fsmove-ar/bin/quoted tool" arg',
  user    => '0',
}
exec { 'cmd-unqualified': command => 'sh /tmp/fsmove-ar/bin/tool', path => '/bin:/usr/bin' }
exec { 'cmd-array': command => ['/tmp/fsmove-ar/bin/tool', '/tmp/fsmove-ar/bin/array-arg'] }
exec { 'cmd-manual':                                      # manual edge exec -> file: autorequire skipped
  command => '/tmp/fsmove-ar/bin/tool',
  before  => File['/tmp/fsmove-ar/bin/tool'],
}
file { '/tmp/fsmove-ar/pkg': ensure => directory }
file { '/tmp/fsmove-ar/pkg/response': ensure => file }
file { '/tmp/fsmove-ar/pkg/admin': ensure => file }
file { '/tmp/fsmove-ar/pkg/local.deb': ensure => file }
package { 'fsmove-fake-package':
  ensure       => absent,
  responsefile => '/tmp/fsmove-ar/pkg/response',
  adminfile    => '/tmp/fsmove-ar/pkg/admin',
  source       => '/tmp/fsmove-ar/pkg/local.deb',
}
