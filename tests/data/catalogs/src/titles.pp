# Titles with brackets, quotes, spaces, a newline and UTF-8 must survive the round trip.
exec { 'with [brackets] inside': command => '/bin/true' }
exec { 'ends with ]': command => '/bin/true' }
exec { "quotes ' and \"": command => '/bin/true' }
exec { "line\nbreak": command => '/bin/true' }
exec { 'Grüße ☃': command => '/bin/true' }
file { '/tmp/fsmove-cat/üñí [x]': ensure => file }
exec { 'needs-all':
  command => '/bin/true',
  require => [Exec['with [brackets] inside'], Exec['ends with ]'], Exec["quotes ' and \""],
              Exec["line\nbreak"], Exec['Grüße ☃'], File['/tmp/fsmove-cat/üñí [x]']],
}
