# Chaining arrows, arrays of references, the require function and collectors:
# all of them end up as before/notify/require/subscribe parameters in the catalog.
class chains::base {
  file { '/tmp/fsmove-cat/base': ensure => file }
}

class chains::user {
  require chains::base
  exec { 'uses-base': command => '/bin/true' }
}

include chains::user

file { '/tmp/fsmove-cat/a': ensure => file }
file { '/tmp/fsmove-cat/b': ensure => file, require => File['/tmp/fsmove-cat/a'] }
exec { 'single-before': command => '/bin/true', before => Exec['target'] }
exec { 'target': command => '/bin/true' }
exec { 'array-subscribe':
  command   => '/bin/true',
  subscribe => [File['/tmp/fsmove-cat/a'], File['/tmp/fsmove-cat/b']],
}

File['/tmp/fsmove-cat/a'] -> Exec['target']
File['/tmp/fsmove-cat/b'] ~> Exec['target']
[Exec['single-before'], File['/tmp/fsmove-cat/b']] -> Exec['array-subscribe']

@file { '/tmp/fsmove-cat/virtual': ensure => file, tag => 'collected' }
File <| tag == 'collected' |> -> Exec['collector-target']
exec { 'collector-target': command => '/bin/true' }
