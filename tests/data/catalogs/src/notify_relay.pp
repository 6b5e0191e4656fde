# Refresh events travel through refreshing resources only (exec, service, package,
# containers); a File in the middle stops them.
file { '/tmp/fsmove-nr/a': ensure => file }
exec { 'relay': command => '/bin/true', refreshonly => true }
service { 'fsmove-svc-one': ensure => undef }
File['/tmp/fsmove-nr/a'] ~> Exec['relay'] ~> Service['fsmove-svc-one']

file { '/tmp/fsmove-nr/b': ensure => file }
file { '/tmp/fsmove-nr/static': ensure => file }
service { 'fsmove-svc-two': ensure => undef }
File['/tmp/fsmove-nr/b'] ~> File['/tmp/fsmove-nr/static'] ~> Service['fsmove-svc-two']

file { '/tmp/fsmove-nr/c': ensure => file }
package { 'fsmove-relay-package': ensure => absent }
service { 'fsmove-svc-three': ensure => undef }
File['/tmp/fsmove-nr/c'] ~> Package['fsmove-relay-package'] ~> Service['fsmove-svc-three']

file { '/tmp/fsmove-nr/d': ensure => file }
exec { 'ordered-only': command => '/bin/true', refreshonly => true }
service { 'fsmove-svc-four': ensure => undef }
File['/tmp/fsmove-nr/d'] ~> Exec['ordered-only'] -> Service['fsmove-svc-four']

class notify_relay::service {
  service { 'fsmove-svc-in-class': ensure => undef }
  exec { 'in-class': command => '/bin/true', refreshonly => true }
}
include notify_relay::service
file { '/tmp/fsmove-nr/e': ensure => file, notify => Class['notify_relay::service'] }

class notify_relay::config {
  file { '/tmp/fsmove-nr/in-config': ensure => file }
}
include notify_relay::config
service { 'fsmove-svc-five': ensure => undef, subscribe => Class['notify_relay::config'] }
