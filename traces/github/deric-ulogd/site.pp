class { 'ulogd':
  config => {
    'global' => {
      'logfile'  => 'syslog',
      'loglevel' => 3,
      'stack'    => 'log2:NFLOG,base1:BASE,ifi1:IFINDEX,ip2str1:IP2STR,print1:PRINTPKT,emu1:LOGEMU',
    },
    'log1'   => { 'group' => 0 },
    'log2'   => { 'group' => 2 },
    'emu1'   => { 'file' => '/var/log/firewall.log', 'sync' => 1 },
  },
}
