include rkhunter
