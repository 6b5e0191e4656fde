ssh::allowgroup { 'admins': }
