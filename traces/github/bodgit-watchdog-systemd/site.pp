include watchdog
