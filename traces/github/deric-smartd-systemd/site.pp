class { 'smartd':
  defaults => '-a -m root@domain.org',
}
