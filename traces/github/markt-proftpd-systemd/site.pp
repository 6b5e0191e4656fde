class { 'proftpd': }
