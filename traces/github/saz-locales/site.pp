class { 'locales':
  locales        => ['en_US.UTF-8 UTF-8', 'de_DE.UTF-8 UTF-8'],
  default_locale => 'en_US.UTF-8',
}
