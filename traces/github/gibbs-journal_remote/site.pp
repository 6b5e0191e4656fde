include ::systemd_journal_remote::remote
