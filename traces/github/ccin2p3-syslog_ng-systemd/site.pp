include syslog_ng

syslog_ng::config { 'version':
  content => '@version: 3.38',
  order   => '02',
}

syslog_ng::source { 's_gsoc':
  params => {
    'type'    => 'tcp',
    'options' => [
      { 'ip' => "'127.0.0.1'" },
      { 'port' => 1999 },
    ],
  },
}
