class { 'motd':
  content       => "Welcome to ${facts['networking']['fqdn']}\n",
  issue_content => "Authorized use only\n",
}
