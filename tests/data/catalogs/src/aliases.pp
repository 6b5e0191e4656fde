# References through explicit aliases, namevar aliases of isomorphic types and
# trailing-slash titles.
file { '/tmp/fsmove-cat/dir/': ensure => directory }
file { '/tmp/fsmove-cat/named': ensure => file, alias => ['first-alias', 'second-alias'] }
file { 'by-path': ensure => file, path => '/tmp/fsmove-cat/dir/config' }
file { 'messy-path':                                        # canonical: /tmp/fsmove-cat/dir/messy
  ensure => file,
  path   => '/tmp/fsmove-cat//dir/./sub/../messy/',
}
exec { 'uses-explicit-alias': command => '/bin/true', subscribe => File['first-alias'] }
exec { 'uses-namevar-alias': command => '/bin/true', require => File['/tmp/fsmove-cat/dir/config'] }
exec { 'uses-slash-title': command => '/bin/true', require => File['/tmp/fsmove-cat/dir/'] }
exec { 'uses-stripped-title': command => '/bin/true', require => File['/tmp/fsmove-cat/dir'] }
user { 'by-name-user': ensure => present, name => 'fsmove-alias-user' }
exec { 'uses-user-name': command => '/bin/true', require => User['fsmove-alias-user'] }
# Package has two key attributes (name, provider): a reference by its name compiles but
# fails at apply ("Could not retrieve dependency"), so it must not be an alias.
package { 'by-name-package': ensure => absent, name => 'fsmove-test-pkg' }
