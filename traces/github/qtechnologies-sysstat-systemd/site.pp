include sysstat
