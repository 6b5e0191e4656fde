include apt
class { 'aptly':
  repo => false,
}
include aptly::api
