class { 'prosody':
  admins       => ['admin@localhost'],
  virtualhosts => {
    'localhost' => {},
  },
}

prosody::user { 'admin':
  pass => 'secret',
  host => 'localhost',
}
