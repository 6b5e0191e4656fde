# contain vs include vs resource-like class declarations, and nested defined types:
# only contain and defined-type bodies put resources inside a container.
define containment::inner() {
  exec { "in-inner-${title}": command => '/bin/true' }
}

define containment::outer() {
  exec { "in-outer-${title}": command => '/bin/true' }
  containment::inner { "${title}-inner": }
}

class containment::contained {
  exec { 'in-contained': command => '/bin/true' }
}

class containment::included {
  exec { 'in-included': command => '/bin/true' }
}

class containment::resource_like {
  exec { 'in-resource-like': command => '/bin/true' }
}

class containment::parent {
  contain containment::contained
  include containment::included
  class { 'containment::resource_like': }
  exec { 'in-parent': command => '/bin/true' }
  containment::outer { 'one': }
}

class containment::empty {}

include containment::parent
include containment::empty

exec { 'before-parent': command => '/bin/true', before => Class['containment::parent'] }
exec { 'after-parent': command => '/bin/true', require => Class['containment::parent'] }
exec { 'notifies-parent': command => '/bin/true', notify => Class['containment::parent'] }
exec { 'after-outer': command => '/bin/true', subscribe => Containment::Outer['one'] }
exec { 'after-empty': command => '/bin/true', require => Class['containment::empty'] }
exec { 'before-empty': command => '/bin/true', before => Class['containment::empty'] }
