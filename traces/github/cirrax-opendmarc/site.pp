class { 'opendmarc':
  configs => {
    'RejectFailures' => 'true',
    'Syslog'         => 'true',
  },
}
