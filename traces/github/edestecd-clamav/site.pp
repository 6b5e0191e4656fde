class { 'clamav':
  manage_clamd     => true,
  manage_freshclam => true,
}
