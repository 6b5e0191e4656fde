class { 'monit':
  system_fs => ['/'],
}
