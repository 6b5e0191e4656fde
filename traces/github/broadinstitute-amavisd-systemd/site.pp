class { 'amavisd':
  myhostname => 'mail.example.com',
}
