# Puppet compiles a dependency cycle; only puppet apply rejects it.
exec { 'x': command => '/bin/true' }
exec { 'y': command => '/bin/true' }
exec { 'z': command => '/bin/true' }
exec { 'outside': command => '/bin/true', require => Exec['x'] }
Exec['x'] -> Exec['y'] -> Exec['z'] -> Exec['x']
