# Run stages: a class put in Stage[pre] is ordered before everything in Stage[main].
stage { 'pre': before => Stage['main'] }
stage { 'post': }
Stage['main'] -> Stage['post']

class stages::early {
  exec { 'early': command => '/bin/true' }
}

class stages::late {
  exec { 'late': command => '/bin/true' }
}

class { 'stages::early': stage => 'pre' }
class { 'stages::late': stage => 'post' }
exec { 'in-main': command => '/bin/true' }
