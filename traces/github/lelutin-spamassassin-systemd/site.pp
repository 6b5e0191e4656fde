class { 'spamassassin':
  sa_update       => true,
  service_enabled => true,
}
