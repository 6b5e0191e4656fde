include bacula::client
